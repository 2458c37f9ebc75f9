"""One contract for the salience-order generations and the erased-id ledger: the fakes of
tests/fakes.py and the Postgres adapters, so use-case tests on the fakes mean what they say."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest
from lore_runtime.stores import open_postgres
from memory_svc.adapters.postgres_erased_memories import PostgresErasedMemories
from memory_svc.adapters.postgres_order_generations import PostgresOrderGenerations

from tests.fakes import InMemoryErasedMemories, InMemoryOrderGenerations


@pytest.fixture(params=["fake", "postgres"])
async def ledgers(request: pytest.FixtureRequest, migrated_pg) -> AsyncIterator[tuple[object, object]]:
    if request.param == "fake":
        yield InMemoryOrderGenerations(), InMemoryErasedMemories()
        return
    async with AsyncExitStack() as stack:
        pool = await open_postgres(stack, migrated_pg.app_dsn, max_size=2)
        yield PostgresOrderGenerations(pool), PostgresErasedMemories(pool)


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


async def test_a_generation_starts_at_zero_and_advances_per_org(ledgers) -> None:
    generations, _ = ledgers
    org, other = new_org(), new_org()
    assert await generations.salience(org) == 0
    assert await generations.advance_salience(org) == 1
    assert await generations.advance_salience(org) == 2
    assert await generations.salience(org) == 2
    assert await generations.salience(other) == 0


async def test_erased_ids_are_kept_per_org_once_and_case_insensitively(ledgers) -> None:
    _, erased = ledgers
    org, other = new_org(), new_org()
    gone, kept = str(uuid.uuid4()), str(uuid.uuid4())
    await erased.record(org, [gone, gone.upper()])
    await erased.record(org, [gone])  # a replayed erasure
    await erased.record(org, [])
    assert await erased.erased(org, [gone, kept]) == {gone}
    assert await erased.erased(org, [gone.upper()]) == {gone}
    assert await erased.erased(other, [gone]) == set()
    assert await erased.erased(org, []) == set()
