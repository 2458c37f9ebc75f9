"""Managing memories through real stubs: get, list, update, forget, erase (items, episodes and
working memory), record access — and every attempt to reach another org's memories fails as if
they did not exist."""

from __future__ import annotations

import uuid

import grpc
import pytest
from google.protobuf import field_mask_pb2, timestamp_pb2
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import episode_service_pb2 as epb
from lore.memory.v1 import episode_service_pb2_grpc, memory_service_pb2_grpc, working_memory_service_pb2_grpc
from lore.memory.v1 import memory_service_pb2 as pb
from lore.memory.v1 import working_memory_service_pb2 as wpb

from tests.polling import eventually, holds_for


def _tenant(org_id: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org_id), ("x-lore-principal", "tester"))


@pytest.fixture
def stub(services) -> memory_service_pb2_grpc.MemoryServiceStub:
    return memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)


@pytest.fixture
def episodes(services) -> episode_service_pb2_grpc.EpisodeServiceStub:
    return episode_service_pb2_grpc.EpisodeServiceStub(services["memory"].channel)


@pytest.fixture
def working(services) -> working_memory_service_pb2_grpc.WorkingMemoryServiceStub:
    return working_memory_service_pb2_grpc.WorkingMemoryServiceStub(services["memory"].channel)


async def _access_count(stub, org_id: str, memory_id: str, expected: int) -> bool:
    found = await stub.GetMemory(pb.GetMemoryRequest(id=memory_id), metadata=_tenant(org_id))
    return found.memory.access_count == expected


async def _remember(stub, org_id: str, user: str, *contents: str) -> list[pb.Memory]:
    response = await stub.Remember(
        pb.RememberRequest(
            memories=[
                pb.MemoryInput(content=content, memory_type=pb.MEMORY_TYPE_FACT, scope=scope_pb2.Scope(user_id=user))
                for content in contents
            ]
        ),
        metadata=_tenant(org_id),
    )
    return list(response.memories)


async def test_get_update_and_forget_a_memory(stub, org_id):
    (memory,) = await _remember(stub, org_id, "u-1", "Sam drinks green tea every morning.")
    got = await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
    assert got.memory.content == memory.content

    update = pb.UpdateMemoryRequest(
        memory=pb.Memory(id=memory.id, content="Sam switched to black coffee.", importance=0.9),
        update_mask=field_mask_pb2.FieldMask(paths=["content", "importance"]),
    )
    updated = (await stub.UpdateMemory(update, metadata=_tenant(org_id))).memory
    assert (updated.content, updated.importance) == ("Sam switched to black coffee.", 0.9)
    found = await stub.Recall(
        pb.RecallRequest(query="coffee", scope=scope_pb2.Scope(user_id="u-1")), metadata=_tenant(org_id)
    )
    assert found.results[0].memory.id == memory.id  # re-embedded and re-indexed under the new content

    await stub.ForgetMemory(pb.ForgetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
    archived = await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
    assert archived.memory.status == pb.MEMORY_STATUS_ARCHIVED
    gone = await stub.Recall(
        pb.RecallRequest(query="coffee", scope=scope_pb2.Scope(user_id="u-1")), metadata=_tenant(org_id)
    )
    assert [result.memory.id for result in gone.results] == []


async def test_list_pages_newest_first_without_gaps(stub, org_id):
    user = f"u-{uuid.uuid4().hex[:6]}"
    written = []
    for n in range(5):
        written += await _remember(stub, org_id, user, f"Fact number {n}.")
    seen, token = [], ""
    while True:
        page = await stub.ListMemories(
            pb.ListMemoriesRequest(scope=scope_pb2.Scope(user_id=user), page_size=2, page_token=token),
            metadata=_tenant(org_id),
        )
        seen += [memory.id for memory in page.memories]
        token = page.next_page_token
        if not token:
            break
    assert seen == [memory.id for memory in reversed(written)]
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ListMemories(pb.ListMemoriesRequest(page_token="garbage!"), metadata=_tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT


async def test_recall_records_access_and_revives_salience(stub, org_id):
    (memory,) = await _remember(stub, org_id, "u-2", "The project deadline is in March.")
    scope = scope_pb2.Scope(user_id="u-2")
    await stub.Recall(pb.RecallRequest(query="deadline", scope=scope, record_access=False), metadata=_tenant(org_id))
    # Two flush intervals: a Recall told not to record writes nothing behind it either.
    await holds_for(lambda: _access_count(stub, org_id, memory.id, 0), 0.6, "no use recorded")
    untouched = await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
    assert untouched.memory.access_count == 0
    await stub.Recall(pb.RecallRequest(query="deadline", scope=scope), metadata=_tenant(org_id))
    recorded = await stub.RecordAccess(
        pb.RecordAccessRequest(memory_ids=[memory.id], reason="assembled_context", request_id="r-1"),
        metadata=_tenant(org_id),
    )
    replayed = await stub.RecordAccess(
        pb.RecordAccessRequest(memory_ids=[memory.id], reason="assembled_context", request_id="r-1"),
        metadata=_tenant(org_id),
    )
    assert (recorded.recorded, replayed.recorded) == (1, 0)

    async def counted() -> pb.Memory | None:
        # The counters are written behind the answers, within LORE_ACCESS_FLUSH_SECONDS.
        found = (await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))).memory
        return found if found.access_count >= 2 else None

    accessed = await eventually(counted, timeout=10, what="the two uses were not counted")
    await holds_for(lambda: _access_count(stub, org_id, memory.id, 2), 0.6, "two uses, nothing else arriving")
    again = await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
    assert accessed.access_count == again.memory.access_count == 2
    assert again.memory.current_salience == pytest.approx(1.2)


