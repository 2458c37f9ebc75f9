"""The API-key cache (adapters/postgres_api_keys.py) on a fake clock: a resolution is reused until it
lapses, a full cache drops its least recently used key rather than every key, and last_used_at is
written once per touch interval."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator

import pytest
from gateway_svc.adapters.postgres_api_keys import ApiKeyAuthenticator
from gateway_svc.domain.credentials import digest
from lore_runtime import errors

from tests.fakes import FixedClock


class Connection:
    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    async def execute(self, query: str, *args: object) -> str:
        if "UPDATE gateway.api_keys" in query:
            self.pool.touched.append(str(args[0]))
        return ""

    def is_closed(self) -> bool:
        return False

    def is_in_transaction(self) -> bool:
        return True


class Pool:
    """What the authenticator asks of asyncpg: one lookup by digest, one transaction to touch a key."""

    def __init__(self, *tokens: str) -> None:
        self.keys = {digest(token): uuid.uuid4() for token in tokens}
        self.lookups: list[bytes] = []
        self.touched: list[str] = []

    async def fetchrow(self, query: str, key: bytes) -> dict[str, object] | None:
        self.lookups.append(key)
        if key not in self.keys:
            return None
        return {"id": self.keys[key], "org_id": "org-a", "principal": "svc", "scopes": ["admin"], "user_id": None}

    @contextlib.asynccontextmanager
    async def acquire(self) -> AsyncIterator[Connection]:
        yield Connection(self)


def authenticator(pool: Pool, clock: FixedClock, **options: float) -> ApiKeyAuthenticator:
    return ApiKeyAuthenticator(pool, clock=clock, **options)  # type: ignore[arg-type]


async def test_a_resolution_is_reused_until_it_lapses_then_looked_up_again() -> None:
    pool, clock = Pool("key-1"), FixedClock()
    keys = authenticator(pool, clock, cache_seconds=5)

    for _ in range(3):
        assert (await keys.verify("key-1")).org_id == "org-a"
    clock.advance(seconds=4.9)
    await keys.verify("key-1")
    assert len(pool.lookups) == 1
    clock.advance(seconds=0.2)
    await keys.verify("key-1")
    assert len(pool.lookups) == 2


async def test_an_unknown_key_is_refused_and_the_refusal_is_cached_too() -> None:
    pool, clock = Pool(), FixedClock()
    keys = authenticator(pool, clock, cache_seconds=5)

    for _ in range(2):
        with pytest.raises(errors.Unauthenticated) as refused:
            await keys.verify("not-a-key")
        assert refused.value.reason == "INVALID_API_KEY"
    assert len(pool.lookups) == 1


async def test_a_full_cache_drops_its_least_recently_used_key_not_every_key() -> None:
    pool, clock = Pool("key-1", "key-2", "key-3"), FixedClock()
    keys = authenticator(pool, clock, cache_seconds=5, cache_size=2)

    for token in ("key-1", "key-2", "key-3", "key-2", "key-3"):
        await keys.verify(token)
    assert pool.lookups == [digest("key-1"), digest("key-2"), digest("key-3")]
    await keys.verify("key-1")
    assert pool.lookups[-1] == digest("key-1") and len(pool.lookups) == 4


async def test_last_used_at_is_written_once_per_touch_interval() -> None:
    pool, clock = Pool("key-1"), FixedClock()
    keys = authenticator(pool, clock, cache_seconds=5, touch_interval_seconds=60)

    await keys.verify("key-1")
    clock.advance(seconds=30)  # the resolution lapsed, the touch has not
    await keys.verify("key-1")
    assert len(pool.touched) == 1 and len(pool.lookups) == 2
    clock.advance(seconds=31)
    await keys.verify("key-1")
    assert len(pool.touched) == 2
