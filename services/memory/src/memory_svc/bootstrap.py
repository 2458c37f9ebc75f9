"""The only wiring of the memory service: stores, the embedder, use cases and servicers.

Qdrant: a server through qdrant-client when ``LORE_QDRANT_URL`` is set, else the embedded
engine (qdrant-edge) under ``LORE_DATA_DIR/qdrant``, optimised by a background task — never
on the request path, and by default in a child process over a copy (``edge_maintenance.py``).
One process per embedded store: every other tool goes through this
service's RPCs.

Stored vectors of another embedding model do not stop the service: it starts, logs one warning,
serves reads and refuses vector work with EMBEDDING_MODEL_MISMATCH until ``lore reindex``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

import asyncpg
import redis.asyncio as redis
from lore_embeddings import Embedder, open_query_embedder, register_cache_metrics
from lore_runtime.clock import Clock, SystemClock
from lore_runtime.metrics import ScheduledRunMetrics, ServiceMetrics
from lore_runtime.page_tokens import PageTokens, page_tokens_for
from lore_runtime.scheduled import JobClaims, ScheduledJob, run_in_background, run_periodically
from lore_runtime.server import DependencyCheck
from lore_runtime.stores import open_postgres, open_redis, ping_postgres, ping_redis
from opentelemetry.sdk.trace import TracerProvider
from qdrant_client import AsyncQdrantClient

from memory_svc.adapters.file_flag import FileFlag
from memory_svc.adapters.postgres_access_log import PostgresAccessLog
from memory_svc.adapters.postgres_erased_memories import PostgresErasedMemories
from memory_svc.adapters.postgres_order_generations import PostgresOrderGenerations
from memory_svc.adapters.postgres_subject_fence import PostgresSubjectFence
from memory_svc.adapters.prometheus_metrics import (
    MaintenanceState,
    access_behind_metrics,
    collection_sizes,
    maintenance_metrics,
)
from memory_svc.adapters.qdrant_client_stores import ClientVectorStores
from memory_svc.adapters.qdrant_edge_stores import EdgeVectorStores
from memory_svc.adapters.redis_calls import RedisCalls
from memory_svc.adapters.redis_files import RedisFiles
from memory_svc.adapters.redis_session_leases import RedisSessionLeases
from memory_svc.adapters.redis_working_memory import RedisWorkingMemoryStore
from memory_svc.adapters.timestamp_repair import repair_stored_timestamps
from memory_svc.config import Settings
from memory_svc.usecases.access_behind import AccessWriteBehind
from memory_svc.usecases.episode_ports import EpisodeIndex
from memory_svc.usecases.guarded_stores import VectorState
from memory_svc.usecases.maintenance import run_maintenance
from memory_svc.usecases.maintenance_ports import VectorStores
from memory_svc.usecases.memory_ports import (
    AccessLog,
    ErasedMemories,
    MemoryCatalog,
    MemoryIndex,
    OrderGenerations,
    SubjectFence,
)
from memory_svc.usecases.purge import PurgeSchedule
from memory_svc.usecases.working_memory_ports import SessionLeases, WorkingMemoryStore

log = logging.getLogger(__name__)
# How often a replica checks whether the maintenance job is due (it runs once per interval).
MAINTENANCE_POLL_SECONDS = 300.0
# Beside the embedded stores: a purge was asked for and has not run yet.
PURGE_PENDING_FILE = "purge_pending"


class MemoryItems(MemoryIndex, MemoryCatalog, Protocol):
    """The items collection: searched and written (``MemoryIndex``), paged and maintained (``MemoryCatalog``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryOverrides:
    """What a test puts in place of the real thing; each left None is built from the settings.
    ``index`` and ``episodes`` (the vector collections) go together."""

    postgres: asyncpg.Pool | None = None
    redis: redis.Redis | None = None
    embedder: Embedder | None = None
    index: MemoryItems | None = None
    episodes: EpisodeIndex | None = None
    clock: Clock | None = None
    metrics: ServiceMetrics | None = None
    generations: OrderGenerations | None = None
    access_log: AccessLog | None = None
    working_memory: WorkingMemoryStore | None = None
    leases: SessionLeases | None = None
    erased: ErasedMemories | None = None
    fence: SubjectFence | None = None

    def __post_init__(self) -> None:
        if (self.index is None) != (self.episodes is None):
            raise ValueError("override index and episodes together, or neither")


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    redis: redis.Redis
    embedder: Embedder
    index: MemoryIndex
    catalog: MemoryCatalog
    episodes: EpisodeIndex
    access_log: AccessLog
    working_memory: WorkingMemoryStore
    leases: SessionLeases
    clock: Clock
    generations: OrderGenerations
    erased: ErasedMemories
    fence: SubjectFence
    page_tokens: PageTokens
    access_behind: AccessWriteBehind
    vector_stores: VectorStores | None = None
    vector_state: VectorState = field(default_factory=VectorState)
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)
    metrics: ServiceMetrics = field(default_factory=ServiceMetrics)
    purges: PurgeSchedule | None = None


