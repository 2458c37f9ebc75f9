"""An episode's summary: the few most central sentences of the whole conversation, both sides.

Every sentence of the user's and the assistant's turns that carries at least two content words is a
candidate (greetings, thanks and "how are you?" are not). With one unit vector per candidate (the
packaged embedding model), a sentence's centrality is its cosine to the conversation's centroid —
the same order as its mean cosine to all the others, at O(n) instead of O(n²). Sentences are then
picked by maximal marginal relevance: ``LAMBDA · centrality − (1 − LAMBDA) · (highest cosine to a
sentence already picked)``, so a second sentence saying the same thing loses to one adding a new
part of the conversation; at most ``MAX_SUMMARY_SENTENCES`` and ``SUMMARY_CHARS`` characters.

The picked sentences are printed in conversation order, each speaker named once per run of their
sentences (``"User: … Assistant: …"``), the words as said: a summary never pastes whole turns.
Pure: the caller embeds ``Candidate.text`` and passes the vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agent_svc.domain.rules.text import MAX_SENTENCE_CHARS, content_words, sentences

SUMMARY_CHARS = 600
MAX_SUMMARY_SENTENCES = 5
# Embedding cost bound: a longer conversation is sampled evenly down to this many candidates.
MAX_CANDIDATES = 240
MIN_CONTENT_WORDS = 2
LAMBDA = 0.7
_SPEAKER = {"user": "User", "assistant": "Assistant"}


@dataclass(frozen=True, slots=True)
class Candidate:
    order: int  # position in the conversation
    role: str
    text: str


def candidates(turns: Sequence[tuple[str, str]]) -> list[Candidate]:
    """The sentences a summary may quote, in conversation order."""
    found: list[Candidate] = []
    for role, content in turns:
        if role not in _SPEAKER or not isinstance(content, str):
            continue
        for sentence in sentences(content):
            text = " ".join(sentence.text.split())
            if len(text) > MAX_SENTENCE_CHARS or len(content_words(sentence.clean)) < MIN_CONTENT_WORDS:
                continue
            found.append(Candidate(len(found), role, text))
    if len(found) > MAX_CANDIDATES:
        keep = np.linspace(0, len(found) - 1, MAX_CANDIDATES).round().astype(int)
        found = [found[i] for i in dict.fromkeys(keep.tolist())]
    return found


def pick_central(
    vectors: np.ndarray,
    lengths: Sequence[int],
    *,
    budget: int = SUMMARY_CHARS,
    max_sentences: int = MAX_SUMMARY_SENTENCES,
) -> list[int]:
    """Indices (ascending) of the central, mutually distinct rows of ``vectors`` (unit rows) whose
    ``lengths`` fit ``budget``."""
    count = len(lengths)
    if count == 0 or budget <= 0:
        return []
    vectors = np.asarray(vectors, dtype=np.float32)
    centroid = vectors.mean(axis=0)
    norm = float(np.linalg.norm(centroid))
    centrality = vectors @ (centroid / norm) if norm > 0 else np.zeros(count, dtype=np.float32)
    redundancy = np.full(count, -1.0, dtype=np.float32)
    open_ = np.ones(count, dtype=bool)
    picked: list[int] = []
    used = 0
    while len(picked) < max_sentences and open_.any():
        gain = LAMBDA * centrality - (1 - LAMBDA) * np.maximum(redundancy, 0.0) if picked else centrality.copy()
        gain[~open_] = -np.inf
        best = int(np.argmax(gain))
        open_[best] = False
        if used + lengths[best] > budget:
            continue  # too long for what is left; a shorter one may still fit
        picked.append(best)
        used += lengths[best]
        redundancy = np.maximum(redundancy, vectors @ vectors[best])
    return sorted(picked)


def render(chosen: Sequence[Candidate]) -> str:
    """``"User: a. b. Assistant: c."``: the speaker named when it changes."""
    parts: list[str] = []
    last = None
    for candidate in sorted(chosen, key=lambda c: c.order):
        text = candidate.text if candidate.text[-1] in ".!?" else candidate.text + "."
        parts.append(f"{_SPEAKER[candidate.role]}: {text}" if candidate.role != last else text)
        last = candidate.role
    return " ".join(parts)


def rendered_length(candidate: Candidate) -> int:
    """What ``candidate`` costs in the summary, with its speaker label and a separator."""
    return len(candidate.text) + len(_SPEAKER[candidate.role]) + 4


def central_summary(found: Sequence[Candidate], vectors: np.ndarray, budget: int = SUMMARY_CHARS) -> str:
    """The summary of a conversation given its ``candidates`` and their embeddings."""
    picked = pick_central(vectors, [rendered_length(c) for c in found], budget=budget)
    return render([found[i] for i in picked])
