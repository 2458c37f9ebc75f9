"""The only wiring of the gateway: its Postgres pool, the authenticator, the rate limiter (Redis),
one channel per service."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import asyncpg
import grpc
from lore_runtime.channels import create_channel
from lore_runtime.stores import open_postgres, open_redis

from gateway_svc.auth import ApiKeyAuthenticator
from gateway_svc.config import Settings
from gateway_svc.rate_limits import NoRateLimiter, RedisRateLimiter, parse_limit, parse_limits


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    authenticator: ApiKeyAuthenticator
    channels: dict[str, grpc.aio.Channel]
    rate_limiter: RedisRateLimiter | NoRateLimiter


async def build(settings: Settings, stack: AsyncExitStack, **overrides: Any) -> Container:
    provider = overrides.get("tracer_provider")
    postgres = overrides.get("postgres") or await open_postgres(stack, settings.database_url, max_size=5)
    channels = {}
    for name, target in settings.upstreams().items():
        channel = create_channel(target, tracer_provider=provider, default_timeout=settings.rpc_timeout_seconds)
        stack.push_async_callback(channel.close)
        channels[name] = channel
    limiter: RedisRateLimiter | NoRateLimiter = NoRateLimiter()
    if settings.redis_url:
        limiter = RedisRateLimiter(
            await open_redis(stack, settings.redis_url),
            parse_limit(settings.rate_limit),
            parse_limits(settings.rate_limits),
        )
    return Container(
        settings=settings,
        postgres=postgres,
        authenticator=overrides.get("authenticator") or ApiKeyAuthenticator(postgres),
        channels=channels,
        rate_limiter=overrides.get("rate_limiter") or limiter,
    )
