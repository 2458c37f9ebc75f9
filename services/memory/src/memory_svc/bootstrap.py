"""The only wiring of the memory service: stores, use cases and servicers."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import redis.asyncio as redis
from lore_runtime.server import DependencyCheck
from lore_runtime.stores import open_postgres, open_redis, ping_postgres, ping_redis
from opentelemetry.sdk.trace import TracerProvider

from memory_svc.config import Settings


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    redis: redis.Redis
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)


async def build(settings: Settings, stack: AsyncExitStack, **overrides: Any) -> Container:
    postgres = overrides.get("postgres") or await open_postgres(stack, settings.database_url)
    redis_client = overrides.get("redis") or await open_redis(stack, settings.redis_url)
    return Container(
        settings=settings,
        postgres=postgres,
        redis=redis_client,
        tracer_provider=overrides.get("tracer_provider"),
        checks={"postgres": lambda: ping_postgres(postgres), "redis": lambda: ping_redis(redis_client)},
    )
