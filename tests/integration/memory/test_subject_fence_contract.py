"""One contract for erasure's fence in the memory service: the fake of tests/fakes.py and the
Postgres adapter (migration 0006_subject_fences.sql) alike, so use-case tests on the fake mean
what they say."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest
from lore_runtime.errors import Conflict
from lore_runtime.stores import open_postgres
from memory_svc.adapters.postgres_subject_fence import PostgresSubjectFence
from memory_svc.domain.model import Scope

from tests.fakes import InMemorySubjectFence

SAM = Scope(user_id="sam", agent_id="aria")
SAM_ELSEWHERE = Scope(user_id="sam", agent_id="bo", team_id="ops")
KIM = Scope(user_id="kim", agent_id="aria")


@pytest.fixture(params=["fake", "postgres"])
async def fence(request: pytest.FixtureRequest, migrated_pg) -> AsyncIterator[object]:
    if request.param == "fake":
        yield InMemorySubjectFence()
        return
    async with AsyncExitStack() as stack:
        yield PostgresSubjectFence(await open_postgres(stack, migrated_pg.app_dsn, max_size=4))


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


async def refused(fence, org: str, scopes) -> Conflict:
    with pytest.raises(Conflict) as caught:
        async with fence.writing(org, scopes):
            pytest.fail("a fenced scope was written")
    return caught.value


async def test_a_fence_refuses_writes_of_every_scope_it_covers_until_lifted(fence) -> None:
    org, other_org = new_org(), new_org()
    await fence.fence(org, "e-1", Scope(user_id="sam"))

    for scopes in ([SAM], [SAM_ELSEWHERE], [KIM, SAM]):
        error = await refused(fence, org, scopes)
        assert error.reason == "SUBJECT_ERASING" and "being erased" in str(error)
    async with fence.writing(org, [KIM]):
        pass
    async with fence.writing(other_org, [SAM]):
        pass

    await fence.lift(org, "e-1")
    async with fence.writing(org, [SAM]):
        pass


async def test_fencing_and_lifting_are_idempotent_per_erasure(fence) -> None:
    org = new_org()
    await fence.fence(org, "e-1", Scope(user_id="sam"))
    await fence.fence(org, "e-1", Scope(user_id="sam"))
    await fence.fence(org, "e-2", Scope(agent_id="aria"))

    await fence.lift(org, "e-1")
    assert (await refused(fence, org, [SAM])).reason == "SUBJECT_ERASING"  # e-2 still covers aria
    await fence.lift(org, "e-2")
    await fence.lift(org, "e-2")
    await fence.lift(org, "never-fenced")
    async with fence.writing(org, [SAM]):
        pass


async def test_a_fence_waits_for_the_writes_of_its_scopes_under_way(fence) -> None:
    org = new_org()
    inside, done = asyncio.Event(), asyncio.Event()
    order: list[str] = []

    async def write() -> None:
        async with fence.writing(org, [SAM]):
            inside.set()
            await done.wait()
            order.append("written")

    async def fence_sam() -> None:
        await fence.fence(org, "e-1", Scope(user_id="sam"))
        order.append("fenced")

    writer = asyncio.create_task(write())
    await asyncio.wait_for(inside.wait(), timeout=10)
    fencing = asyncio.create_task(fence_sam())
    for _ in range(3):  # another user's writes are not held up, and give the fence time to (wrongly) pass
        async with fence.writing(org, [KIM]):
            pass
    assert not fencing.done()

    done.set()
    await asyncio.wait_for(asyncio.gather(writer, fencing), timeout=10)
    assert order == ["written", "fenced"]
    assert (await refused(fence, org, [SAM])).reason == "SUBJECT_ERASING"
