"""The Postgres access log, as the memory service's own (non-owner) role sees it."""

import uuid
from datetime import UTC, datetime

import pytest
from lore_runtime.stores import open_postgres
from memory_svc.adapters.postgres_access_log import PostgresAccessLog
from memory_svc.usecases.memory_ports import Access


@pytest.fixture
async def access_log(migrated_pg):
    from contextlib import AsyncExitStack

    async with AsyncExitStack() as stack:
        yield PostgresAccessLog(await open_postgres(stack, migrated_pg.app_dsn, max_size=2))


def _access(memory_id: str, *, request_id: str = "", user_id: str = "u-1") -> Access:
    return Access(memory_id, user_id, "s-1", "recall", "tester", request_id, datetime.now(UTC))


async def test_accesses_are_recorded_and_counted(access_log, org_id):
    memory_id = str(uuid.uuid4())
    assert await access_log.record(org_id, [_access(memory_id), _access(memory_id)]) == [memory_id, memory_id]
    assert await access_log.count(org_id, memory_id) == 2


async def test_a_replayed_request_records_nothing_twice(access_log, org_id):
    memory_id = str(uuid.uuid4())
    assert await access_log.record(org_id, [_access(memory_id, request_id="r-1")]) == [memory_id]
    assert await access_log.record(org_id, [_access(memory_id, request_id="r-1")]) == []
    assert await access_log.count(org_id, memory_id) == 1


async def test_another_org_neither_sees_nor_erases_the_log(access_log, org_id):
    memory_id = str(uuid.uuid4())
    await access_log.record(org_id, [_access(memory_id)])
    assert await access_log.count("org-other", memory_id) == 0
    assert await access_log.forget("org-other", memory_ids=[memory_id]) == 0
    assert await access_log.count(org_id, memory_id) == 1


async def test_erasure_removes_a_users_accesses(access_log, org_id):
    kept, erased = str(uuid.uuid4()), str(uuid.uuid4())
    await access_log.record(org_id, [_access(kept, user_id="stays"), _access(erased, user_id="leaves")])
    assert await access_log.forget(org_id, user_id="leaves") == 1
    assert await access_log.count(org_id, erased) == 0
    assert await access_log.count(org_id, kept) == 1