async def test_an_overlong_access_request_id_is_invalid_argument_naming_it(stub, org_id):
    (memory,) = await _remember(stub, org_id, "u-2", "The office closes at six.")

    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.RecordAccess(
            pb.RecordAccessRequest(memory_ids=[memory.id], request_id="r" * 257), metadata=_tenant(org_id)
        )

    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id" in (raised.value.details() or "")
    untouched = await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
    assert untouched.memory.access_count == 0, "nothing was recorded"


async def _episode(episodes, org_id: str, user: str, summary: str) -> str:
    ended = timestamp_pb2.Timestamp(seconds=1_767_225_600)  # 2026-01-01
    episode = epb.Episode(
        conversation_id=f"conv-{uuid.uuid4().hex[:8]}",
        scope=scope_pb2.Scope(user_id=user),
        summary=summary,
        started_at=timestamp_pb2.Timestamp(seconds=ended.seconds - 600),
        ended_at=ended,
        open_threads=[epb.OpenThread(topic="visa", status=epb.THREAD_STATUS_OPEN)],
    )
    created = await episodes.CreateEpisode(epb.CreateEpisodeRequest(episode=episode), metadata=_tenant(org_id))
    return created.episode.id


async def _episodes_of(episodes, org_id: str, user: str) -> list[str]:
    listed = await episodes.ListEpisodes(
        epb.ListEpisodesRequest(scope=scope_pb2.Scope(user_id=user)), metadata=_tenant(org_id)
    )
    return [episode.id for episode in listed.episodes]


async def _start_session(working, org_id: str, session_id: str, content: str) -> None:
    turn = turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content=content)
    await working.AppendTurn(wpb.AppendTurnRequest(session_id=session_id, turn=turn), metadata=_tenant(org_id))


async def _turns_of(working, org_id: str, session_id: str) -> list[str]:
    got = await working.GetWorkingMemory(wpb.GetWorkingMemoryRequest(session_id=session_id), metadata=_tenant(org_id))
    return [turn.content for turn in got.working_memory.recent_turns]


