"""The memory side of `lore org export` / `import` on the fakes: exported records come back as they
were, with fresh vectors; the org's own records are skipped; another org's ids are refused."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from lore.memory.v1 import memory_service_pb2 as pb
from lore_runtime import errors
from memory_svc.api import episode_convert, import_convert, memory_convert
from memory_svc.domain.episode import Episode, OpenThread, ThreadStatus, UserState
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from memory_svc.usecases.memory_ports import SearchFilter
from memory_svc.usecases.org_transfer import export_episodes, import_episodes, import_memories

from tests.fakes import HashingEmbedder, InMemoryMemoryIndex
from tests.fakes_episodes import InMemoryEpisodeIndex

T0 = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def item(org: str, content: str = "Sam drinks tea.", **fields) -> MemoryItem:
    values = dict(
        id=str(uuid.uuid4()),
        org_id=org,
        content=content,
        memory_type=MemoryType.PREFERENCE,
        scope=Scope(user_id="u-1"),
        importance=0.7,
        status=MemoryStatus.CONSOLIDATED,
        metadata={"k": "v"},
        provenance=Provenance(
            session_id="s", turn_ids=("t",), source_type="reflection", consolidated_into=str(uuid.uuid4())
        ),
        entities=("sam",),
        created_at=T0,
        valid_at=T0 - timedelta(days=3),
        last_accessed_at=T0 + timedelta(hours=1),
        access_count=4,
        current_salience=0.42,
    )
    values.update(fields)
    return MemoryItem(**values)


def episode(org: str, ended_at: datetime = T0) -> Episode:
    return Episode(
        id=str(uuid.uuid4()),
        org_id=org,
        conversation_id="s-1",
        scope=Scope(user_id="u-1"),
        summary="Planned a trip.",
        key_topics=("travel",),
        entities_discussed=("sam",),
        user_state=UserState(mood="calm"),
        outcomes=(),
        open_threads=(OpenThread(topic="hotel", status=ThreadStatus.OPEN),),
        decisions=(),
        action_items=(),
        next_session_questions=(),
        message_count=3,
        started_at=ended_at - timedelta(hours=1),
        ended_at=ended_at,
        importance=0.6,
        created_at=ended_at,
        last_accessed_at=ended_at,
        access_count=2,
        current_salience=0.8,
    )


async def test_memories_come_back_as_they_were_and_are_searchable():
    index, embedder = InMemoryMemoryIndex(), HashingEmbedder()
    exported = [item("org-a"), item("org-a", "The office closes at 6 pm.", status=MemoryStatus.ARCHIVED)]
    wire = pb.ImportMemoriesRequest(memories=[memory_convert.memory_to_pb(memory) for memory in exported])
    items = import_convert.memories_from_pb(wire, "org-b")
    report = await import_memories("org-b", items, index=index, embedder=embedder)
    assert (report.imported, report.skipped) == (2, 0)
    stored = await index.get("org-b", [memory.id for memory in exported])
    assert stored == [
        MemoryItem(**{**{name: getattr(memory, name) for name in MemoryItem.__slots__}, "org_id": "org-b"})
        for memory in exported
    ]
    # Searchable: a vector was made for each.
    query = (await embedder.embed(["Sam drinks tea"]))[0]
    hits = await index.search(
        "org-b", Scope(user_id="u-1"), query, 1, filters=SearchFilter(statuses=tuple(MemoryStatus))
    )
    assert hits[0][0] == exported[0].id

    again = await import_memories("org-b", items, index=index, embedder=embedder)
    assert (again.imported, again.skipped) == (0, 2)
    assert embedder.calls == [2, 1]  # the import and the query: nothing re-embedded on the re-import


async def test_an_id_held_by_another_org_is_refused_never_moved():
    index, embedder = InMemoryMemoryIndex(), HashingEmbedder()
    owned = item("org-a")
    await index.upsert([owned], np.ones((1, 64), dtype=np.float32))
    with pytest.raises(errors.AlreadyExists) as raised:
        await import_memories("org-b", [item("org-b", id=owned.id)], index=index, embedder=embedder)
    assert raised.value.reason == "ID_OF_ANOTHER_ORG"
    assert await index.get("org-a", [owned.id]) == [owned]
    assert await index.get("org-b", [owned.id]) == []


def test_a_batch_is_validated_whole_naming_the_record_and_field():
    good = memory_convert.memory_to_pb(item("org-a"))
    bad = memory_convert.memory_to_pb(item("org-a"))
    bad.importance = 3
    with pytest.raises(errors.InvalidArgument) as raised:
        import_convert.memories_from_pb(pb.ImportMemoriesRequest(memories=[good, bad]), "org-b")
    assert raised.value.field == "memories[1].importance"
    no_id = memory_convert.memory_to_pb(item("org-a"))
    no_id.id = "not-a-uuid"
    with pytest.raises(errors.InvalidArgument, match=r"memories\[0\]\.id"):
        import_convert.memories_from_pb(pb.ImportMemoriesRequest(memories=[no_id]), "org-b")
    with pytest.raises(errors.InvalidArgument, match=r"repeats memories\[0\]"):
        import_convert.memories_from_pb(pb.ImportMemoriesRequest(memories=[good, good]), "org-b")
    unset = memory_convert.memory_to_pb(item("org-a"))
    unset.ClearField("created_at")
    with pytest.raises(errors.InvalidArgument, match=r"memories\[0\]\.created_at: is required"):
        import_convert.memories_from_pb(pb.ImportMemoriesRequest(memories=[unset]), "org-b")
    with pytest.raises(errors.InvalidArgument, match="at most 500"):
        import_convert.memories_from_pb(pb.ImportMemoriesRequest(memories=[good] * 501), "org-b")


async def test_episodes_export_in_pages_and_import_as_they_were():
    source, target, embedder = InMemoryEpisodeIndex(), InMemoryEpisodeIndex(), HashingEmbedder()
    episodes = [episode("org-a", T0 + timedelta(minutes=i)) for i in range(5)]
    for position, stored in enumerate(episodes):
        await source.upsert(stored, np.eye(5, 64, dtype=np.float32)[position])
    pages = [page async for page in export_episodes("org-a", 2, index=source)]
    assert [len(page) for page in pages] == [2, 2, 1]
    exported = [stored for page in pages for stored in page]
    assert {stored.id for stored in exported} == {stored.id for stored in episodes}

    wire = [episode_convert.episode_to_pb(stored) for stored in exported]
    batch = [import_convert.episode_from_pb(item, "org-b", f"episodes[{i}]") for i, item in enumerate(wire)]
    report = await import_episodes("org-b", batch, index=target, embedder=embedder)
    assert (report.imported, report.skipped) == (5, 0)
    for original in episodes:
        copy = await target.get("org-b", original.id)
        assert copy is not None and copy.org_id == "org-b"
        assert {**_fields(copy), "org_id": "org-a"} == _fields(original)
    assert (await import_episodes("org-b", batch, index=target, embedder=embedder)).skipped == 5
    with pytest.raises(errors.AlreadyExists):
        await import_episodes("org-c", batch[:1], index=target, embedder=embedder)
    with pytest.raises(errors.InvalidArgument, match="page_size"):
        [page async for page in export_episodes("org-a", 5_000, index=source)]


def _fields(stored: Episode) -> dict:
    return {name: getattr(stored, name) for name in Episode.__dataclass_fields__}
