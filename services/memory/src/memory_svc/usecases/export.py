"""ExportMemories: every memory of a scope, streamed in pages (archived and consolidated too)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from lore_runtime.org_transfer import export_page_size

from memory_svc.domain.model import MemoryItem, Scope
from memory_svc.usecases.memory_ports import MemoryCatalog

DEFAULT_PAGE = 500
MAX_PAGE = 1_000


async def export_memories(
    org_id: str, scope: Scope, page_size: int, *, catalog: MemoryCatalog
) -> AsyncIterator[list[MemoryItem]]:
    limit = export_page_size(page_size, default=DEFAULT_PAGE, maximum=MAX_PAGE)
    async for batch in catalog.iterate(org_id, scope, limit):
        yield batch