async def test_forget_subject_erases_only_that_subject(stub, episodes, working, org_id):
    other_org = f"org-{uuid.uuid4().hex[:12]}"
    leaving = await _remember(stub, org_id, "leaving", "I live at 12 Elm Street.", "My sister is called Ana.")
    staying = await _remember(stub, org_id, "staying", "I live at 3 Oak Road.")
    elsewhere = await _remember(stub, other_org, "leaving", "I live at 12 Elm Street.")
    gone_episodes = [
        await _episode(episodes, org_id, "leaving", "We planned the move to Lisbon."),
        await _episode(episodes, org_id, "leaving", "We compared visa options."),
    ]
    staying_episode = await _episode(episodes, org_id, "staying", "We talked about Oak Road.")
    elsewhere_episode = await _episode(episodes, other_org, "leaving", "Another org's Lisbon plans.")
    sessions = [f"s-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    for session_id in sessions:
        await _start_session(working, org_id, session_id, "I live at 12 Elm Street.")
        await _start_session(working, other_org, session_id, "Another org's session of the same id.")

    erased = await stub.ForgetSubject(
        pb.ForgetSubjectRequest(
            subject=scope_pb2.Scope(user_id="leaving"), session_ids=[sessions[0], sessions[1], sessions[0]]
        ),
        metadata=_tenant(org_id),
    )

    assert (erased.memories_deleted, erased.episodes_deleted, erased.working_memories_cleared) == (2, 2, 2)
    for memory in leaving:
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
        assert raised.value.code() is grpc.StatusCode.NOT_FOUND
    assert await _episodes_of(episodes, org_id, "leaving") == []
    for episode_id in gone_episodes:
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await episodes.GetEpisode(epb.GetEpisodeRequest(id=episode_id), metadata=_tenant(org_id))
        assert raised.value.code() is grpc.StatusCode.NOT_FOUND
    assert await _turns_of(working, org_id, sessions[0]) == await _turns_of(working, org_id, sessions[1]) == []
    # Another user of the org, and the same user and session ids in another org, keep everything.
    assert (await stub.GetMemory(pb.GetMemoryRequest(id=staying[0].id), metadata=_tenant(org_id))).memory.id
    assert (await stub.GetMemory(pb.GetMemoryRequest(id=elsewhere[0].id), metadata=_tenant(other_org))).memory.id
    assert await _episodes_of(episodes, org_id, "staying") == [staying_episode]
    assert await _episodes_of(episodes, other_org, "leaving") == [elsewhere_episode]
    assert await _turns_of(working, org_id, sessions[2]) == ["I live at 12 Elm Street."]
    for session_id in sessions:
        assert await _turns_of(working, other_org, session_id) == ["Another org's session of the same id."]

    again = await stub.ForgetSubject(
        pb.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id="leaving"), session_ids=sessions[:2]),
        metadata=_tenant(org_id),
    )
    assert (again.memories_deleted, again.episodes_deleted, again.working_memories_cleared) == (0, 0, 2)


@pytest.mark.parametrize(
    ("session_ids", "field"),
    [
        ([""], "session_ids[0]"),
        (["s-ok", " padded "], "session_ids[1]"),
        (["s-ok", "x" * 129], "session_ids[1]"),
        ([f"s-{n}" for n in range(10_001)], "session_ids"),
    ],
)
async def test_forget_subject_refuses_bad_session_ids_before_erasing_anything(
    stub, episodes, org_id, session_ids, field
):
    user = f"u-{uuid.uuid4().hex[:6]}"
    (memory,) = await _remember(stub, org_id, user, "I live at 12 Elm Street.")
    episode_id = await _episode(episodes, org_id, user, "We planned the move to Lisbon.")

    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ForgetSubject(
            pb.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id=user), session_ids=session_ids),
            metadata=_tenant(org_id),
        )

    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert field in raised.value.details()
    assert (await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))).memory.id
    assert await _episodes_of(episodes, org_id, user) == [episode_id]


async def test_forget_subject_refuses_an_empty_subject(stub, org_id):
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ForgetSubject(pb.ForgetSubjectRequest(), metadata=_tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "subject" in raised.value.details()


async def test_another_org_can_neither_read_update_forget_nor_count_access(stub, org_id):
    (memory,) = await _remember(stub, org_id, "victim", "The spare key hangs behind the boiler.")
    intruder = _tenant(f"org-{uuid.uuid4().hex[:12]}")
    attempts = [
        stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=intruder),
        stub.UpdateMemory(
            pb.UpdateMemoryRequest(
                memory=pb.Memory(id=memory.id, content="hacked"),
                update_mask=field_mask_pb2.FieldMask(paths=["content"]),
            ),
            metadata=intruder,
        ),
        stub.ForgetMemory(pb.ForgetMemoryRequest(id=memory.id), metadata=intruder),
    ]
    for attempt in attempts:
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await attempt
        assert raised.value.code() is grpc.StatusCode.NOT_FOUND
    recorded = await stub.RecordAccess(pb.RecordAccessRequest(memory_ids=[memory.id]), metadata=intruder)
    assert recorded.recorded == 0
    listed = await stub.ListMemories(pb.ListMemoriesRequest(scope=scope_pb2.Scope(user_id="victim")), metadata=intruder)
    assert list(listed.memories) == []
    erased = await stub.ForgetSubject(
        pb.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id="victim")), metadata=intruder
    )
    assert erased.memories_deleted == 0
    # Two flush intervals: nothing of the intruder's is written behind either.
    await holds_for(lambda: _access_count(stub, org_id, memory.id, 0), 0.6, "no use recorded")
    intact = await stub.GetMemory(pb.GetMemoryRequest(id=memory.id), metadata=_tenant(org_id))
    assert (intact.memory.content, intact.memory.status, intact.memory.access_count) == (
        "The spare key hangs behind the boiler.",
        pb.MEMORY_STATUS_ACTIVE,
        0,
    )


