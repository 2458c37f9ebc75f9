"""The only wiring of the memory service: stores, the embedder, use cases and servicers.

Qdrant: a server through qdrant-client when ``LORE_QDRANT_URL`` is set, else the embedded
engine (qdrant-edge) under ``LORE_DATA_DIR/qdrant``, optimised by a background task — never
on the request path. One process per embedded store: every other tool goes through this
service's RPCs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import redis.asyncio as redis
from lore_embeddings import Embedder, create_embedder
from lore_runtime.server import DependencyCheck
from lore_runtime.stores import open_postgres, open_redis, ping_postgres, ping_redis
from opentelemetry.sdk.trace import TracerProvider

from memory_svc.adapters.qdrant_client_index import QdrantClientMemoryIndex
from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
from memory_svc.adapters.system_clock import SystemClock
from memory_svc.config import Settings
from memory_svc.usecases.ports import Clock, MemoryIndex

log = logging.getLogger(__name__)


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    redis: redis.Redis
    embedder: Embedder
    index: MemoryIndex
    clock: Clock
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)


async def open_embedder(settings: Settings, stack: AsyncExitStack) -> Embedder:
    embedder = await asyncio.to_thread(
        create_embedder, settings.embeddings_base_url, settings.embeddings_model, settings.embeddings_api_key
    )
    stack.push_async_callback(embedder.aclose)
    return embedder


async def open_index(settings: Settings, stack: AsyncExitStack, embedder: Embedder) -> MemoryIndex:
    if settings.qdrant_url:
        index = await QdrantClientMemoryIndex.connect(
            settings.qdrant_url,
            settings.qdrant_api_key,
            embedding_model=embedder.model_name,
            dimension=embedder.dimension,
        )
        stack.push_async_callback(index.close)
        return index
    edge = await QdrantEdgeMemoryIndex.open(
        Path(settings.data_dir) / "qdrant", embedding_model=embedder.model_name, dimension=embedder.dimension
    )
    stack.push_async_callback(edge.close)
    task = asyncio.create_task(_optimize_periodically(edge, settings.optimize_interval_seconds))
    stack.push_async_callback(_cancel, task)
    return edge


async def _optimize_periodically(index: QdrantEdgeMemoryIndex, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            await index.optimize()
        except Exception:  # a failed optimisation must not take the service down; the next run retries
            log.exception("background Qdrant optimisation failed")


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def build(settings: Settings, stack: AsyncExitStack, **overrides: Any) -> Container:
    postgres = overrides.get("postgres") or await open_postgres(stack, settings.database_url)
    redis_client = overrides.get("redis") or await open_redis(stack, settings.redis_url)
    embedder = overrides.get("embedder") or await open_embedder(settings, stack)
    index = overrides.get("index") or await open_index(settings, stack, embedder)
    return Container(
        settings=settings,
        postgres=postgres,
        redis=redis_client,
        embedder=embedder,
        index=index,
        clock=overrides.get("clock") or SystemClock(),
        tracer_provider=overrides.get("tracer_provider"),
        checks={"postgres": lambda: ping_postgres(postgres), "redis": lambda: ping_redis(redis_client)},
    )
