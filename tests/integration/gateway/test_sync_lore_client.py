"""``lore_client.SyncLoreClient`` against the gateway on a real port, on real stores: memories,
search, a session's turns, observations, paging, and errors that are the async client's own.

The gateway runs on the test's event loop (uvicorn, as ``served_gateway`` starts it), so the sync
client runs in a worker thread — as a blocking caller would, beside a server it does not share a
loop with."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from lore_client import LoreApiError, LoreClient, NewEvidence, NewMemory, SyncLoreClient

from tests.integration.gateway.conftest import _create_key
from tests.integration.gateway.test_lore_client import served_gateway  # noqa: F401 - a fixture

T = TypeVar("T")


@pytest.fixture
async def url_and_key(served_gateway, migrated_pg, org_id):  # noqa: F811 - the fixture imported above
    url, _ = served_gateway
    return url, await _create_key(migrated_pg.owner_dsn, org_id)


async def blocking(url_and_key: tuple[str, str], work: Callable[[SyncLoreClient], T]) -> T:
    """``work`` with a sync client of the gateway, in a thread, so the gateway's loop keeps serving."""

    def run() -> T:
        with SyncLoreClient(*url_and_key, timeout=30) as lore:
            return work(lore)

    return await asyncio.to_thread(run)


async def test_memories_are_remembered_found_updated_and_forgotten(url_and_key):
    user = f"u-rosa-{uuid.uuid4().hex[:8]}"

    def work(lore: SyncLoreClient) -> None:
        [stored] = lore.remember(
            NewMemory(content="Rosa repaints her bicycle bright yellow every spring.", memory_type="fact"),
            scope=user,
        )
        assert stored.memory_type == "MEMORY_TYPE_FACT" and stored.scope.user_id == user
        hits = lore.search("What colour is Rosa's bicycle?", user, k=3)
        assert hits[0].memory.id == stored.id and hits[0].score > 0
        updated = lore.update_memory(stored.id, importance=0.8)
        assert updated.importance == pytest.approx(0.8)
        assert [m.id for m in lore.list_memories(user).items] == [stored.id]
        lore.forget_memory(stored.id)
        assert lore.get_memory(stored.id).status == "MEMORY_STATUS_ARCHIVED"

    await blocking(url_and_key, work)


async def test_a_session_takes_turns_and_lists_them(url_and_key):
    lines = ["I started learning the cello last month.", "Which etudes suit a beginner on the cello?"]

    def work(lore: SyncLoreClient) -> None:
        session = lore.start_session({"userId": "u-cello", "agentId": "aria"})
        results = [lore.process_turn(session.id, line, turn_idempotency_key=f"c-{n}") for n, line in enumerate(lines)]
        assert [result.turn.sequence for result in results] == [1, 2]
        assert results[1].context.manifest is not None
        assert [turn.content for turn in lore.list_turns(session.id)] == lines
        assert [turn.content for turn in lore.iter_turns(session.id, page_size=1)] == lines
        assert lore.get_session(session.id).turn_count == 2

    await blocking(url_and_key, work)


async def test_an_observation_is_created_supported_and_found(url_and_key):
    belief = {"kind": "operator_preference", "subject_id": "rosa", "slot": "editor", "summary": "Rosa writes in Vim"}

    def work(lore: SyncLoreClient) -> None:
        created = lore.observe("aria", **belief, evidence=[NewEvidence(source_id="turn-5")])
        supported = lore.observe("aria", **belief, evidence=[NewEvidence(source_id="turn-6")])
        assert (created.outcome, supported.outcome) == ("OBSERVE_OUTCOME_CREATED", "OBSERVE_OUTCOME_SUPPORTED")
        assert supported.observation.id == created.observation.id
        page = lore.query_observations(agent_id="aria", subject_id="rosa", kind="operator_preference")
        assert [o.id for o in page] == [created.observation.id]
        found = lore.search_observations("Which editor does Rosa write in?", agent_id="aria")
        assert created.observation.id in {hit.observation.id for hit in found}
        assert [o.id for o in lore.observation_history(created.observation.id)] == [created.observation.id]

    await blocking(url_and_key, work)


async def test_the_iterators_follow_next_page_tokens_across_pages(url_and_key):
    user = f"u-pages-{uuid.uuid4().hex[:8]}"

    def work(lore: SyncLoreClient) -> None:
        stored = lore.remember(
            [NewMemory(content=f"Orchard note {n}: the pears ripen late.") for n in range(7)], scope=user
        )
        sessions = [lore.start_session(user) for _ in range(3)]
        first_page = lore.list_memories(user, page_size=3)
        assert len(first_page) == 3 and first_page.next_page_token
        assert sorted(m.id for m in lore.iter_memories(user, page_size=3)) == sorted(m.id for m in stored)
        assert sorted(s.id for s in lore.iter_sessions(user, page_size=2)) == sorted(s.id for s in sessions)

    await blocking(url_and_key, work)


def _fields(error: LoreApiError) -> tuple[object, ...]:
    return error.status, error.code, error.reason, error.field, error.message


async def test_a_404_and_a_400_raise_the_same_lore_api_error_as_the_async_client(url_and_key):
    missing_id = str(uuid.uuid4())
    failures: list[Callable[[Any], Any]] = [
        lambda lore: lore.get_memory(missing_id),
        lambda lore: lore.search("anything", "u-1", k=1000),
        lambda lore: lore.remember(NewMemory(content="x", memory_type="no-such-type"), scope="u-1"),
    ]

    def work(lore: SyncLoreClient) -> list[LoreApiError]:
        raised = []
        for fail in failures:
            with pytest.raises(LoreApiError) as error:
                fail(lore)
            raised.append(error.value)
        return raised

    from_sync = await blocking(url_and_key, work)
    from_async = []
    async with LoreClient(*url_and_key, timeout=30) as lore:
        for fail in failures:
            with pytest.raises(LoreApiError) as error:
                await fail(lore)
            from_async.append(error.value)

    assert [_fields(e) for e in from_sync] == [_fields(e) for e in from_async]
    assert [(e.status, e.code) for e in from_sync] == [(404, "NOT_FOUND")] + [(400, "INVALID_ARGUMENT")] * 2
    assert from_sync[1].field == "k" and all(e.request_id for e in from_sync)
