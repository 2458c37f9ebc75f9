"""A memory's update time moves on every write that changes it (an update, an archive, a restatement
folded in) and on nothing else: it starts as the creation time, a no-op update leaves it, and it is
kept through the payload both Qdrant adapters store."""

from __future__ import annotations

import dataclasses

import pytest
from memory_svc.adapters.memory_payload import from_payload, to_payload
from memory_svc.api.memory_convert import memory_to_pb
from memory_svc.domain.model import MemoryDraft, MemoryStatus, MemoryType, Scope
from memory_svc.usecases.manage_memories import forget_memory, get_memory, update_memory
from memory_svc.usecases.remember import remember
from memory_svc.usecases.restate import reinforce

from tests.fakes import FixedClock, HashingEmbedder, InMemoryErasedMemories, InMemoryMemoryIndex

USER = Scope(user_id="u-1")


@pytest.fixture
def ports():
    index = InMemoryMemoryIndex()
    return {"index": index, "embedder": HashingEmbedder(), "clock": FixedClock(), "erased": InMemoryErasedMemories()}


async def _written(ports, content: str = "Ana lives in Lisbon.", key: str = "k-1"):
    (item,) = await remember(
        "org-a",
        [MemoryDraft(content=content, memory_type=MemoryType.FACT, scope=USER, idempotency_key=key)],
        "",
        index=ports["index"],
        embedder=ports["embedder"],
        clock=ports["clock"],
        erased=ports["erased"],
    )
    return item


async def _update(ports, memory_id: str, changes: dict, mask: list[str]):
    return await update_memory(
        "org-a",
        memory_id,
        changes,
        mask,
        index=ports["index"],
        catalog=ports["index"],
        embedder=ports["embedder"],
        clock=ports["clock"],
    )


async def test_a_new_memory_was_updated_when_it_was_created(ports):
    item = await _written(ports)
    assert item.updated_at is None and item.changed_at == item.created_at
    assert memory_to_pb(item).updated_at.ToDatetime(tzinfo=item.created_at.tzinfo) == item.created_at


@pytest.mark.parametrize(
    ("changes", "mask"),
    [({"content": "Ana lives in Porto."}, ["content"]), ({"importance": 0.9}, ["importance"])],
    ids=["reindexed", "payload-only"],
)
async def test_an_update_moves_the_update_time_and_keeps_the_creation_time(ports, changes, mask):
    item = await _written(ports)
    ports["clock"].advance(hours=2)
    updated = await _update(ports, item.id, changes, mask)
    stored = await get_memory("org-a", item.id, index=ports["index"])
    assert updated.updated_at == stored.updated_at == ports["clock"].now()
    assert stored.created_at == item.created_at
    assert memory_to_pb(stored).updated_at.ToDatetime(tzinfo=item.created_at.tzinfo) == ports["clock"].now()


async def test_an_update_that_changes_nothing_leaves_the_update_time(ports):
    item = await _written(ports)
    ports["clock"].advance(hours=2)
    same = await _update(ports, item.id, {"importance": item.importance}, ["importance"])
    assert same.updated_at is None and same.changed_at == item.created_at


async def test_archiving_moves_the_update_time_once(ports):
    item = await _written(ports)
    ports["clock"].advance(hours=1)
    archived = await forget_memory("org-a", item.id, index=ports["index"], catalog=ports["index"], clock=ports["clock"])
    at = ports["clock"].now()
    ports["clock"].advance(hours=1)
    again = await forget_memory("org-a", item.id, index=ports["index"], catalog=ports["index"], clock=ports["clock"])
    assert archived.status is MemoryStatus.ARCHIVED and archived.updated_at == again.updated_at == at


async def test_a_restatement_folded_in_moves_the_update_time_to_when_it_was_said(ports):
    kept = await _written(ports)
    ports["clock"].advance(days=3)
    later = await _written(ports, "Ana still lives in Lisbon.", key="k-2")
    assert reinforce(kept, later).updated_at == later.created_at
    # An older restatement (an import of past turns) never moves it back.
    newer = dataclasses.replace(kept, updated_at=later.created_at)
    assert reinforce(newer, kept).updated_at == later.created_at


def test_the_payload_keeps_the_update_time_and_only_once_set():
    item = dataclasses.replace(
        from_payload(
            {
                "id": "00000000-0000-0000-0000-000000000001",
                "org_id": "org-a",
                "content": "Ana keeps bees.",
                "memory_type": "fact",
                "importance": 0.5,
                "status": "active",
                "created_at": "2026-01-01T00:00:00.000000Z",
                "valid_at": "2026-01-01T00:00:00.000000Z",
                "last_accessed_at": "2026-01-01T00:00:00.000000Z",
            }
        )
    )
    assert item.updated_at is None and "updated_at" not in to_payload(item)
    changed = dataclasses.replace(item, updated_at=FixedClock().now())
    assert from_payload(to_payload(changed)).updated_at == changed.updated_at
