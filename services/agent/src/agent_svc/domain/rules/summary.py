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
from collections.abc import Mapping, Sequence

from agent_svc.domain.extraction import Thread
from agent_svc.domain.rules.narration import in_names, named, tellable, told, who_talked
from agent_svc.domain.rules.text import STOPWORDS, content_words, sentences

ROLLING_SUMMARY_CHARS = 600
MAX_KEYPHRASE_WORDS = 3
MAX_TOLD = 6  # sentences an episode summary tells
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


EPISODE_SUMMARY_CHARS = 600
EPISODE_TOPICS = 3
MAX_LISTED = 3  # decisions and open threads named in a summary


def narrate_summary(
    chosen: Sequence[tuple[str, str]],
    names: Mapping[str, str],
    *,
    topics: Sequence[str] = (),
    decided: Sequence[str] = (),
    still_open: Sequence[str] = (),
    budget: int = EPISODE_SUMMARY_CHARS,
) -> str:
    """An episode's summary: who talked about what, the (role, sentence) pairs ``chosen`` told in
    the third person in their order, then what was decided and what is still open, at most
    ``budget`` characters (whole sentences: the told ones are dropped from the end first)."""
    opening = who_talked(names, topics[:EPISODE_TOPICS])
    decided, still_open = list(decided[:MAX_LISTED]), list(still_open[:MAX_LISTED])
    listed = [set(content_words(item)) for item in (*decided, *still_open)]
    body = [sentence for sentence in told(chosen, names) if not _repeats(sentence, listed)]

    def text() -> str:
        tail = []
        if decided:
            tail.append("Decided: " + "; ".join(_clause(d) for d in decided) + ".")
        if still_open:
            tail.append("Still open: " + "; ".join(_clause(t) for t in still_open) + ".")
        return " ".join([opening, *body, *tail])

    while len(text()) > budget and (body or len(still_open) > 1 or len(decided) > 1):
        # The told sentences go first (from the end), then the decisions and threads past the first.
        (body if body else still_open if len(still_open) > 1 else decided).pop()
    summary = text()
    return summary if len(summary) <= budget else summary[: budget - 1].rsplit(" ", 1)[0] + "…"


def topics_of(texts: Sequence[str], k: int = EPISODE_TOPICS) -> tuple[str, ...]:
    """What a conversation was about, for a summary's opening: its keyphrases without the verbs and
    adverbs a run of content words may start with ("finally signed", "yet")."""
    found: list[str] = []
    for phrase in keyphrases(texts, k=4 * k):
        words = phrase.split()
        while words and _NOT_A_TOPIC.search(words[0]):
            words.pop(0)
        while words and _NOT_A_TOPIC.search(words[-1]):
            words.pop()
        topic = " ".join(words[-2:])  # the head noun usually ends a run
        if topic and topic not in found and not any(topic in other or other in topic for other in found):
            found.append(topic)
        if len(found) >= k:
            break
    return tuple(found)


_NOT_A_TOPIC = re.compile(
    r"(?:ly|ed|ing)$|^(?:yet|lot|lots|thing|things|stuff|way|time|today|tomorrow|yesterday|gonna|wanna|bit|sure|"
    r"awesome|amazing|cool|great|nice|love|glad|happy|wow|super|fun|pretty|tho|though|guess|mean|feel|think|"
    r"know|want|make|take|get|got|see|look|hope|tell|let|keep|try|sounds|totally|definitely)$"
)


def left_open(threads: Sequence[Thread], names: Mapping[str, str]) -> list[str]:
    """What an episode leaves open, told: a question as the user's question, a promise or request as
    the memory it came from (in the speakers' names), else its topic."""
    found = []
    for thread in threads:
        if thread.status == "resolved":
            continue
        topic = " ".join(thread.topic.split())
        if thread.context.startswith(_MEMORY_SUBJECT):
            found.append(in_names(thread.context, names))
        elif topic.endswith("?"):
            found.append(f'{named("user", names)}\'s question "{topic}"')
        else:
            found.append(f'"{topic}"')
    return [line[0].upper() + line[1:] for line in found if line]


_MEMORY_SUBJECT = ("The user ", "The assistant ")


def _repeats(sentence: str, listed: Sequence[set[str]]) -> bool:
    """Whether a told sentence says again what a decision or an open thread says (most of its words)."""
    words = set(content_words(sentence))
    return bool(words) and any(len(words & item) >= 0.8 * len(words) for item in listed)


def _clause(text: str) -> str:
    """An item of a list in a summary: one line, without its own label or final stop."""
    text = re.sub(r"^(?:decided|decision)\s*:\s*", "", " ".join(text.split()), flags=re.IGNORECASE)
    return text.rstrip(".!;")


def episode_summary(
    turns: Sequence[tuple[str, str]],
    names: Mapping[str, str] | None = None,
    *,
    decided: Sequence[str] = (),
    still_open: Sequence[str] = (),
    budget: int = EPISODE_SUMMARY_CHARS,
) -> str:
    """An episode's summary without an embedding model: the sentences ``summarise`` would choose
    (filler set aside), told in the third person (``narrate_summary``)."""
    names = names or {}
    pool: list[tuple[int, str, str, float]] = []
    frequency: Counter[str] = Counter()
    per_sentence: list[tuple[str, str, int, list[str]]] = []
    for role, text in turns:
        if role not in _SPEAKER:
            continue
        for sentence in sentences(text):
            words = content_words(sentence.clean)
            frequency.update(words)
            if tellable(sentence.text, sentence.is_question):
                per_sentence.append((role, " ".join(sentence.text.split()), sentence.index, words))
    for order, (role, sentence, index, words) in enumerate(per_sentence):
        if words:
            pool.append(
                (order, role, sentence, sum(frequency[w] for w in words) / len(words) * _position_weight(index))
            )
    chosen: list[tuple[int, str, str]] = []
    used = 0
    for order, role, sentence, _ in sorted(pool, key=lambda item: (-item[3], item[0])):
        if used + len(sentence) + 12 > budget // 2 or len(chosen) >= MAX_TOLD:
            continue
        chosen.append((order, role, sentence))
        used += len(sentence) + 12
    topics = topics_of([sentence for _, _, sentence in chosen])
    if not chosen and not topics:
        return ""
    return narrate_summary(
        [(role, sentence) for _, role, sentence in sorted(chosen)],
        names,
        topics=topics,
        decided=decided,
        still_open=still_open,
        budget=budget,
    )
