"""BM25 sparse vectors computed by the service itself, identically for every index adapter.

A document (a memory's content) becomes a sparse vector whose values are BM25's
term-frequency saturation; the IDF half of BM25 is applied by the index at query time
(Qdrant's ``Modifier.IDF`` on the ``bm25`` sparse vector; the in-memory fake does the same
arithmetic), so the stored vectors never depend on the rest of the collection and never
need rewriting when it grows. A query becomes 1.0 per unique term, so a point's score is

    sum over query terms t of  idf(t) * tf(t)·(k1 + 1) / (tf(t) + k1·(1 − b + b·len/AVG_DOC_LEN))

which is Okapi BM25 with a fixed average document length: a true corpus average would
make every stored vector depend on the whole collection (and on other tenants).

Pipeline: lower-case (``str.casefold``), Unicode word tokens (``\\w+`` without "_"),
English stop words dropped, a light suffix stemmer (plural/-ing/-ed, see ``stem``), each
term mapped to a stable uint32 (the first 4 bytes of its BLAKE2b digest: stable across
processes and Python versions, unlike ``hash()``). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

K1 = 1.2
B = 0.75
# Typical memory length in terms after stop-word removal: a chat turn ("Speaker: text") has
# ~25 words, ~12 of them content words. Fixed, so a stored vector never changes.
AVG_DOC_LEN = 12.0

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

STOP_WORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn
    shouldn hasn haven hadn let lets im ive id youre thats also really
    """.split()
)


@dataclass(frozen=True, slots=True)
class SparseVector:
    """Sorted unique ``indices`` (uint32) with one positive value each."""

    indices: tuple[int, ...] = ()
    values: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if len(self.indices) != len(self.values):
            raise ValueError("a sparse vector needs one value per index")

    def __bool__(self) -> bool:
        return bool(self.indices)

    def as_dict(self) -> dict[int, float]:
        return dict(zip(self.indices, self.values, strict=True))


def stem(token: str) -> str:
    """A light English suffix stemmer: folds plurals and -ing/-ed forms onto a common stem.

    Deliberately conservative (short words and digits are left alone) so that unrelated
    words rarely collide: "groups"→"group", "parties"→"party", "painting"/"painted"→"paint".
    """
    if len(token) <= 3 or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("sses"):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        token = token[:-1]
    if token.endswith("ing") and len(token) > 5:
        token = token[:-3]
    elif token.endswith("ed") and len(token) > 4:
        token = token[:-2]
    else:
        return token
    if len(token) > 3 and token[-1] == token[-2] and token[-1] not in "lsz":  # running -> runn -> run
        token = token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """The terms of ``text``, in order, repeats kept: lower-cased, stop words dropped, stemmed."""
    return [stem(token) for token in _TOKEN.findall(text.casefold()) if token not in STOP_WORDS]


def term_index(term: str) -> int:
    """A stable uint32 for ``term`` (BLAKE2b, 4 bytes, big-endian)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def _sparse(weights: dict[int, float]) -> SparseVector:
    ordered = sorted(weights.items())
    return SparseVector(tuple(index for index, _ in ordered), tuple(value for _, value in ordered))


def encode_document(text: str) -> SparseVector:
    """BM25 term-frequency saturation of each term of ``text`` (IDF left to the index)."""
    terms = tokenize(text)
    if not terms:
        return SparseVector()
    norm = K1 * (1.0 - B + B * len(terms) / AVG_DOC_LEN)
    weights: dict[int, float] = {}
    for term, tf in Counter(terms).items():
        index = term_index(term)
        # Two terms sharing a 32-bit index (vanishingly rare) add up rather than overwrite.
        weights[index] = weights.get(index, 0.0) + tf * (K1 + 1.0) / (tf + norm)
    return _sparse(weights)


def encode_query(text: str) -> SparseVector:
    """1.0 per unique term of ``text``: the score is then the sum of idf × document weight."""
    return _sparse({term_index(term): 1.0 for term in tokenize(text)})