async def open_vector_stores(
    settings: Settings, stack: AsyncExitStack, embedder: Embedder, maintenance: MaintenanceState | None = None
) -> ClientVectorStores | EdgeVectorStores:
    """The items and episodes collections: on a Qdrant server, else two embedded shards, whose
    background optimisation reports its runs to ``maintenance`` (the metrics page)."""
    maintenance = maintenance or MaintenanceState()
    model = {"embedding_model": embedder.model_name, "dimension": embedder.dimension}
    stores: ClientVectorStores | EdgeVectorStores
    if settings.qdrant_url:
        client = AsyncQdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=10)
        stores = await ClientVectorStores.open(client, owns_client=True, **model)
        stack.push_async_callback(stores.close)
    else:
        stores = await EdgeVectorStores.open(
            Path(settings.data_dir) / "qdrant",
            in_child=settings.optimize_in_child,
            niceness=settings.optimize_niceness,
            **model,
        )
        stack.push_async_callback(stores.close)
        if settings.optimize_in_child:
            run_in_background(stack, _optimize_in_child_periodically(stores, settings, maintenance))
        else:
            interval = settings.optimize_interval_seconds
            run_in_background(stack, _optimize_periodically(stores.shards, interval, maintenance))
    # Times stored before the fixed-width form, rewritten once; a read of the time fields when none is.
    await repair_stored_timestamps(stores.items.store, stores.episodes.store)
    if stores.state.stale:
        error = stores.state.stale[0]
        log.warning(
            "the memory service started with vectors of another embedding model: recall, remember and "
            "episode creation answer EMBEDDING_MODEL_MISMATCH until `lore reindex` re-embeds them; reads work",
            extra={"detail": str(error), **error.metadata},
        )
    return stores


# qdrant-edge 0.9 holds the GIL for a whole optimisation (building HNSW after a bulk write): in the
# service's process it answers nothing meanwhile (15.7 s at 30k new items on this machine); in a
# child only the swap pauses calls. Say so when either is longer than this.
SLOW_OPTIMIZE_SECONDS = 1.0


async def _optimize_in_child_periodically(
    stores: EdgeVectorStores, settings: Settings, maintenance: MaintenanceState
) -> None:
    while True:
        await asyncio.sleep(settings.optimize_interval_seconds)
        async with maintenance.optimising():
            runs = await stores.optimize(niceness=settings.optimize_niceness, observe=maintenance.observe)
        log_optimize_runs(runs)


def log_optimize_runs(runs: list[Any]) -> None:
    """A failed run is an error (the shard stays as it was, the next run retries); a swap that held
    calls longer than ``SLOW_OPTIMIZE_SECONDS`` a warning; a run that changed the shard an info."""
    for run in runs:
        if isinstance(run, Exception):
            log.error("background Qdrant optimisation failed; the shard is unchanged", exc_info=run)
        elif run is not None and run.optimized:
            extra = {
                "shard": run.label,
                "seconds": round(run.seconds, 1),
                "writes_held_seconds": round(run.writes_held_seconds, 3),
                "calls_held_seconds": round(run.calls_held_seconds, 3),
                "journaled": run.journaled,
            }
            slow = run.calls_held_seconds > SLOW_OPTIMIZE_SECONDS
            log.log(
                logging.WARNING if slow else logging.INFO,
                "embedded Qdrant optimised in a child process in %.1f s; swapping it in held calls %.2f s",
                run.seconds,
                run.calls_held_seconds,
                extra=extra,
            )


