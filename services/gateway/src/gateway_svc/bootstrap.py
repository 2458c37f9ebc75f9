"""The only wiring of the gateway: its Postgres pool (API keys, idempotency records), the
authenticator, the rate limiter and the failed-authentication counter (Redis), one channel per service."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass

import asyncpg
import grpc
from lore_runtime.breaker import Breaker
from lore_runtime.channels import create_channel
from lore_runtime.clock import Clock, SystemClock
from lore_runtime.stores import open_postgres, open_redis
from opentelemetry.sdk.trace import TracerProvider

from gateway_svc.adapters.grpc_upstream_names import UpstreamNameInterceptor
from gateway_svc.adapters.grpc_upstream_timing import UpstreamTimingInterceptor
from gateway_svc.adapters.postgres_api_keys import ApiKeyAuthenticator
from gateway_svc.adapters.postgres_idempotency import PostgresIdempotencyStore
from gateway_svc.adapters.redis_auth_failures import AuthFailureLimiter
from gateway_svc.adapters.redis_rate_limits import NoRateLimiter, RedisRateLimiter
from gateway_svc.api.auth.auth import Authenticator
from gateway_svc.api.auth.jwt_verifier import JwtVerifier, rs256_public_keys
from gateway_svc.config import Settings
from gateway_svc.domain.rate_limits import parse_limit, parse_limits
from gateway_svc.usecases.ports import AuthFailureCounter, IdempotencyStore, RateLimiter


@dataclass(frozen=True, slots=True, kw_only=True)
class GatewayOverrides:
    """What a test puts in place of the real thing; each left None is built from the settings."""

    postgres: asyncpg.Pool | None = None
    authenticator: Authenticator | None = None
    rate_limiter: RateLimiter | None = None
    clock: Clock | None = None  # what the API-key cache and the failed-authentication memory age by


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    authenticator: Authenticator
    channels: dict[str, grpc.aio.Channel]
    rate_limiter: RateLimiter
    auth_failures: AuthFailureCounter
    idempotency: IdempotencyStore


async def build(
    settings: Settings,
    stack: AsyncExitStack,
    overrides: GatewayOverrides | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
) -> Container:
    overrides = overrides or GatewayOverrides()
    clock = overrides.clock or SystemClock()
    postgres = overrides.postgres or await open_postgres(stack, settings.database_url, max_size=5)
    channels = {}
    for name, target in settings.upstreams().items():
        channel = create_channel(
            target,
            tracer_provider=tracer_provider,
            default_timeout=settings.rpc_timeout_seconds,
            interceptors=[UpstreamNameInterceptor(name), UpstreamTimingInterceptor()],
            tls=settings.mutual_tls,
            token=settings.service_tokens,
        )
        stack.push_async_callback(channel.close)
        channels[name] = channel
    limiter: RateLimiter = NoRateLimiter()
    redis_client = (
        await open_redis(stack, settings.redis_url, timeout=settings.redis_timeout_seconds)
        if settings.redis_url
        else None
    )
    if redis_client is not None:
        limiter = RedisRateLimiter(
            redis_client,
            parse_limit(settings.rate_limit),
            parse_limits(settings.rate_limits),
            breaker=Breaker(cooldown=settings.redis_timeout_seconds),
        )
    return Container(
        settings=settings,
        postgres=postgres,
        authenticator=overrides.authenticator or _authenticator(settings, postgres, clock),
        channels=channels,
        rate_limiter=overrides.rate_limiter or limiter,
        auth_failures=AuthFailureLimiter(
            redis_client,
            parse_limit(settings.auth_failure_limit),
            breaker=Breaker(cooldown=settings.redis_timeout_seconds),
            clock=clock,
        ),
        idempotency=idempotency_store(settings, postgres),
    )


def idempotency_store(settings: Settings, postgres: asyncpg.Pool) -> PostgresIdempotencyStore:
    """Records kept ``LORE_IDEMPOTENCY_TTL_SECONDS``; one still in progress after four RPC deadlines
    is taken as abandoned (api/http/idempotency.py)."""
    return PostgresIdempotencyStore(
        postgres,
        ttl_seconds=settings.idempotency_ttl_seconds,
        in_progress_seconds=4 * settings.rpc_timeout_seconds,
    )


def _authenticator(settings: Settings, postgres: asyncpg.Pool, clock: Clock) -> Authenticator:
    verifier = None
    if settings.jwt_enabled:
        verifier = JwtVerifier(
            audience=settings.jwt_audience or "",
            hs256_secret=settings.jwt_hs256_secret.get_secret_value() if settings.jwt_hs256_secret else None,
            rs256_keys=rs256_public_keys(settings.jwt_public_keys) if settings.jwt_public_keys else (),
            issuer=settings.jwt_issuer,
            org_claim=settings.jwt_org_claim,
            user_claim=settings.jwt_user_claim,
            leeway_seconds=settings.jwt_leeway_seconds,
        )
    api_keys = ApiKeyAuthenticator(postgres, clock=clock, cache_seconds=settings.api_key_cache_seconds)
    return Authenticator(api_keys, verifier)
