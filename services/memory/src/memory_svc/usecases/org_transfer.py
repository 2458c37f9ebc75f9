"""``lore org export`` / ``lore org import`` on the memory service's side: episodes out in pages,
memories and episodes back in as they were.

Import restores records, it does not create them: ids, salience, access counts, timestamps and
provenance are kept; only the vectors are made here, with the configured model (the export
carries none, so a file restores into a deployment with another model and is searchable at once).
A record whose id the org already holds is skipped (a re-import changes nothing). The stores never
overwrite another org's point, so an id that does not land in this org belongs to another one:
that is refused, never moved across tenants.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from lore_embeddings import Embedder
from lore_runtime import errors
from lore_runtime.org_transfer import ImportReport, export_page_size
from opentelemetry import trace

from memory_svc.domain.episode import Episode
from memory_svc.domain.model import MemoryItem, Scope
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodeIndex
from memory_svc.usecases.episodes import embed_episodes
from memory_svc.usecases.export import DEFAULT_PAGE, MAX_PAGE
from memory_svc.usecases.memory_ports import MemoryIndex
from memory_svc.usecases.remember import embed_items

tracer = trace.get_tracer(__name__)


async def import_memories(
    org_id: str, items: Sequence[MemoryItem], *, index: MemoryIndex, embedder: Embedder
) -> ImportReport:
    """Write the ``items`` of ``org_id`` the org does not hold yet, with fresh dense and BM25 vectors."""
    with tracer.start_as_current_span("memory.import_memories") as span:
        span.set_attribute("lore.org_id", org_id)
        held = {item.id for item in await index.get(org_id, [item.id for item in items])}
        fresh = [item for item in items if item.id not in held]
        span.set_attribute("lore.memories", len(fresh))
        if fresh:
            await index.upsert(fresh, *await embed_items(fresh, embedder))
            landed = {item.id for item in await index.get(org_id, [item.id for item in fresh])}
            refused = [item.id for item in fresh if item.id not in landed]
            if refused:
                raise errors.id_of_another_org("memory", refused[0], len(refused))
    return ImportReport(imported=len(fresh), skipped=len(items) - len(fresh))


async def export_episodes(org_id: str, page_size: int, *, index: EpisodeIndex) -> AsyncIterator[list[Episode]]:
    """Every episode of ``org_id`` (every scope), newest first, in pages of ``page_size``."""
    limit = export_page_size(page_size, default=DEFAULT_PAGE, maximum=MAX_PAGE)
    cursor: EpisodeCursor | None = None
    while True:
        page = await index.list(org_id, Scope(), limit, cursor)
        if page.episodes:
            yield page.episodes
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


async def import_episodes(
    org_id: str, episodes: Sequence[Episode], *, index: EpisodeIndex, embedder: Embedder
) -> ImportReport:
    """Write the ``episodes`` of ``org_id`` the org does not hold yet, embedding their summaries."""
    with tracer.start_as_current_span("memory.import_episodes") as span:
        span.set_attribute("lore.org_id", org_id)
        fresh = [episode for episode in episodes if await index.get(org_id, episode.id) is None]
        span.set_attribute("lore.episodes", len(fresh))
        if fresh:
            vectors = await embed_episodes(fresh, embedder)
            for episode, vector in zip(fresh, vectors, strict=True):
                await index.upsert(episode, vector)
            refused = [episode.id for episode in fresh if await index.get(org_id, episode.id) is None]
            if refused:
                raise errors.id_of_another_org("episode", refused[0], len(refused))
    return ImportReport(imported=len(fresh), skipped=len(episodes) - len(fresh))
