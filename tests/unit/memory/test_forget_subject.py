"""Erasure of a subject (ForgetSubject) on the fakes: items, episodes, the access log and the named
sessions' working memory go; another user's and another org's stay; bad input erases nothing."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from lore_runtime import errors
from memory_svc.domain import limits
from memory_svc.domain.episode import EpisodeDraft
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from memory_svc.domain.working_memory import WorkingMemory
from memory_svc.usecases.episodes import create_episode
from memory_svc.usecases.manage_memories import forget_subject

from tests.fakes import FixedClock, HashingEmbedder, InMemoryErasedMemories, InMemoryMemoryIndex
from tests.fakes_episodes import InMemoryEpisodeIndex
from tests.fakes_working_memory import InMemoryWorkingMemoryStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LEAVING, STAYING = Scope(user_id="leaving"), Scope(user_id="staying")


class _RecordingAccessLog:
    def __init__(self) -> None:
        self.forgotten: list[tuple[str, list[str], str]] = []

    async def forget(self, org_id, *, memory_ids=(), user_id=""):
        self.forgotten.append((org_id, sorted(memory_ids), user_id))
        return len(memory_ids)


class _Stores:
    def __init__(self) -> None:
        self.catalog = InMemoryMemoryIndex()
        self.erased = InMemoryErasedMemories()
        self.access_log = _RecordingAccessLog()
        self.episodes = InMemoryEpisodeIndex()
        self.working_memory = InMemoryWorkingMemoryStore()

    def ports(self) -> dict[str, object]:
        return {
            "catalog": self.catalog,
            "access_log": self.access_log,
            "episodes": self.episodes,
            "working_memory": self.working_memory,
            "erased": self.erased,
        }

    async def item(self, org: str, scope: Scope) -> str:
        item = MemoryItem(
            id=str(uuid.uuid4()),
            org_id=org,
            content="I live at 12 Elm Street.",
            memory_type=MemoryType.FACT,
            scope=scope,
            importance=0.5,
            status=MemoryStatus.ACTIVE,
            metadata={},
            provenance=Provenance(),
            entities=(),
            created_at=T0,
            valid_at=T0,
            last_accessed_at=T0,
        )
        await self.catalog.upsert([item], np.ones((1, 4), dtype=np.float32) / 2)
        return item.id

    async def episode(self, org: str, scope: Scope) -> str:
        draft = EpisodeDraft(conversation_id=f"c-{uuid.uuid4().hex[:8]}", summary="Moved to Lisbon.", scope=scope)
        created = await create_episode(
            org, draft, "", index=self.episodes, embedder=HashingEmbedder(), clock=FixedClock(T0)
        )
        return created.id

    async def session(self, org: str, session_id: str) -> None:
        changes = WorkingMemory(session_id=session_id, summary="Lives at 12 Elm Street.")
        await self.working_memory.update(org, session_id, changes, ["summary"], ttl=timedelta(hours=1), now=T0)


@pytest.fixture
def stores() -> _Stores:
    return _Stores()


async def test_forget_subject_erases_items_episodes_and_named_sessions_of_that_org_only(stores) -> None:
    org, other = "org-a", "org-b"
    gone_items = [await stores.item(org, LEAVING), await stores.item(org, Scope(user_id="leaving", agent_id="x"))]
    kept_items = [(org, await stores.item(org, STAYING)), (other, await stores.item(other, LEAVING))]
    gone_episodes = [await stores.episode(org, LEAVING)]
    kept_episodes = [(org, await stores.episode(org, STAYING)), (other, await stores.episode(other, LEAVING))]
    for session_id in ("s-1", "s-2", "s-kept"):
        await stores.session(org, session_id)
        await stores.session(other, session_id)

    erased = await forget_subject(org, LEAVING, ["s-1", "s-2", "s-1"], **stores.ports())

    assert (erased.memories_deleted, erased.episodes_deleted, erased.working_memories_cleared) == (2, 1, 2)
    assert erased.access_records_deleted == 3
    # The episodes' uses are in the same log (RecordEpisodeAccess): they go with them.
    assert stores.access_log.forgotten == [(org, sorted(gone_items + gone_episodes), "leaving")]
    assert await stores.catalog.get(org, gone_items) == []
    assert [await stores.episodes.get(org, episode_id) for episode_id in gone_episodes] == [None]
    assert await stores.working_memory.get(org, "s-1") is None
    assert await stores.working_memory.get(org, "s-2") is None
    for owner, item_id in kept_items:
        assert [item.id for item in await stores.catalog.get(owner, [item_id])] == [item_id]
    for owner, episode_id in kept_episodes:
        assert await stores.episodes.get(owner, episode_id) is not None
    assert await stores.working_memory.get(org, "s-kept") is not None
    for session_id in ("s-1", "s-2", "s-kept"):
        assert await stores.working_memory.get(other, session_id) is not None


@pytest.mark.parametrize(
    ("subject", "session_ids", "field"),
    [
        (Scope(), [], "subject"),
        (LEAVING, [""], "session_ids[0]"),
        (LEAVING, ["s-1", "s-2\n"], "session_ids[1]"),
        (LEAVING, ["s" * 129], "session_ids[0]"),
        (LEAVING, [f"s-{n}" for n in range(limits.MAX_FORGET_SESSION_IDS + 1)], "session_ids"),
    ],
)
async def test_forget_subject_refuses_bad_input_before_erasing_anything(stores, subject, session_ids, field) -> None:
    item_id = await stores.item("org-a", LEAVING)
    episode_id = await stores.episode("org-a", LEAVING)
    await stores.session("org-a", "s-1")

    with pytest.raises(errors.InvalidArgument) as raised:
        await forget_subject("org-a", subject, session_ids, **stores.ports())

    assert raised.value.field == field
    assert len(await stores.catalog.get("org-a", [item_id])) == 1
    assert await stores.episodes.get("org-a", episode_id) is not None
    assert await stores.working_memory.get("org-a", "s-1") is not None
