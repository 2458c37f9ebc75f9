"""Near-duplicate removal across all sections (ARCHITECTURE.md §5: cosine > 0.85, keep the newest).

The candidates are walked beliefs first, then newest first (``occurred_at`` descending, unknown
times oldest; ties by higher total, then id, then source, so the walk is a total order and the
result does not depend on the input order): a belief is kept over the memory that repeats it, and
the newer of two memories over the older. A candidate is a duplicate of an already kept one when
they have the same polarity (``statements.py``: a statement and its negation never merge) and

- their normalised statements are equal (casefold, whitespace collapsed, trailing punctuation
  stripped; the statement is the text without what the context adds — a memory's day, a belief's
  confidence — so "… (on 8 May 2023)" does not hide a repeat);
- or their vectors have a cosine above the threshold (vectors of different dimension, zero or
  non-finite vectors never match; among several matching kept candidates the most similar is named)
  and, for a message (a turn as said), the kept one states at least half of its content words
  (``statements.keeps_most``): two turns on one topic embed close and still say different things;
- or their content words overlap (``statements.same_terms``: Jaccard ≥ 0.75 over three terms or
  more) — the rule for what has no vector to compare.

Why numpy: the pairwise cosines of 200 candidates × 384 dimensions are one matrix product (~0.3 ms)
where pure Python takes tens of milliseconds. Only rows with at least one earlier candidate above
the threshold are then walked in Python, so the common case (few duplicates) stays linear.

Why in blocks: OpenBLAS runs a product on ⌊m·n·k / 2^18⌋ threads of its pool (capped by the
cores); on a busy 2-core machine (the service's pod under load) a 150 × 150 × 384 product measured
10–120 ms that way instead of 0.3 ms on one thread. Blocks with m·n·k under 2^19 (``_BLOCK_MNK``)
always run on the calling thread, with no process-wide setting; only the lower triangle is
computed. float64 on purpose: float32 rounding would move pairs sitting on the threshold.
"""

from __future__ import annotations

import functools
import math
import string
import struct
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import chain

import numpy as np

from assembler_svc.domain.model import Candidate, Source
from assembler_svc.domain.speakers import substance
from assembler_svc.domain.statements import Statement, keeps_most, same_polarity, same_terms, statement

_TRAILING = string.punctuation + "…" + "".join(chr(c) for c in (0x2019, 0x201D, 0x3002, 0xFF01, 0xFF1F))


def normalise_text(text: str) -> str:
    """What "the same text" means for duplicates: case, spacing and final punctuation aside."""
    return normalise_collapsed(" ".join(text.split()))


def normalise_collapsed(text: str) -> str:
    """``normalise_text`` of a text whose whitespace is already collapsed (a rendered bullet's)."""
    return text.casefold().rstrip(_TRAILING).rstrip()


