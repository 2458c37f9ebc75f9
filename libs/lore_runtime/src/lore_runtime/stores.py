"""Connections to the stores a service owns, opened inside the service's exit stack.

Postgres: an asyncpg pool (pgvector's codecs registered where the schema uses vectors);
every tenant query runs in ``tenant_transaction``, which sets ``lore.org_id`` for the
transaction so row-level security policies (``org_id = current_setting('lore.org_id')``)
are a second wall behind the ``WHERE org_id = $1`` every query also carries.
Driver errors that mean "the store is not there" become ``DependencyUnavailable``; a refusal a
schema raises on purpose with SQLSTATE ``LR409`` (its reason as the hint, e.g. an erasure's fence)
becomes ``Conflict``.
Redis: every call has a deadline (``LORE_REDIS_TIMEOUT_SECONDS``, a second by default) and no
retry, so a stalled server fails its callers fast instead of holding them (docs/decisions.md).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager

import asyncpg
import redis.asyncio as redis
from pgvector.asyncpg import register_vector
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from lore_runtime import errors

# What the driver raises when Postgres is not there: no server to connect to (OSError), no answer in
# time, a connection lost mid-call (class 08), a server shutting down, restarting after a crash or
# refusing more connections (57P01-57P03, 53300).
POSTGRES_UNAVAILABLE = (
    OSError,
    asyncio.TimeoutError,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.TooManyConnectionsError,
)
# The driver's own among them: raised anywhere, they can only mean Postgres is down (an OSError or a
# timeout could be any store's, so only an adapter that knows which may translate those).
POSTGRES_DRIVER_UNAVAILABLE = tuple(
    kind for kind in POSTGRES_UNAVAILABLE if issubclass(kind, asyncpg.exceptions.PostgresError)
)


def postgres_unavailable(error: BaseException | None = None) -> errors.DependencyUnavailable:
    """The domain error for Postgres being down: reason POSTGRES_UNAVAILABLE (503 with Retry-After at
    the gateway); the driver's text, addresses included, stays in the message for the log."""
    detail = f": {error}" if error is not None and str(error) else ""
    return errors.DependencyUnavailable(
        f"Postgres is not reachable{detail}", reason="POSTGRES_UNAVAILABLE", metadata={"store": "postgres"}
    )


@asynccontextmanager
async def postgres_calls() -> AsyncIterator[None]:
    """Calls made on a pool outside ``tenant_transaction`` (lookups that no tenant scopes yet, the
    queue's own tables): Postgres being down raised as ``DependencyUnavailable``, never a driver error."""
    try:
        yield
    except POSTGRES_UNAVAILABLE as error:
        raise postgres_unavailable(error) from error


async def open_postgres(
    stack: AsyncExitStack, dsn: str, *, vectors: bool = False, min_size: int = 1, max_size: int = 10
) -> asyncpg.Pool:
    init = register_vector if vectors else None
    try:
        pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, init=init, command_timeout=30)
    except POSTGRES_UNAVAILABLE as error:
        raise postgres_unavailable(error) from error
    stack.push_async_callback(pool.close)
    return pool


# The SQLSTATE a schema raises to refuse a write on purpose (a trigger's rule, not a fault).
REFUSED_SQLSTATE = "LR409"
# A setting's name: letters, digits and underscores, with dots between (``lore.org_id``, ``hnsw.ef_search``).
_SETTING_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def sql_literal(value: str) -> str:
    """``value`` as a SQL string literal, whatever ``standard_conforming_strings`` says: an escape
    string (``E'…'``) with its backslashes and quotes doubled. A NUL, which no Postgres text can
    hold, is refused (ValueError)."""
    if "\x00" in value:
        raise ValueError("a SQL text value cannot contain NUL")
    return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def transaction_opening(org_id: str, settings: Mapping[str, str] | None = None) -> str:
    """The one message that opens a tenant transaction: BEGIN, then ``lore.org_id`` and ``settings``
    set for the transaction only (``set_config(name, value, true)``), the values as literals."""
    named = {"lore.org_id": org_id, **(settings or {})}
    for name in named:
        if not _SETTING_NAME.fullmatch(name):
            raise ValueError(f"not a setting name: {name!r}")
    calls = ", ".join(
        f"set_config({sql_literal(name)}, {sql_literal(str(value))}, true)" for name, value in named.items()
    )
    return f"BEGIN; SELECT {calls}"


@asynccontextmanager
async def tenant_transaction(
    pool: asyncpg.Pool, org_id: str, settings: Mapping[str, str] | None = None
) -> AsyncIterator[asyncpg.Connection]:
    """A transaction whose row-level security is scoped to ``org_id``, with ``settings`` (name:
    value, e.g. ``{"hnsw.ef_search": "80"}``) local to it.

    It opens in one round trip: ``BEGIN`` and every ``set_config`` go as one simple-protocol
    message (``transaction_opening``), not one each; then come its statements, COMMIT and the
    pool's reset on release (which clears every setting and lock: the safety net behind
    ``is_local``). It commits when the block ends and rolls back when it raises (cancellation
    included), as ``connection.transaction()`` would; asyncpg refuses a ``connection.transaction()``
    inside it (a transaction it did not start)."""
    opening = transaction_opening(org_id, settings)
    try:
        async with pool.acquire() as connection:
            try:
                await connection.execute(opening)
                yield connection
            except BaseException:
                if not connection.is_closed() and connection.is_in_transaction():
                    await connection.execute("ROLLBACK")
                raise
            await connection.execute("COMMIT")
    except POSTGRES_UNAVAILABLE as error:
        raise postgres_unavailable(error) from error
    except asyncpg.PostgresError as error:
        if getattr(error, "sqlstate", "") == REFUSED_SQLSTATE:
            raise errors.Conflict(getattr(error, "message", "") or str(error), reason=error.hint or None) from error
        raise


# What redis-py raises when Redis is not there or does not answer in time (its TimeoutError and
# ConnectionError; a plain OSError is not the driver's to name).
REDIS_DRIVER_UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError)


def redis_unavailable(error: BaseException | None = None) -> errors.DependencyUnavailable:
    """The domain error for Redis being down or stalled: reason REDIS_UNAVAILABLE (503, Retry-After)."""
    detail = f": {error}" if error is not None and str(error) else ""
    return errors.DependencyUnavailable(
        f"Redis is not reachable{detail}", reason="REDIS_UNAVAILABLE", metadata={"store": "redis"}
    )


# LORE_REDIS_TIMEOUT_SECONDS' default: Redis answers in well under a millisecond when it answers at all.
REDIS_TIMEOUT_SECONDS = 1.0


async def open_redis(stack: AsyncExitStack, url: str, *, timeout: float = REDIS_TIMEOUT_SECONDS) -> redis.Redis:
    """A Redis client whose every call (connecting included) gives up after ``timeout`` seconds with
    ``redis.TimeoutError``, and is not retried: a stalled Redis costs a caller one deadline, not several."""
    client = redis.Redis.from_url(
        url,
        decode_responses=False,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )
    stack.push_async_callback(client.aclose)
    return client


async def ping_postgres(pool: asyncpg.Pool) -> None:
    await pool.fetchval("SELECT 1")


async def ping_redis(client: redis.Redis) -> None:
    await client.ping()
