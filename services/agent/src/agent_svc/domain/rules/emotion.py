"""A small emotion lexicon for user turns: label, valence (-1..1) and intensity (0..1).

Deliberately crude: words and a few emoji, intensifiers just before the word ("really", "so") and
exclamation marks raise the intensity, a negation just before flips it ("not happy" reads as
disappointed, "not worried" as calm). The strongest cue in the turn wins; ties go to the first.
"""

from __future__ import annotations

import re

from agent_svc.domain.extraction import Emotion
from agent_svc.domain.rules.text import MAX_SCAN_CHARS, clean

# label → (valence, base intensity); the words that signal it follow in LEXICON.
LABELS: dict[str, tuple[float, float]] = {
    "frustrated": (-0.7, 0.6),
    "annoyed": (-0.5, 0.5),
    "angry": (-0.8, 0.7),
    "anxious": (-0.6, 0.55),
    "sad": (-0.6, 0.5),
    "disappointed": (-0.5, 0.5),
    "confused": (-0.3, 0.45),
    "tired": (-0.3, 0.4),
    "pleased": (0.6, 0.5),
    "excited": (0.8, 0.65),
    "grateful": (0.7, 0.45),
    "relieved": (0.5, 0.5),
    "curious": (0.3, 0.4),
    "calm": (0.2, 0.3),
}
LEXICON: dict[str, str] = {
    **dict.fromkeys(("frustrated", "frustrating", "frustration", "ugh", "argh", "fed up", "sick of", "driving me "
                     "crazy", "still broken", "still not working", "doesn't work", "does not work"), "frustrated"),
    **dict.fromkeys(("annoyed", "annoying", "irritated", "irritating"), "annoyed"),
    **dict.fromkeys(("angry", "furious", "mad at", "pissed"), "angry"),
    **dict.fromkeys(("anxious", "worried", "nervous", "stressed", "scared", "afraid", "panicking", "overwhelmed"),
                    "anxious"),
    **dict.fromkeys(("sad", "upset", "unhappy", "depressed", "heartbroken", "lonely", "down"), "sad"),
    **dict.fromkeys(("disappointed", "disappointing", "let down"), "disappointed"),
    **dict.fromkeys(("confused", "confusing", "lost", "not sure", "don't understand", "doesn't make sense"),
                    "confused"),
    **dict.fromkeys(("tired", "exhausted", "burnt out", "burned out"), "tired"),
    **dict.fromkeys(("happy", "glad", "pleased", "great", "awesome", "love it", "nice", "perfect", "works now"),
                    "pleased"),
    **dict.fromkeys(("excited", "thrilled", "can't wait", "amazing", "fantastic", "wow"), "excited"),
    **dict.fromkeys(("thanks", "thank you", "grateful", "appreciate", "thx"), "grateful"),
    **dict.fromkeys(("relieved", "phew", "finally works"), "relieved"),
    **dict.fromkeys(("curious", "wondering", "i wonder", "interested"), "curious"),
    **dict.fromkeys(("calm", "relaxed"), "calm"),
    "😀": "pleased", "🙂": "pleased", "😊": "pleased", "😄": "pleased", "🎉": "excited", "😡": "angry",
    "😠": "angry", "😢": "sad", "😭": "sad", "😞": "disappointed", "😟": "anxious", "😤": "frustrated",
    "🙏": "grateful", "🤔": "curious", "😕": "confused",
}  # fmt: skip
# A negated emotion reads as its opposite, weaker.
OPPOSITE = {"pleased": "disappointed", "excited": "disappointed", "grateful": "disappointed", "relieved": "anxious",
            "calm": "anxious", "curious": "calm"}  # fmt: skip
INTENSIFIERS = ("really", "so", "very", "extremely", "super", "totally", "incredibly", "absolutely", "completely",
                "seriously", "quite")  # fmt: skip
_NEGATORS = re.compile(r"\b(?:not|never|no|isn't|aren't|wasn't|don't|didn't|hardly)\s+(?:\w+\s+)?$", re.I)
_CUES = re.compile(
    "|".join(
        (re.escape(cue) if not cue[0].isalpha() else rf"\b{re.escape(cue)}\b")
        for cue in sorted(LEXICON, key=len, reverse=True)
    ),
    re.I,
)
_INTENSIFIER_BEFORE = re.compile(r"\b(?:" + "|".join(INTENSIFIERS) + r")\s+(?:\w+\s+)?$", re.I)


def detect_emotion(text: str, role: str = "user") -> Emotion | None:
    """The strongest emotion a user turn shows, or None (assistant turns carry none)."""
    if role != "user" or not isinstance(text, str):
        return None
    text = clean(text)[:MAX_SCAN_CHARS]
    best: Emotion | None = None
    for match in _CUES.finditer(text):
        label = LEXICON.get(match.group(0).lower(), LEXICON.get(match.group(0)))
        if label is None:
            continue
        before = text[max(0, match.start() - 30) : match.start()]
        valence, intensity = LABELS[label]
        if _INTENSIFIER_BEFORE.search(before):
            intensity += 0.2
        after = text[match.end() : match.end() + 40].split(".")[0]
        bangs = after.count("!")
        intensity += min(0.2, 0.1 * bangs)
        if match.group(0).isupper() and len(match.group(0)) > 2:
            intensity += 0.1
        if _NEGATORS.search(before) and label != "confused":
            label = OPPOSITE.get(label, "calm" if valence < 0 else "disappointed")
            valence, intensity = LABELS[label][0] * 0.6, intensity * 0.7
        candidate = Emotion(label, round(max(-1.0, min(1.0, valence)), 3), round(max(0.0, min(1.0, intensity)), 3))
        if best is None or candidate.intensity > best.intensity:
            best = candidate
    return best
