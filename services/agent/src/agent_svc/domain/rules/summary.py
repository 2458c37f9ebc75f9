"""Extractive summaries and keyphrases, deterministic and model-free.

Summary: every sentence is scored by the document frequency of its content words (mean, so long
sentences do not win by length) times a position weight (a turn's first sentence usually says what
the turn is about); the best are taken while they fit the character budget and printed in their
original order. Keyphrases: runs of content words between stopwords and punctuation (RAKE's
candidates), at most three words, scored by how often the phrase occurs times the summed frequency
of its words; a phrase whose words are all inside a better one is dropped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from agent_svc.domain.rules.text import STOPWORDS, content_words, sentences

ROLLING_SUMMARY_CHARS = 600
MAX_KEYPHRASE_WORDS = 3
_SPEAKER = {"user": "User", "assistant": "Assistant"}
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9+#'-]*|[^\sA-Za-z]")


def _position_weight(index: int) -> float:
    return 1.0 if index == 0 else 1.0 / (1.0 + 0.15 * index)


def summarise(turns: Sequence[tuple[str, str]], budget: int = ROLLING_SUMMARY_CHARS) -> str:
    """The top sentences of (role, text) turns, in order, at most ``budget`` characters."""
    if budget <= 0:
        return ""
    pool: list[tuple[int, str, str, float]] = []  # (order, role, sentence, score)
    frequency: Counter[str] = Counter()
    per_sentence: list[tuple[str, str, int, list[str]]] = []
    for role, text in turns:
        for sentence in sentences(text):
            words = content_words(sentence.clean)
            frequency.update(words)
            per_sentence.append((role, " ".join(sentence.clean.split()), sentence.index, words))
    for order, (role, sentence, index, words) in enumerate(per_sentence):
        if not words:
            continue  # greetings, thanks, "ok": nothing to summarise
        score = sum(frequency[w] for w in words) / len(words) * _position_weight(index)
        pool.append((order, role, sentence, score))
    chosen: list[tuple[int, str, str]] = []
    used = 0
    for order, role, sentence, _ in sorted(pool, key=lambda item: (-item[3], item[0])):
        cost = len(sentence) + len(_SPEAKER.get(role, "")) + 3
        if used + cost > budget:
            continue
        chosen.append((order, role, sentence))
        used += cost
    if not chosen and pool:  # one long sentence: cut it at a word boundary rather than say nothing
        order, role, sentence, _ = min(pool, key=lambda item: (-item[3], item[0]))
        cut = sentence[: max(0, budget - 1)].rsplit(" ", 1)[0]
        return (cut + "…")[:budget] if cut else ""
    parts: list[str] = []
    last_role = None
    for _, role, sentence in sorted(chosen):
        label = _SPEAKER.get(role, "")
        parts.append(f"{label}: {sentence}" if label and role != last_role else sentence)
        last_role = role
    return " ".join(parts)[:budget]


def keyphrases(texts: Sequence[str], k: int = 5) -> tuple[str, ...]:
    """The ``k`` most salient noun-ish phrases, lower case, best first."""
    candidates: list[tuple[str, ...]] = []
    for text in texts:
        for sentence in sentences(text):
            run: list[str] = []
            for token in [*_TOKEN.findall(sentence.clean.lower()), "."]:
                word = token.strip("'-")
                if len(word) > 2 and word not in STOPWORDS and word[0].isalpha() and not word.endswith("'s"):
                    run.append(word)
                    continue
                if run:
                    candidates.append(tuple(run[-MAX_KEYPHRASE_WORDS:]))  # the head noun usually ends a run
                run = []
    word_frequency = Counter(w for phrase in candidates for w in phrase)
    phrase_count = Counter(candidates)
    first_seen = {phrase: i for i, phrase in reversed(list(enumerate(candidates)))}
    ranked = sorted(
        phrase_count,
        key=lambda p: (-phrase_count[p] * sum(word_frequency[w] for w in p), first_seen[p]),
    )
    picked: list[tuple[str, ...]] = []
    for phrase in ranked:
        if any(set(phrase) <= set(better) for better in picked):
            continue
        picked.append(phrase)
        if len(picked) >= k:
            break
    return tuple(" ".join(p) for p in picked)
