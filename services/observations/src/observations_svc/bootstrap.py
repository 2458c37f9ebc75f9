"""The only wiring of the observations service: stores (observations, engagement), the embedder, the clock.

RunRevalidation also runs in the background every ``LORE_REVALIDATION_INTERVAL_SECONDS``: the
replica that claims the run (``lore_runtime.scheduled``) revalidates one org at a time as a
system principal.
"""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta

import asyncpg
from lore_embeddings import Embedder, open_query_embedder, register_cache_metrics
from lore_runtime import request_context
from lore_runtime.clock import Clock, SystemClock
from lore_runtime.errors import FailedPrecondition
from lore_runtime.metrics import ScheduledRunMetrics, ServiceMetrics
from lore_runtime.page_tokens import PageTokens, page_tokens_for
from lore_runtime.scheduled import JobClaims, ScheduledJob, run_in_background, run_periodically
from lore_runtime.server import DependencyCheck
from lore_runtime.stores import open_postgres, ping_postgres
from opentelemetry.sdk.trace import TracerProvider

from observations_svc.adapters.postgres.engagement_archive import PostgresEngagementArchive
from observations_svc.adapters.postgres.engagement_store import PostgresEngagementStore
from observations_svc.adapters.postgres.observation_archive import PostgresObservationArchive
from observations_svc.adapters.postgres.observation_store import PostgresObservationStore
from observations_svc.config import Settings
from observations_svc.usecases.maintenance import run_revalidation

log = logging.getLogger(__name__)
SYSTEM_PRINCIPAL = "system:revalidation"
# How often a replica checks whether revalidation is due (it runs once per interval).
REVALIDATION_POLL_SECONDS = 300.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ObservationsOverrides:
    """What a test puts in place of the real thing; each left None is built from the settings."""

    postgres: asyncpg.Pool | None = None
    embedder: Embedder | None = None
    clock: Clock | None = None
    metrics: ServiceMetrics | None = None


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    embedder: Embedder
    store: PostgresObservationStore
    archive: PostgresObservationArchive
    engagement: PostgresEngagementStore
    engagement_archive: PostgresEngagementArchive
    clock: Clock
    page_tokens: PageTokens = field(default_factory=PageTokens)
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)
    metrics: ServiceMetrics = field(default_factory=ServiceMetrics)


async def check_dimension(store: PostgresObservationStore, embedder: Embedder) -> None:
    declared = await store.embedding_dimension()
    if declared != embedder.dimension:
        raise FailedPrecondition(
            f"the embedder {embedder.model_name} gives {embedder.dimension}-d vectors but "
            f"observations.observations.embedding holds {declared}-d ones: configure a {declared}-d model "
            "or add a migration that changes the column (and re-embeds)",
            reason="EMBEDDING_DIMENSION_MISMATCH",
        )


async def revalidate_due_orgs(store: PostgresObservationStore, clock: Clock) -> dict[str, int]:
    """One pass over every org with beliefs past their revalidation date, one org at a time as a
    system principal; returns the totals kept in ``observations.scheduled_runs``."""
    totals = {"orgs": 0, "checked": 0, "marked_stale": 0, "marked_invalidated": 0}
    for org_id in await store.orgs_due_for_revalidation(clock.now()):
        with request_context.bound(request_context.RequestContext(org_id, SYSTEM_PRINCIPAL)):
            report = await run_revalidation(org_id, "", store=store, clock=clock)
        totals["orgs"] += 1
        totals["checked"] += report.checked
        totals["marked_stale"] += report.marked_stale
        totals["marked_invalidated"] += report.marked_invalidated
    return totals


def start_revalidation(
    settings: Settings,
    stack: AsyncExitStack,
    postgres: asyncpg.Pool,
    store: PostgresObservationStore,
    clock: Clock,
    metrics: ServiceMetrics,
) -> None:
    """Revalidation every ``LORE_REVALIDATION_INTERVAL_SECONDS``, claimed by one replica
    (``lore_runtime.scheduled``, as the memory service's maintenance); each run counted on
    ``metrics`` (lore_scheduled_*{scheduled_job="revalidation"})."""
    interval = settings.revalidation_interval_seconds
    runs = ScheduledRunMetrics(metrics.registry)
    revalidate = runs.counted("revalidation", lambda: revalidate_due_orgs(store, clock))
    job = ScheduledJob("revalidation", timedelta(seconds=interval), revalidate)
    poll = timedelta(seconds=min(interval, REVALIDATION_POLL_SECONDS))
    run_in_background(stack, run_periodically(JobClaims(postgres, "observations"), [job], poll))


async def build(
    settings: Settings,
    stack: AsyncExitStack,
    overrides: ObservationsOverrides | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
) -> Container:
    overrides = overrides or ObservationsOverrides()
    postgres = overrides.postgres or await open_postgres(stack, settings.database_url, vectors=True)
    # Searches embed one query each: an LRU answers the ones asked again (LORE_EMBEDDING_CACHE_SIZE).
    embedder = overrides.embedder or await settings.open_query_embedder(stack, open_query_embedder)
    store = PostgresObservationStore(postgres)
    await check_dimension(store, embedder)
    clock = overrides.clock or SystemClock()
    metrics = overrides.metrics or ServiceMetrics()
    register_cache_metrics(metrics.registry, embedder)
    if settings.revalidation_interval_seconds > 0:
        start_revalidation(settings, stack, postgres, store, clock, metrics)
    return Container(
        settings=settings,
        postgres=postgres,
        embedder=embedder,
        store=store,
        archive=PostgresObservationArchive(postgres),
        engagement=PostgresEngagementStore(postgres),
        engagement_archive=PostgresEngagementArchive(postgres),
        clock=clock,
        page_tokens=page_tokens_for(settings),
        tracer_provider=tracer_provider,
        checks={"postgres": lambda: ping_postgres(postgres)},
        metrics=metrics,
    )