def timestamp(moment: datetime) -> float:
    """Naive datetimes are taken as UTC so aware and naive inputs still compare."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def walk_order(candidates: Sequence[Candidate], totals: Sequence[float]) -> list[int]:
    """Indices of ``candidates``, beliefs first, then newest first (see the module docstring)."""

    def key(index: int) -> tuple[int, int, float, float, str, int]:
        candidate = candidates[index]
        when = candidate.occurred_at
        return (
            0 if candidate.source is Source.OBSERVATION else 1,
            0 if when is not None else 1,
            -timestamp(when) if when is not None else 0.0,
            -totals[index],
            candidate.id,
            int(candidate.source),
        )

    return sorted(range(len(candidates)), key=key)


_BLOCK_MNK = (1 << 19) - 1


def _lower_cosines(matrix: np.ndarray) -> np.ndarray:
    """``matrix @ matrix.T`` on and below the diagonal (zeros above), in single-threaded blocks."""
    rows, dim = matrix.shape
    block = max(8, math.isqrt(_BLOCK_MNK // max(1, dim)))
    cosines = np.zeros((rows, rows))
    for top in range(0, rows, block):
        for left in range(0, top + 1, block):
            # Into a fresh block, then copied: ``out=`` a non-contiguous slice makes numpy skip BLAS
            # for its naive loop (11 ms instead of 0.25 ms for 113 × 384).
            cosines[top : top + block, left : left + block] = matrix[top : top + block] @ matrix[left : left + block].T
    return cosines


@functools.cache
def _packer(dim: int) -> struct.Struct:
    return struct.Struct(f"={dim}d")


def _as_matrix(vectors: list[Sequence[float]]) -> np.ndarray:
    """The vectors as rows of a float64 matrix. ``struct`` packs a tuple of floats ~3× faster than
    ``np.fromiter``/``np.array`` (which box and check every element): 0.3 ms instead of 0.9 ms for
    130 × 384; anything ``struct`` refuses goes the generic way."""
    dim = len(vectors[0])
    try:
        pack = _packer(dim).pack
        buffer = b"".join([pack(*vector) for vector in vectors])
        return np.frombuffer(buffer, dtype=np.float64).reshape(len(vectors), dim).copy()
    except (struct.error, TypeError):
        flat = np.fromiter(chain.from_iterable(vectors), dtype=np.float64, count=len(vectors) * dim)
        return flat.reshape(len(vectors), dim)


def _similar_earlier(vectors: list[Sequence[float]], threshold: float) -> tuple[dict[int, np.ndarray], np.ndarray]:
    """For each row with an earlier row above ``threshold``: those earlier rows; plus the cosines."""
    matrix = _as_matrix(vectors)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    valid = np.isfinite(norms) & (norms > 0)
    matrix /= np.where(valid, norms, 1.0)[:, None]
    if not valid.all():
        matrix[~valid] = 0.0
    cosines = _lower_cosines(matrix)
    above = np.tril(cosines > threshold, k=-1)
    rows = np.flatnonzero(above.any(axis=1))
    return {int(row): np.flatnonzero(above[row]) for row in rows}, cosines


def find_duplicates(
    candidates: Sequence[Candidate],
    totals: Sequence[float],
    threshold: float,
    text_keys: Sequence[str] | None = None,
) -> dict[int, int]:
    """``{index of a duplicate: index of the kept candidate it duplicates}`` over ``candidates``
    (indices into the sequence given); every index not in the result is kept. ``text_keys`` are
    the candidates' ``normalise_text(statement_of(candidate))`` when the caller has them already."""
    keys = text_keys if text_keys is not None else [normalise_text(statement_of(c)) for c in candidates]
    said = [statement(statement_of(candidate)) for candidate in candidates]
    order = walk_order(candidates, totals)
    # Group the vectors by dimension, each group's rows in walk order.
    groups: dict[int, list[int]] = {}
    for position, index in enumerate(order):
        vector = candidates[index].vector
        if vector is not None and len(vector) > 0:
            groups.setdefault(len(vector), []).append(position)
    similar: dict[int, tuple[np.ndarray, np.ndarray, list[int]]] = {}  # position -> (earlier rows, cosines, group)
    for positions in groups.values():
        if len(positions) < 2:
            continue
        earlier, cosines = _similar_earlier([candidates[order[p]].vector for p in positions], threshold)  # type: ignore[misc]
        for row, rows in earlier.items():
            similar[positions[row]] = (rows, cosines[row], positions)

    contents: dict[int, frozenset[str]] = {}

    def content(index: int) -> frozenset[str]:
        if index not in contents:
            contents[index] = substance(statement_of(candidates[index]))
        return contents[index]

    duplicates: dict[int, int] = {}
    kept_positions: set[int] = set()
    kept_texts: dict[str, int] = {}
    kept: list[int] = []
    for position, index in enumerate(order):
        text_key = keys[index]
        of = kept_texts.get(text_key)
        if of is None and position in similar:
            rows, cosines, positions = similar[position]
            best = -1.0
            for row in rows.tolist():
                earlier = order[positions[row]]
                if positions[row] not in kept_positions or not same_polarity(said[index], said[earlier]):
                    continue
                if candidates[index].quotes and not keeps_most(content(index), said[earlier].terms):
                    continue  # a message is a turn as said: close in meaning is not saying it
                if cosines[row] > best:
                    best, of = float(cosines[row]), earlier
        if of is None:
            of = _same_words(said, index, kept)
        if of is not None:
            duplicates[index] = of
            continue
        kept_positions.add(position)
        kept_texts.setdefault(text_key, index)
        kept.append(index)
    return duplicates


def same_statement(a: str, b: str) -> bool:
    """Whether two texts without vectors state the same: same polarity, and equal once normalised
    or with the same content words (the rules ``find_duplicates`` applies to them)."""
    said_a, said_b = statement(a), statement(b)
    if not same_polarity(said_a, said_b):
        return False
    return normalise_text(a) == normalise_text(b) or same_terms(said_a, said_b)


def statement_of(candidate: Candidate) -> str:
    """What the candidate states, without what the context adds to its text."""
    return candidate.statement or candidate.text


def _same_words(said: Sequence[Statement], index: int, kept: Sequence[int]) -> int | None:
    """The first kept candidate saying the same as ``index`` by its words, if any."""
    mine = said[index]
    for other in kept:
        if same_polarity(mine, said[other]) and same_terms(mine, said[other]):
            return other
    return None
