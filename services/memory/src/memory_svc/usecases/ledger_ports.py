"""Small Postgres-kept records the memory use cases consult beside the index: the salience-order
generation of each org (keyset paging) and the ids of erased memories (idempotent writes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class OrderGenerations(Protocol):
    async def salience(self, org_id: str) -> int:
        """The org's salience-order generation: 0 until its stored salience is first rewritten."""
        ...

    async def advance_salience(self, org_id: str) -> int:
        """A job is about to rewrite (or has rewritten) stored salience: salience-ordered pages cut
        before are stale. Returns the new generation."""
        ...


class ErasedMemories(Protocol):
    async def record(self, org_id: str, memory_ids: Sequence[str]) -> None:
        """Erasure: these ids may never be written again."""
        ...

    async def erased(self, org_id: str, memory_ids: Sequence[str]) -> set[str]:
        """Which of ``memory_ids`` were erased."""
        ...
