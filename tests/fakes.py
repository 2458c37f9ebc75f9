"""Hand-written fakes of the ports, for unit tests of use cases.

They are kept honest by the contract suites in tests/integration/*/contract_*.py, which
run the same assertions against the fake and every real adapter.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np


class FixedClock:
    def __init__(self, now: datetime | None = None) -> None:
        self._now = now or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, **delta: float) -> None:
        self._now += timedelta(**delta)


class HashingEmbedder:
    """Bag of words hashed into a small unit vector: texts sharing words are similar."""

    model_name = "test/hashing"

    def __init__(self, dimension: int = 64) -> None:
        self.dimension = dimension
        self.calls: list[int] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                vectors[row, bucket % self.dimension] += 1.0
            norm = np.linalg.norm(vectors[row])
            if norm:
                vectors[row] /= norm
        return vectors

    async def aclose(self) -> None:
        return None


class InMemoryMemoryIndex:
    """The MemoryIndex port over a dict: exact cosine, org and scope filters."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], tuple[object, np.ndarray]] = {}

    async def upsert(self, items, vectors) -> None:
        for item, vector in zip(items, vectors, strict=True):
            self._items[(item.org_id, item.id)] = (item, np.asarray(vector, dtype=np.float32))

    async def search(self, org_id, scope, vector, k, memory_types=()):
        wanted = scope.as_filter()
        hits = []
        for (org, _), (item, stored) in self._items.items():
            if org != org_id:
                continue
            if any(getattr(item.scope, name) != value for name, value in wanted.items()):
                continue
            if memory_types and item.memory_type not in memory_types:
                continue
            hits.append((item, float(np.dot(stored, vector))))
        hits.sort(key=lambda hit: (-hit[1], hit[0].id))
        return hits[:k]

    async def get(self, org_id, ids):
        return [self._items[(org_id, id_)][0] for id_ in ids if (org_id, id_) in self._items]

    async def count(self, org_id) -> int:
        return sum(1 for org, _ in self._items if org == org_id)
