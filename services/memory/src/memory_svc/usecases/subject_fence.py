"""Erasure's fence in the memory service (docs/agent.md "Erasure"): the agent's erase job fences a
subject before its final sweep and lifts the fence after it. Meanwhile Remember, UpdateMemory and
ImportMemories refuse to write a record of a scope the fence covers (ABORTED, SUBJECT_ERASING), so
nothing written for the subject outlives its erasure; a write already under way when the fence is
asked for finishes first (the fence waits for it), and the sweep then removes what it wrote.

Decay, consolidation and the access log's write-behind are not fenced: they rewrite records that
exist, and the sweep deletes the subject's records with whatever they rewrote.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lore_runtime import errors

from memory_svc.domain.lexical import SparseVector
from memory_svc.domain.model import MemoryItem, Scope
from memory_svc.usecases.memory_ports import AccessRefresh, SubjectFence

MAX_ERASURE_ID_CHARS = 128


def _erasure_id(value: str) -> str:
    if not value.strip():
        raise errors.InvalidArgument("erasure_id", "is required")
    if len(value) > MAX_ERASURE_ID_CHARS:
        raise errors.InvalidArgument("erasure_id", f"at most {MAX_ERASURE_ID_CHARS} characters")
    return value


async def fence_subject(org_id: str, subject: Scope, erasure_id: str, *, fence: SubjectFence) -> None:
    if not (subject.user_id or subject.agent_id or subject.team_id):
        raise errors.InvalidArgument("subject", "name a user, agent or team: an empty subject would be the whole org")
    await fence.fence(org_id, _erasure_id(erasure_id), subject)


async def lift_subject_fence(org_id: str, erasure_id: str, *, fence: SubjectFence) -> None:
    await fence.lift(org_id, _erasure_id(erasure_id))


class FencedWrites:
    """The items store as the callers' writes see it: ``upsert``, ``replace_payloads`` and
    ``write_access`` run inside the fence of the scopes they write; everything else is the store's own."""

    def __init__(self, store: object, fence: SubjectFence) -> None:
        self._store = store
        self._fence = fence

    async def upsert(
        self, items: Sequence[MemoryItem], vectors: np.ndarray, sparse: Sequence[SparseVector] | None = None
    ) -> None:
        if not items:
            return await self._store.upsert(items, vectors, sparse)  # type: ignore[attr-defined]
        async with self._fence.writing(items[0].org_id, [item.scope for item in items]):
            await self._store.upsert(items, vectors, sparse)  # type: ignore[attr-defined]

    async def replace_payloads(
        self, org_id: str, items: Sequence[MemoryItem], fields: Sequence[str] | None = None
    ) -> None:
        async with self._fence.writing(org_id, [item.scope for item in items]):
            await self._store.replace_payloads(org_id, items, fields)  # type: ignore[attr-defined]

    async def write_access(self, org_id: str, refreshed: Sequence[AccessRefresh]) -> None:
        async with self._fence.writing(org_id, [refresh.target.scope for refresh in refreshed]):
            await self._store.write_access(org_id, refreshed)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)