async def _optimize_periodically(
    shards: Callable[[], tuple[Any, ...]], interval: float, maintenance: MaintenanceState
) -> None:
    while True:
        await asyncio.sleep(interval)
        async with maintenance.optimising("in-process"):
            await optimize_shards(shards())  # the live shards: a reindex may have swapped them


async def optimize_shards(shards: tuple[Any, ...], timer: Callable[[], float] = time.perf_counter) -> None:
    """One background optimisation of every embedded shard; a failure is logged, not raised (the next
    run retries), and one that held the service longer than ``SLOW_OPTIMIZE_SECONDS`` is a warning."""
    for shard in shards:
        began = timer()
        try:
            await shard.optimize()
        except Exception:  # a failed optimisation must not take the service down
            log.exception("background Qdrant optimisation failed")
            continue
        held = timer() - began
        if held > SLOW_OPTIMIZE_SECONDS:
            log.warning(
                "the embedded Qdrant optimisation held the memory service for %.1f s (qdrant-edge keeps "
                "the interpreter while it indexes): calls waited that long; for large data use a Qdrant "
                "server (LORE_QDRANT_URL), see docs/operations.md",
                held,
                extra={"shard": getattr(shard, "label", type(shard).__name__), "seconds": round(held, 1)},
            )


def start_maintenance(
    settings: Settings,
    stack: AsyncExitStack,
    postgres: asyncpg.Pool,
    catalog: MemoryCatalog,
    clock: Clock,
    metrics: ServiceMetrics,
    generations: OrderGenerations,
    episodes: EpisodeIndex,
) -> None:
    """Decay (memories and episodes) + consolidation every ``LORE_MAINTENANCE_INTERVAL_SECONDS``,
    claimed by one replica; each run counted on ``metrics``
    (lore_scheduled_*{scheduled_job="memory_maintenance"})."""

    async def maintain() -> dict[str, Any]:
        return await run_maintenance(
            catalog=catalog,
            clock=clock,
            threshold=settings.consolidation_threshold,
            generations=generations,
            half_lives=settings.half_lives,
            episodes=episodes,
            episode_half_life_days=settings.episode_half_life_days,
        )

    runs = ScheduledRunMetrics(metrics.registry)
    interval = timedelta(seconds=settings.maintenance_interval_seconds)
    job = ScheduledJob("memory_maintenance", interval, runs.counted("memory_maintenance", maintain))
    poll = timedelta(seconds=min(settings.maintenance_interval_seconds, MAINTENANCE_POLL_SECONDS))
    run_in_background(stack, run_periodically(JobClaims(postgres, "memory"), [job], poll))


def start_access_behind(
    settings: Settings,
    stack: AsyncExitStack,
    items: MemoryItems,
    access_log: AccessLog,
    clock: Clock,
    metrics: ServiceMetrics,
) -> AccessWriteBehind:
    """The flusher of the uses recorded behind the answers (usecases/access_behind.py): every
    ``LORE_ACCESS_FLUSH_SECONDS``, and once more at shutdown, after the loop stops and before the
    stores close (the stack unwinds in reverse)."""
    behind = AccessWriteBehind(
        items, items, access_log, clock, capacity=settings.access_buffer_size, interval=settings.access_flush_seconds
    )
    metrics.registry.register(access_behind_metrics(behind.stats))
    stack.push_async_callback(behind.close)
    run_in_background(stack, behind.run_forever())
    return behind


class ObservedCompaction:
    """The embedded stores' compaction (a purge), its steps told to ``maintenance`` as an
    optimisation's are (``lore_memory_optimisation_step``), cleared when it ends."""

    def __init__(self, stores: EdgeVectorStores, maintenance: MaintenanceState) -> None:
        self.stores = stores
        self.maintenance = maintenance

    async def compact(self) -> list[Any]:
        try:
            return await self.stores.compact(observe=self.maintenance.observe)
        finally:
            self.maintenance.step = None