@pytest.mark.parametrize("path", ["id", "created_at", "access_count", "bogus"])
async def test_update_refuses_paths_that_cannot_change(stub, org_id, path):
    (memory,) = await _remember(stub, org_id, "u-3", "Immutable history.")
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.UpdateMemory(
            pb.UpdateMemoryRequest(memory=pb.Memory(id=memory.id), update_mask=field_mask_pb2.FieldMask(paths=[path])),
            metadata=_tenant(org_id),
        )
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT


async def test_export_streams_a_scope_and_decay_reports_what_it_rewrote(stub, org_id):
    user = f"u-{uuid.uuid4().hex[:6]}"
    written = await _remember(stub, org_id, user, "One.", "Two.", "Three.")
    pages = [
        page
        async for page in stub.ExportMemories(
            pb.ExportMemoriesRequest(scope=scope_pb2.Scope(user_id=user), page_size=2), metadata=_tenant(org_id)
        )
    ]
    assert sorted(memory.id for page in pages for memory in page.memories) == sorted(m.id for m in written)
    decayed = await stub.RunDecay(pb.RunDecayRequest(), metadata=_tenant(org_id))
    assert decayed.updated == 0 and decayed.computed_at.seconds > 0  # fresh memories have not faded yet


async def test_consolidation_folds_paraphrases_of_one_scope_and_never_another_orgs(stub, org_id):
    other_org = f"org-{uuid.uuid4().hex[:8]}"
    kept, twin, distinct = await _remember(
        stub,
        org_id,
        "u-fold",
        "Sam drinks green tea every morning.",
        "Sam drinks green tea every morning!",
        "Sam's sister lives in Porto.",
    )
    (theirs,) = await _remember(stub, other_org, "u-fold", "Sam drinks green tea every morning.")
    request = pb.RunConsolidationRequest(scope=scope_pb2.Scope(user_id="u-fold"))

    preview = await stub.RunConsolidation(
        pb.RunConsolidationRequest(scope=request.scope, dry_run=True), metadata=_tenant(org_id)
    )
    folded = await stub.RunConsolidation(request, metadata=_tenant(org_id))

    assert (preview.examined, preview.groups, preview.consolidated, preview.dry_run) == (3, 1, 1, True)
    assert (folded.groups, folded.consolidated, folded.dry_run) == (1, 1, False)
    fetched = {
        memory.id: memory
        for memory in [
            (await stub.GetMemory(pb.GetMemoryRequest(id=id_), metadata=_tenant(org_id))).memory
            for id_ in (kept.id, twin.id, distinct.id)
        ]
    }
    survivor_id = next(id_ for id_, memory in fetched.items() if memory.provenance.consolidated_from)
    member_id = ({kept.id, twin.id} - {survivor_id}).pop()
    assert fetched[member_id].status == pb.MEMORY_STATUS_CONSOLIDATED
    assert fetched[member_id].provenance.consolidated_into == survivor_id
    assert list(fetched[survivor_id].provenance.consolidated_from) == [member_id]
    assert fetched[distinct.id].status == pb.MEMORY_STATUS_ACTIVE
    untouched = await stub.GetMemory(pb.GetMemoryRequest(id=theirs.id), metadata=_tenant(other_org))
    assert untouched.memory.status == pb.MEMORY_STATUS_ACTIVE
    again = await stub.RunConsolidation(request, metadata=_tenant(org_id))
    assert (again.groups, again.consolidated) == (0, 0)


async def test_consolidation_refuses_a_threshold_that_would_fold_distinct_memories(stub, org_id):
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.RunConsolidation(pb.RunConsolidationRequest(threshold=0.5), metadata=_tenant(org_id))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "threshold" in caught.value.details()
