"""What the memory use cases need from the outside world (implemented in adapters/)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import numpy as np

from memory_svc.domain.model import MemoryItem, MemoryType, Scope


class MemoryIndex(Protocol):
    """Long-term memory items with their vectors, always filtered by org."""

    async def upsert(self, items: Sequence[MemoryItem], vectors: np.ndarray) -> None: ...

    async def search(
        self,
        org_id: str,
        scope: Scope,
        vector: np.ndarray,
        k: int,
        memory_types: Sequence[MemoryType] = (),
    ) -> list[tuple[MemoryItem, float]]:
        """The k nearest items of ``org_id`` within ``scope``, with their cosine similarity."""
        ...

    async def get(self, org_id: str, ids: Sequence[str]) -> list[MemoryItem]: ...

    async def count(self, org_id: str) -> int: ...


class Clock(Protocol):
    def now(self) -> datetime: ...
