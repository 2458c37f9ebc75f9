"""An episode's summary: the few sentences that best stand for the whole conversation, both sides.

Every sentence the user and the assistant said is embedded (the packaged model; one unit vector
each). Statements of at least two content words may be quoted (questions, greetings and thanks are
not). The choice is greedy; each step takes the sentence that most raises, together:
- **likeness**: the cosine between the summary's embedding and the conversation's (the mean of its
  quotable sentences). A text's embedding is the mean of its words', so the summary's is taken as
  its sentences' vectors weighted by their word counts: a sentence must move the whole toward what
  the conversation is about, not only sit near it;
- **coverage** (facility location): ``Σ_j max_{chosen i} cos(j, i) / n`` over every sentence ``j``,
  which stops rewarding a second sentence saying the same thing, so the summary reaches each part
  of the conversation and not only its main topic;
- ``POSITION_WEIGHT`` for being said early (a conversation opens with its news);
until ``SUMMARY_CHARS`` characters or ``MAX_SUMMARY_SENTENCES`` sentences. Either term alone does
worse against LoCoMo's gold summaries (docs/extraction.md).

The picked sentences are printed in conversation order, each speaker named once per run of their
sentences (``"User: … Assistant: …"``), the words as said: a summary never pastes whole turns.
Pure: the caller embeds ``Sentence.text`` and passes the vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agent_svc.domain.rules.text import MAX_SENTENCE_CHARS, content_words, sentences

SUMMARY_CHARS = 600
MAX_SUMMARY_SENTENCES = 10
# Embedding cost bound: a longer conversation is sampled evenly down to this many sentences.
MAX_SENTENCES = 240
MIN_CONTENT_WORDS = 2
# Tuned on LoCoMo conversations 0-2 (bench/episode_summaries.py), checked on 3-5; anywhere in
# 0.5-2 for COVERAGE_WEIGHT and 0.05-0.15 for POSITION_WEIGHT scores within 0.01 of the chosen.
POSITION_WEIGHT = 0.1
COVERAGE_WEIGHT = 1.0
_SPEAKER = {"user": "User", "assistant": "Assistant"}


@dataclass(frozen=True, slots=True)
class Sentence:
    order: int  # position in the conversation
    role: str
    text: str
    quotable: bool  # a statement with enough content to stand in a summary


def conversation_sentences(turns: Sequence[tuple[str, str]]) -> list[Sentence]:
    """The user's and assistant's sentences, in order (at most ``MAX_SENTENCES``, evenly sampled)."""
    found: list[Sentence] = []
    for role, content in turns:
        if role not in _SPEAKER or not isinstance(content, str):
            continue
        for sentence in sentences(content):
            text = " ".join(sentence.text.split())
            if not text or len(text) > MAX_SENTENCE_CHARS:
                continue
            quotable = not sentence.is_question and len(content_words(sentence.clean)) >= MIN_CONTENT_WORDS
            found.append(Sentence(len(found), role, text, quotable))
    if len(found) > MAX_SENTENCES:
        keep = np.linspace(0, len(found) - 1, MAX_SENTENCES).round().astype(int)
        found = [found[i] for i in dict.fromkeys(keep.tolist())]
    return found


def pick_summary(
    vectors: np.ndarray,
    said: Sequence[Sentence],
    *,
    budget: int = SUMMARY_CHARS,
    max_sentences: int = MAX_SUMMARY_SENTENCES,
) -> list[int]:
    """Indices (ascending) of the quotable sentences whose greedy choice best stands for all of
    ``said`` (``vectors``: one unit row each) within ``budget`` characters."""
    quotable = [i for i, sentence in enumerate(said) if sentence.quotable]
    if not quotable or budget <= 0:
        return []
    vectors = np.asarray(vectors, dtype=np.float32)
    candidates = vectors[quotable]
    target = _unit(candidates.mean(axis=0))
    words = np.array([len(said[i].text.split()) for i in quotable], dtype=np.float32)[:, None]
    similarity = np.clip(vectors @ candidates.T, 0.0, None)  # every sentence × each quotable one
    early = POSITION_WEIGHT * (1.0 - np.array([said[i].order for i in quotable]) / max(len(said), 1))
    lengths = [rendered_length(said[i]) for i in quotable]
    total = np.zeros(vectors.shape[1], dtype=np.float32)  # the summary's word-weighted vector sum
    covered = np.zeros(len(said), dtype=np.float32)
    open_ = np.ones(len(quotable), dtype=bool)
    picked: list[int] = []
    texts: set[str] = set()
    used = 0
    while len(picked) < max_sentences and open_.any():
        grown = total + words * candidates
        likeness = grown @ target / np.maximum(np.linalg.norm(grown, axis=1), 1e-9)
        likeness -= float(_unit(total) @ target)
        coverage = np.maximum(similarity - covered[:, None], 0.0).sum(axis=0) / len(said)
        gain = likeness + COVERAGE_WEIGHT * coverage + early
        gain[~open_] = -np.inf
        best = int(np.argmax(gain))
        open_[best] = False
        text = said[quotable[best]].text.casefold()
        if used + lengths[best] > budget or text in texts:
            continue  # too long for what is left (a shorter one may still fit), or said already
        texts.add(text)
        picked.append(quotable[best])
        used += lengths[best]
        total = total + words[best, 0] * candidates[best]
        covered = np.maximum(covered, similarity[:, best])
    return sorted(picked)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def render(chosen: Sequence[Sentence]) -> str:
    """``"User: a. b. Assistant: c."``: the speaker named when it changes."""
    parts: list[str] = []
    last = None
    for sentence in sorted(chosen, key=lambda s: s.order):
        text = sentence.text if sentence.text[-1] in ".!?" else sentence.text + "."
        parts.append(f"{_SPEAKER[sentence.role]}: {text}" if sentence.role != last else text)
        last = sentence.role
    return " ".join(parts)


def rendered_length(sentence: Sentence) -> int:
    """What ``sentence`` costs in the summary, with its speaker label and a separator."""
    return len(sentence.text) + len(_SPEAKER[sentence.role]) + 4


def summary_of(said: Sequence[Sentence], vectors: np.ndarray, budget: int = SUMMARY_CHARS) -> str:
    """The summary of a conversation given its ``conversation_sentences`` and their embeddings."""
    return render([said[i] for i in pick_summary(vectors, said, budget=budget)])
