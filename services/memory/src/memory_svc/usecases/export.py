"""ExportMemories: every memory of a scope, streamed in pages (archived and consolidated too)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from lore_runtime import errors

from memory_svc.domain.model import MemoryItem, Scope
from memory_svc.usecases.memory_ports import MemoryCatalog

DEFAULT_PAGE = 500
MAX_PAGE = 1_000


async def export_memories(
    org_id: str, scope: Scope, page_size: int, *, catalog: MemoryCatalog
) -> AsyncIterator[list[MemoryItem]]:
    if page_size < 0 or page_size > MAX_PAGE:
        raise errors.InvalidArgument("page_size", f"must be between 1 and {MAX_PAGE} (0 means {DEFAULT_PAGE})")
    async for batch in catalog.iterate(org_id, scope, page_size or DEFAULT_PAGE):
        yield batch
