"""``lore org export`` / ``lore org import`` on the observations service's side.

Export pages through every observation (every status, with all its evidence) and the whole
engagement state, oldest first. Import restores them exactly as they were — ids, confidence and
its components, freshness, status, supersession links, timestamps, evidence — and never re-scores:
the only thing made here is each belief's embedding, with the configured model (the export carries
no vectors, so a file restores into a deployment with another model). Records the org already
holds are skipped, so a re-import changes nothing; a batch is one transaction.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from lore_embeddings import Embedder
from lore_runtime.errors import InvalidArgument
from lore_runtime.org_transfer import ImportReport, export_page_size
from opentelemetry import trace

from observations_svc.domain.engagement import Finding, Hypothesis, Unknown
from observations_svc.domain.model import Observation
from observations_svc.domain.restore import MAX_IMPORT_BATCH, EngagementRow, supersession_order
from observations_svc.usecases.engagement_ports import EngagementArchive, RestoreCounts
from observations_svc.usecases.observe import embedding_text
from observations_svc.usecases.ports import ObservationArchive

tracer = trace.get_tracer(__name__)

DEFAULT_EXPORT_PAGE = 200

Item = TypeVar("Item")
# Where an export page stopped: the (created_at, id) of its last record.
Position = tuple[datetime, str]


@dataclass(frozen=True, slots=True)
class EngagementPage:
    """One streamed message of an engagement export (the row only in the first)."""

    row: EngagementRow | None
    hypotheses: list[tuple[Hypothesis, Finding | None]]
    unknowns: list[Unknown]


def _export_page_size(value: int) -> int:
    return export_page_size(value, default=DEFAULT_EXPORT_PAGE, maximum=MAX_IMPORT_BATCH)


async def _pages(
    read: Callable[[Position | None], Awaitable[list[Item]]], limit: int, position: Callable[[Item], Position]
) -> AsyncIterator[list[Item]]:
    """Every non-empty page of an export listing, ``read`` after the ``position`` of the previous page's
    last item (``None`` first), until a page shorter than ``limit``."""
    after = None
    while True:
        page = await read(after)
        if page:
            yield page
        if len(page) < limit:
            return
        after = position(page[-1])


def _created(record: Observation | Unknown) -> Position:
    return record.created_at, record.id


async def export_observations(
    org_id: str, page_size: int, *, store: ObservationArchive
) -> AsyncIterator[list[Observation]]:
    limit = _export_page_size(page_size)
    async for page in _pages(lambda after: store.export_page(org_id, after, limit), limit, _created):
        yield page


async def import_observations(
    org_id: str, observations: Sequence[Observation], *, store: ObservationArchive, embedder: Embedder
) -> ImportReport:
    """Insert the ``observations`` the org does not hold, superseded beliefs before their successors."""
    with tracer.start_as_current_span("observations.import") as span:
        span.set_attribute("lore.org_id", org_id)
        held = {observation.id for observation in await store.get_many(org_id, [o.id for o in observations])}
        order = [position for position in supersession_order(observations) if observations[position].id not in held]
        in_batch = {observation.id for observation in observations}
        outside = {
            observations[position].supersedes_observation_id: position
            for position in order
            if observations[position].supersedes_observation_id
            and observations[position].supersedes_observation_id not in in_batch
        }
        if outside:
            found = {observation.id for observation in await store.get_many(org_id, list(outside))}
            for missing, position in outside.items():
                if missing not in found:
                    raise InvalidArgument(
                        f"observations[{position}].supersedes_observation_id",
                        "names an observation this organisation does not hold: import it first",
                    )
        fresh = [observations[position] for position in order]
        span.set_attribute("lore.observations", len(fresh))
        if fresh:
            vectors = await embedder.embed([embedding_text(item.summary, item.detail) for item in fresh])
            await store.insert_restored(org_id, fresh, [vector.tolist() for vector in vectors])
    return ImportReport(imported=len(fresh), skipped=len(observations) - len(fresh))


async def export_engagement(org_id: str, page_size: int, *, store: EngagementArchive) -> AsyncIterator[EngagementPage]:
    """The row, then every hypothesis, then every unknown, oldest first; nothing without engagement state."""
    limit = _export_page_size(page_size)
    row = await store.export_row(org_id)
    if row is None:
        return
    hypothesis_pages = _pages(
        lambda after: store.export_hypotheses(org_id, after, limit), limit, lambda pair: _created(pair[0])
    )
    first = True
    async for hypotheses in hypothesis_pages:
        yield EngagementPage(row if first else None, hypotheses, [])
        first = False
    if first:  # no hypotheses: the row goes alone
        yield EngagementPage(row, [], [])
    async for unknowns in _pages(lambda after: store.export_unknowns(org_id, after, limit), limit, _created):
        yield EngagementPage(None, [], unknowns)


async def import_engagement(
    org_id: str,
    row: EngagementRow | None,
    hypotheses: Sequence[tuple[Hypothesis, Finding | None]],
    unknowns: Sequence[Unknown],
    *,
    store: EngagementArchive,
) -> RestoreCounts:
    with tracer.start_as_current_span("observations.import_engagement") as span:
        span.set_attribute("lore.org_id", org_id)
        return await store.restore(org_id, row, hypotheses, unknowns)
