"""Uses of memories are written behind the answer (usecases/access_behind.py): nothing is written
until a flush, a flush writes the rows and refreshes each item once with every use since, replays
count nothing, and what cannot be written is dropped and counted — never raised to a caller."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from lore_runtime import errors
from memory_svc.domain.model import MemoryDraft, MemoryType, Scope
from memory_svc.domain.salience import salience
from memory_svc.usecases.access_behind import AccessWriteBehind
from memory_svc.usecases.memory_ports import AccessRequest
from memory_svc.usecases.remember import remember

from tests.fakes import FixedClock, HashingEmbedder, InMemoryErasedMemories, InMemoryMemoryIndex
from tests.polling import eventually

RECALL = AccessRequest(reason="recall", session_id="s-1", principal="p", request_id="r-1")


class RecordingAccessLog:
    """Rows by (org, request id, memory id), like the Postgres log: a replayed pair records nothing."""

    def __init__(self, failing: bool = False) -> None:
        self.rows: dict[tuple[str, str, str], object] = {}
        self.failing = failing

    async def record(self, org_id, accesses):
        if self.failing:
            raise errors.DependencyUnavailable("postgres", "down")
        new = []
        for access in accesses:
            if (org_id, access.request_id, access.memory_id) not in self.rows:
                self.rows[(org_id, access.request_id, access.memory_id)] = access
                new.append(access.memory_id)
        return new


class RefusingCatalog(InMemoryMemoryIndex):
    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    async def write_access(self, org_id, refreshed):
        raise errors.FailedPrecondition("refused", reason=self.reason)


async def written(index: InMemoryMemoryIndex, *contents: str, org: str = "org-a"):
    drafts = [MemoryDraft(content=text, memory_type=MemoryType.FACT, scope=Scope(user_id="u-1")) for text in contents]
    return await remember(
        org, drafts, "", index=index, embedder=HashingEmbedder(), clock=FixedClock(), erased=InMemoryErasedMemories()
    )


def behind_over(index, access_log=None, clock=None, **options) -> AccessWriteBehind:
    return AccessWriteBehind(index, index, access_log or RecordingAccessLog(), clock or FixedClock(), **options)


async def test_nothing_is_written_before_a_flush_then_rows_and_counters_are() -> None:
    index, access_log, clock = InMemoryMemoryIndex(), RecordingAccessLog(), FixedClock()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index, access_log, clock)
    clock.advance(days=2)

    behind.offer("org-a", [item], RECALL)
    assert not access_log.rows and (await index.get("org-a", [item.id]))[0].access_count == 0

    await behind.flush()

    (stored,) = await index.get("org-a", [item.id])
    assert list(access_log.rows) == [("org-a", "r-1", item.id)]
    assert (stored.access_count, stored.last_accessed_at) == (1, clock.now())
    assert stored.current_salience == pytest.approx(salience(1, clock.now(), clock.now()))
    assert behind.stats.written == 1 and behind.stats.pending == 0


async def test_two_uses_in_one_interval_count_twice_and_a_replay_counts_nothing() -> None:
    index, access_log = InMemoryMemoryIndex(), RecordingAccessLog()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index, access_log)

    behind.offer("org-a", [item], RECALL)
    behind.offer("org-a", [item], AccessRequest("recall", "s-1", "p", "r-2"))
    behind.offer("org-a", [item], RECALL)  # the first request, replayed
    await behind.flush()

    assert (await index.get("org-a", [item.id]))[0].access_count == 2
    assert len(access_log.rows) == 2


async def test_counters_only_uses_are_added_to_what_the_item_holds_at_the_flush() -> None:
    index = InMemoryMemoryIndex()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index)

    behind.offer("org-a", [item], RECALL)
    await behind.flush()
    behind.offer("org-a", [item], RECALL, logged=True)  # RecordAccess wrote its row already
    await behind.flush()

    assert (await index.get("org-a", [item.id]))[0].access_count == 2


async def test_each_org_is_written_in_its_own_org_only() -> None:
    index, access_log = InMemoryMemoryIndex(), RecordingAccessLog()
    (mine,) = await written(index, "Ada keeps bees.")
    (theirs,) = await written(index, "Ada keeps bees.", org="org-b")
    behind = behind_over(index, access_log)

    behind.offer("org-a", [mine], RECALL)
    behind.offer("org-b", [theirs], RECALL)
    await behind.flush()

    assert sorted(org for org, _, _ in access_log.rows) == ["org-a", "org-b"]
    assert (await index.get("org-a", [mine.id]))[0].access_count == 1
    assert (await index.get("org-b", [theirs.id]))[0].access_count == 1


async def test_a_full_buffer_drops_the_newest_offer_and_counts_it() -> None:
    index = InMemoryMemoryIndex()
    first, second, third = await written(index, "one fact", "another fact", "a third fact")
    behind = behind_over(index, capacity=2)

    behind.offer("org-a", [first, second], RECALL)
    behind.offer("org-a", [third], RECALL)
    await behind.flush()

    assert (behind.stats.offered, behind.stats.dropped_full, behind.stats.written) == (3, 1, 2)
    assert (await index.get("org-a", [third.id]))[0].access_count == 0


async def test_a_failed_flush_loses_its_batch_counts_it_and_raises_nothing() -> None:
    index = InMemoryMemoryIndex()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index, RecordingAccessLog(failing=True))

    behind.offer("org-a", [item], RECALL)
    await behind.flush()

    assert behind.stats.dropped_failed == 1 and behind.stats.pending == 0
    assert (await index.get("org-a", [item.id]))[0].access_count == 0


async def test_during_a_reindex_rows_are_written_and_counters_wait() -> None:
    index, access_log = RefusingCatalog("REINDEX_RUNNING"), RecordingAccessLog()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index, access_log)

    behind.offer("org-a", [item], RECALL)
    await behind.flush()

    assert len(access_log.rows) == 1 and behind.stats.dropped_failed == 0 and behind.stats.written == 0


async def test_another_refusal_of_the_counters_is_counted_as_lost() -> None:
    index = RefusingCatalog("STORE_CLOSED")
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index)

    behind.offer("org-a", [item], RECALL)
    await behind.flush()

    assert behind.stats.dropped_failed == 1


async def test_the_loop_flushes_every_interval_and_close_flushes_the_rest() -> None:
    index = InMemoryMemoryIndex()
    first, second = await written(index, "one fact", "another fact")
    behind = behind_over(index, interval=0.01)
    loop = asyncio.create_task(behind.run_forever())

    behind.offer("org-a", [first], RECALL)
    await eventually(lambda: behind.stats.written, what="the first flush", interval=0.01)
    loop.cancel()
    behind.offer("org-a", [second], RECALL)
    await behind.close()

    assert behind.stats.written == 2
    assert [item.access_count for item in await index.get("org-a", [first.id, second.id])] == [1, 1]


async def test_uses_are_timed_when_offered_not_when_written() -> None:
    index, clock = InMemoryMemoryIndex(), FixedClock()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index, clock=clock)

    behind.offer("org-a", [item], RECALL)
    offered_at = clock.now()
    clock.advance(days=1)
    await behind.flush()

    assert (await index.get("org-a", [item.id]))[0].last_accessed_at == offered_at
    assert offered_at + timedelta(days=1) == clock.now()


async def test_the_recall_rpc_hands_its_hits_over_only_when_asked_to_record_them() -> None:
    from memory_svc.usecases.recall import answer_recall

    index = InMemoryMemoryIndex()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index)
    asked = {"index": index, "embedder": HashingEmbedder(), "clock": FixedClock(), "behind": behind}

    quiet = await answer_recall("org-a", "bees", Scope(user_id="u-1"), 5, use=None, **asked)
    assert [hit.item.id for hit in quiet.hits] == [item.id] and quiet.vectors == {}
    assert behind.stats.offered == 0

    told = await answer_recall("org-a", "bees", Scope(user_id="u-1"), 5, use=RECALL, include_embeddings=True, **asked)
    assert behind.stats.offered == 1 and set(told.vectors) == {item.id}
    assert told.vectors[item.id].shape == told.query_vector.shape


async def test_an_item_erased_between_its_use_and_the_flush_is_written_nothing() -> None:
    index, access_log = InMemoryMemoryIndex(), RecordingAccessLog()
    (item,) = await written(index, "Ada keeps bees.")
    behind = behind_over(index, access_log)

    behind.offer("org-a", [item], RECALL)
    await index.delete_scope("org-a", Scope(user_id="u-1"))
    await behind.flush()

    assert await index.get("org-a", [item.id]) == [] and behind.stats.written == 0


async def test_a_flush_failing_part_way_counts_only_what_it_did_not_write(monkeypatch) -> None:
    import memory_svc.usecases.access_behind as behind_module

    class FailingSecondWrite(InMemoryMemoryIndex):
        writes = 0

        async def write_access(self, org_id, refreshed):
            FailingSecondWrite.writes += 1
            if FailingSecondWrite.writes == 2:
                raise errors.DependencyUnavailable("qdrant", "down")
            await super().write_access(org_id, refreshed)

    monkeypatch.setattr(behind_module, "WRITE_CHUNK", 2)
    index = FailingSecondWrite()
    items = await written(index, "one fact", "another fact", "a third fact")
    behind = behind_over(index)

    behind.offer("org-a", items, RECALL)
    await behind.flush()

    assert (behind.stats.written, behind.stats.dropped_failed) == (2, 1)