def start_purges(
    settings: Settings,
    stack: AsyncExitStack,
    stores: ClientVectorStores | EdgeVectorStores | None,
    client: redis.Redis,
    maintenance: MaintenanceState | None = None,
) -> PurgeSchedule:
    """Purges of erased data (usecases/purge.py): the deferred ones run in the background; with the
    embedded stores a pending one is kept as a file beside them, so it survives a restart, and their
    compaction is reported to ``maintenance`` while it runs."""
    pending = FileFlag(stores.root / PURGE_PENDING_FILE) if isinstance(stores, EdgeVectorStores) else None
    vector_files: list[Any] = [] if stores is None else [stores]
    if stores is not None and maintenance is not None:
        observed = ObservedCompaction(stores, maintenance) if isinstance(stores, EdgeVectorStores) else stores
        vector_files = [maintenance.compacting(observed)]
    files = [*vector_files, RedisFiles(client)]
    purges = PurgeSchedule(files, pending, delay=settings.erasure_purge_delay_seconds)
    run_in_background(stack, purges.run_forever())
    return purges


async def build(
    settings: Settings,
    stack: AsyncExitStack,
    overrides: MemoryOverrides | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
) -> Container:
    overrides = overrides or MemoryOverrides()
    postgres = overrides.postgres or await open_postgres(stack, settings.database_url)
    redis_client = overrides.redis or await open_redis(
        stack, settings.redis_url, timeout=settings.redis_timeout_seconds
    )
    redis_calls = RedisCalls(settings.redis_timeout_seconds)  # one breaker for both Redis adapters
    # Searches embed one query each: an LRU answers the ones asked again (LORE_EMBEDDING_CACHE_SIZE).
    embedder = overrides.embedder or await settings.open_query_embedder(stack, open_query_embedder)
    stores: ClientVectorStores | EdgeVectorStores | None = None
    maintenance = MaintenanceState()
    if overrides.index is not None and overrides.episodes is not None:
        index, episodes = overrides.index, overrides.episodes
        state = VectorState()
    else:
        stores = await open_vector_stores(settings, stack, embedder, maintenance)
        index, episodes, state = stores.items, stores.episodes, stores.state
    clock = overrides.clock or SystemClock()
    metrics = overrides.metrics or ServiceMetrics()
    register_cache_metrics(metrics.registry, embedder)
    if stores is not None:
        metrics.registry.register(collection_sizes(stores))
    generations = overrides.generations or PostgresOrderGenerations(postgres)
    if settings.maintenance_interval_seconds > 0:
        start_maintenance(settings, stack, postgres, index, clock, metrics, generations, episodes)
    purges = start_purges(settings, stack, stores, redis_client, maintenance)
    if isinstance(stores, EdgeVectorStores):
        metrics.registry.register(maintenance_metrics(maintenance, stores, lambda: purges.pending))
    access_log = overrides.access_log or PostgresAccessLog(postgres)
    behind = start_access_behind(settings, stack, index, access_log, clock, metrics)
    return Container(
        settings=settings,
        postgres=postgres,
        redis=redis_client,
        embedder=embedder,
        index=index,
        catalog=index,
        episodes=episodes,
        access_log=access_log,
        working_memory=overrides.working_memory or RedisWorkingMemoryStore(redis_client, calls=redis_calls),
        leases=overrides.leases or RedisSessionLeases(redis_client, clock=clock, calls=redis_calls),
        clock=clock,
        generations=generations,
        erased=overrides.erased or PostgresErasedMemories(postgres),
        fence=overrides.fence or PostgresSubjectFence(postgres),
        page_tokens=page_tokens_for(settings),
        vector_stores=stores,
        vector_state=state,
        tracer_provider=tracer_provider,
        checks={"postgres": lambda: ping_postgres(postgres), "redis": lambda: ping_redis(redis_client)},
        metrics=metrics,
        purges=purges,
        access_behind=behind,
    )
