"""Hand-written fakes of the ports, for unit tests of use cases.

They are kept honest by the contract suites in tests/integration/*/contract_*.py, which
run the same assertions against the fake and every real adapter.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
from memory_svc.domain.conversation import said_of
from memory_svc.domain.model import ScopeMatch
from memory_svc.usecases.memory_ports import DEFAULT_FILTER, AccessTarget


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
    """The MemoryIndex port over a dict: exact cosine, BM25 with Qdrant's IDF, the same filters."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, str], tuple[object, np.ndarray, dict[int, float]]] = {}

    async def upsert(self, items, vectors, sparse=None) -> None:
        if sparse is not None and len(sparse) != len(items):
            raise ValueError(f"expected {len(items)} sparse vectors, got {len(sparse)}")
        sparse = sparse if sparse is not None else [None] * len(items)
        for item, vector, terms in zip(items, vectors, sparse, strict=True):
            key = (item.org_id, item.id)
            if key not in self._items and any(id_ == item.id for _, id_ in self._items):
                continue  # another org's point id: never overwritten (the adapters' org guard)
            self._items[key] = (item, np.asarray(vector, dtype=np.float32), terms.as_dict() if terms else {})

    def _matches(self, item, org_id, scope, memory_types, filters, scope_match=ScopeMatch.BROWSE) -> bool:
        if item.org_id != org_id:
            return False
        if not scope.selects(item.scope, scope_match):
            return False
        if memory_types and item.memory_type not in memory_types:
            return False
        if filters.statuses and item.status not in filters.statuses:
            return False
        if filters.valid_after is not None and item.valid_at < filters.valid_after:
            return False
        if filters.valid_before is not None and item.valid_at >= filters.valid_before:
            return False
        return filters.min_salience is None or item.current_salience >= filters.min_salience

    async def search(
        self, org_id, scope, vector, k, memory_types=(), *, filters=DEFAULT_FILTER, scope_match=ScopeMatch.BROWSE
    ):
        hits = [
            (item.id, float(np.dot(stored, vector)))
            for item, stored, _ in self._items.values()
            if self._matches(item, org_id, scope, memory_types, filters, scope_match)
        ]
        hits.sort(key=lambda hit: (-hit[1], hit[0]))
        return hits[: max(0, k)]

    async def search_lexical(
        self, org_id, scope, query, k, memory_types=(), *, filters=DEFAULT_FILTER, scope_match=ScopeMatch.BROWSE
    ):
        # Qdrant's IDF modifier: statistics over every point holding a sparse vector (all orgs).
        documents = [terms for _, _, terms in self._items.values() if terms]
        total = len(documents)
        hits = []
        for item, _, terms in self._items.values():
            if not terms or not self._matches(item, org_id, scope, memory_types, filters, scope_match):
                continue
            score = 0.0
            for index, weight in query.as_dict().items():
                if index in terms:
                    having = sum(1 for document in documents if index in document)
                    idf = math.log(1.0 + (total - having + 0.5) / (having + 0.5))
                    score += weight * idf * terms[index]
            if score > 0:
                hits.append((item.id, score))
        hits.sort(key=lambda hit: (-hit[1], hit[0]))
        return hits[: max(0, k)]

    async def access_counts(self, org_id, ids):
        return {id_: self._items[(org_id, id_)][0].access_count for id_ in ids if (org_id, id_) in self._items}

    async def said_in_session(
        self,
        org_id,
        scope,
        session_id,
        limit,
        memory_types=(),
        *,
        filters=DEFAULT_FILTER,
        scope_match=ScopeMatch.BROWSE,
    ):
        told = [
            place
            for item, _, _ in self._items.values()
            if self._matches(item, org_id, scope, memory_types, filters, scope_match)
            and (place := said_of(item)) is not None
            and place.session_id == session_id
        ]
        return told[: max(0, limit)]

    async def get(self, org_id, ids):
        return [self._items[(org_id, id_)][0] for id_ in ids if (org_id, id_) in self._items]

    async def access_targets(self, org_id, ids):
        return [AccessTarget.of(item) for item in await self.get(org_id, ids)]

    async def vectors(self, org_id, ids):
        return {id_: self._items[(org_id, id_)][1].copy() for id_ in ids if (org_id, id_) in self._items}

    async def count(self, org_id) -> int:
        return sum(1 for org, _ in self._items if org == org_id)

    # The MemoryCatalog port (usecases/memory_ports.py).

    async def page(
        self, org_id, scope, memory_types, statuses, order, limit, after=None, *, scope_match=ScopeMatch.BROWSE
    ):
        """The adapters' order, computed over everything: sort value descending, ties by id ascending."""
        import uuid

        from memory_svc.usecases.memory_ports import SearchFilter

        filters = SearchFilter(statuses=tuple(statuses))
        items = [
            item
            for item, _, _ in self._items.values()
            if self._matches(item, org_id, scope, memory_types, filters, scope_match)
        ]
        field = "created_at" if str(order) == "newest" else "current_salience"
        items.sort(key=lambda item: str(uuid.UUID(item.id)))
        items.sort(key=lambda item: getattr(item, field), reverse=True)
        if after is not None:
            last = str(uuid.UUID(after.item_id))
            items = [
                item
                for item in items
                if getattr(item, field) < after.value
                or (getattr(item, field) == after.value and str(uuid.UUID(item.id)) > last)
            ]
        return items[:limit]

    async def replace_payloads(self, org_id, items, fields=None) -> None:
        import dataclasses

        for item in items:
            if item.org_id != org_id:
                raise ValueError("an item of another org cannot be rewritten")
            if (org_id, item.id) in self._items:
                stored, vector, terms = self._items[(org_id, item.id)]
                if fields is not None:
                    item = dataclasses.replace(stored, **{name: getattr(item, name) for name in fields})
                self._items[(org_id, item.id)] = (item, vector, terms)

    async def write_access(self, org_id, refreshed) -> None:
        import dataclasses

        for refresh in refreshed:
            if (org_id, refresh.target.id) in self._items:
                stored, vector, terms = self._items[(org_id, refresh.target.id)]
                item = dataclasses.replace(
                    stored,
                    access_count=refresh.access_count,
                    last_accessed_at=refresh.last_accessed_at,
                    current_salience=refresh.current_salience,
                )
                self._items[(org_id, refresh.target.id)] = (item, vector, terms)

    async def delete_scope(self, org_id, scope):
        from memory_svc.usecases.memory_ports import SearchFilter

        everything = SearchFilter(statuses=())
        doomed = [
            key for key, (item, _, _) in self._items.items() if self._matches(item, org_id, scope, (), everything)
        ]
        for key in doomed:
            del self._items[key]
        return [item_id for _, item_id in doomed]

    async def iterate_vectors(self, org_id, scope, memory_types, statuses, batch_size):
        from memory_svc.usecases.memory_ports import SearchFilter

        wanted = SearchFilter(statuses=tuple(statuses))
        rows = [(item, vector) for item, vector, _ in self._items.values()]
        rows = [(item, vector) for item, vector in rows if self._matches(item, org_id, scope, memory_types, wanted)]
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            yield [item for item, _ in batch], np.asarray([vector for _, vector in batch], dtype=np.float32)

    async def org_ids(self):
        return sorted({org for org, _ in self._items})

    async def iterate(self, org_id, scope, batch_size):
        from memory_svc.usecases.memory_ports import SearchFilter

        everything = SearchFilter(statuses=())
        items = [item for item, _, _ in self._items.values() if self._matches(item, org_id, scope, (), everything)]
        for start in range(0, len(items), batch_size):
            yield items[start : start + batch_size]


class InMemoryOrderGenerations:
    """The OrderGenerations port in memory; held to the Postgres adapter's contract
    (tests/integration/memory/test_ledger_contract.py)."""

    def __init__(self) -> None:
        self._salience: dict[str, int] = {}

    async def salience(self, org_id: str) -> int:
        return self._salience.get(org_id, 0)

    async def advance_salience(self, org_id: str) -> int:
        self._salience[org_id] = self._salience.get(org_id, 0) + 1
        return self._salience[org_id]


class InMemoryErasedMemories:
    """The ErasedMemories port in memory; held to the Postgres adapter's contract."""

    def __init__(self) -> None:
        self._ids: set[tuple[str, str]] = set()

    async def record(self, org_id: str, memory_ids) -> None:
        import uuid

        self._ids.update((org_id, str(uuid.UUID(memory_id))) for memory_id in memory_ids)

    async def erased(self, org_id: str, memory_ids) -> set[str]:
        import uuid

        return {str(uuid.UUID(m)) for m in memory_ids if (org_id, str(uuid.UUID(m))) in self._ids}


class InMemorySubjectFence:
    """The SubjectFence port in memory; held to the Postgres adapter's contract
    (tests/integration/memory/test_subject_fence_contract.py): a fence waits for the writes of the
    scopes it covers under way, a write entered while a fence covers its scope is refused."""

    def __init__(self) -> None:
        import asyncio

        self._fences: dict[tuple[str, str], object] = {}
        self._writing: list[tuple[str, tuple[object, ...]]] = []
        self._changed = asyncio.Condition()

    @staticmethod
    def _covers(subject, scope) -> bool:
        return all(
            not wanted or wanted == getattr(scope, name)
            for name, wanted in (
                ("user_id", subject.user_id),
                ("agent_id", subject.agent_id),
                ("team_id", subject.team_id),
            )
        )

    async def fence(self, org_id: str, erasure_id: str, subject) -> None:
        async with self._changed:
            await self._changed.wait_for(
                lambda: (
                    not any(
                        org == org_id and any(self._covers(subject, scope) for scope in scopes)
                        for org, scopes in self._writing
                    )
                )
            )
            self._fences.setdefault((org_id, erasure_id), subject)

    async def lift(self, org_id: str, erasure_id: str) -> None:
        self._fences.pop((org_id, erasure_id), None)

    def writing(self, org_id: str, scopes):
        from contextlib import asynccontextmanager

        from lore_runtime.errors import Conflict

        @asynccontextmanager
        async def held():
            for (org, erasure_id), subject in self._fences.items():
                if org == org_id and any(self._covers(subject, scope) for scope in scopes):
                    raise Conflict(
                        f"this subject is being erased (erasure {erasure_id}): nothing is written for it until "
                        "the erasure completes",
                        reason="SUBJECT_ERASING",
                    )
            entry = (org_id, tuple(scopes))
            self._writing.append(entry)
            try:
                yield
            finally:
                self._writing.remove(entry)
                async with self._changed:
                    self._changed.notify_all()

        return held()
