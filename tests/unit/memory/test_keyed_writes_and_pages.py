"""Keyed writes replay or refuse, never overwrite; page tokens continue only their own listing."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from lore_runtime import errors
from lore_runtime.page_tokens import PageTokens
from memory_svc.domain.model import MemoryDraft, MemoryType, Scope
from memory_svc.usecases.decay import run_decay
from memory_svc.usecases.manage_memories import forget_subject, list_memories, update_memory
from memory_svc.usecases.memory_ports import MemoryOrder
from memory_svc.usecases.remember import remember

from tests.fakes import (
    FixedClock,
    HashingEmbedder,
    InMemoryErasedMemories,
    InMemoryMemoryIndex,
    InMemoryOrderGenerations,
)
from tests.fakes_episodes import InMemoryEpisodeIndex
from tests.fakes_working_memory import InMemoryWorkingMemoryStore

USER = Scope(user_id="u-1")


class _NoAccessLog:
    async def forget(self, org_id, *, memory_ids=(), user_id=""):
        return 0


@pytest.fixture
def ports():
    index = InMemoryMemoryIndex()
    return {
        "index": index,
        "embedder": HashingEmbedder(),
        "clock": FixedClock(),
        "erased": InMemoryErasedMemories(),
        "generations": InMemoryOrderGenerations(),
        "tokens": PageTokens([b"k-1"]),
    }


def draft(content: str, key: str = "k-1", **fields) -> MemoryDraft:
    return MemoryDraft(content=content, memory_type=MemoryType.FACT, scope=USER, idempotency_key=key, **fields)


async def write(ports, drafts, request_id: str = ""):
    return await remember(
        "org-a",
        drafts,
        request_id,
        index=ports["index"],
        embedder=ports["embedder"],
        clock=ports["clock"],
        erased=ports["erased"],
    )


async def test_the_same_keyed_write_replays_the_item_as_it_is_now(ports) -> None:
    (first,) = await write(ports, [draft("Ana lives in Lisbon.")])
    updated = await update_memory(
        "org-a",
        first.id,
        {"importance": 0.9},
        ["importance"],
        index=ports["index"],
        catalog=ports["index"],
        embedder=ports["embedder"],
        clock=ports["clock"],
    )
    (again,) = await write(ports, [draft("Ana lives in Lisbon.")])
    assert again.id == first.id and again.importance == updated.importance == 0.9
    assert ports["embedder"].calls == [1]  # the replay embedded nothing


@pytest.mark.parametrize(
    "other",
    [
        draft("Ana lives in Porto."),
        MemoryDraft(
            content="Ana lives in Lisbon.", memory_type=MemoryType.PREFERENCE, scope=USER, idempotency_key="k-1"
        ),
        draft("Ana lives in Lisbon.", metadata={"source": "crm"}),
        draft("Ana lives in Lisbon.", valid_at=datetime(2023, 5, 8, tzinfo=UTC)),
    ],
    ids=["content", "type", "metadata", "valid_at"],
)
async def test_a_key_reused_for_another_write_is_refused_and_the_first_stays(ports, other) -> None:
    (first,) = await write(ports, [draft("Ana lives in Lisbon.")])
    with pytest.raises(errors.AlreadyExists) as raised:
        await write(ports, [draft("Unrelated, new.", key="k-2"), other])
    assert raised.value.reason == "IDEMPOTENCY_KEY_REUSED"
    assert raised.value.metadata["field"] == "memories[1].idempotency_key"
    assert [item.content for item in await ports["index"].get("org-a", [first.id])] == ["Ana lives in Lisbon."]
    assert await ports["index"].count("org-a") == 1  # nothing of the refused batch was written


async def test_a_request_id_is_a_key_too_and_is_named_when_reused(ports) -> None:
    await write(ports, [draft("one", key=""), draft("two", key="")], request_id="req-1")
    with pytest.raises(errors.AlreadyExists) as raised:
        await write(ports, [draft("one", key=""), draft("changed", key="")], request_id="req-1")
    assert raised.value.metadata["field"] == "request_id"


async def test_one_key_twice_in_a_batch_is_one_item_or_a_refusal(ports) -> None:
    twice = await write(ports, [draft("Same."), draft("Same.")])
    assert twice[0].id == twice[1].id and await ports["index"].count("org-a") == 1
    with pytest.raises(errors.AlreadyExists):
        await write(ports, [draft("A.", key="k-3"), draft("B.", key="k-3")])


async def test_an_erased_memorys_key_never_writes_it_again(ports) -> None:
    (first,) = await write(ports, [draft("My door code is 4471.")])
    await forget_subject(
        "org-a",
        USER,
        catalog=ports["index"],
        access_log=_NoAccessLog(),
        episodes=InMemoryEpisodeIndex(),
        working_memory=InMemoryWorkingMemoryStore(),
        erased=ports["erased"],
    )
    with pytest.raises(errors.Conflict) as raised:
        await write(ports, [draft("My door code is 4471.")])
    assert raised.value.reason == "MEMORY_ERASED" and raised.value.metadata["id"] == first.id
    assert await ports["index"].count("org-a") == 0


async def listing(ports, token: str = "", *, org: str = "org-a", order=MemoryOrder.SALIENCE, size: int = 2):
    return await list_memories(
        org,
        USER,
        (),
        (),
        order,
        size,
        token,
        catalog=ports["index"],
        generations=ports["generations"],
        tokens=ports["tokens"],
    )


async def test_a_salience_page_token_is_stale_once_decay_rewrote_salience(ports) -> None:
    await write(ports, [draft(f"fact {n}", key=f"k-{n}") for n in range(5)])
    first = await listing(ports)
    assert (await listing(ports, first.next_page_token)).items  # still good
    ports["clock"].advance(days=60)
    report = await run_decay("org-a", catalog=ports["index"], clock=ports["clock"], generations=ports["generations"])
    assert report.updated == 5
    with pytest.raises(errors.InvalidArgument) as raised:
        await listing(ports, first.next_page_token)
    assert raised.value.field == "page_token" and "decay" in raised.value.description
    # The newest order never moves: its tokens outlive a decay run.
    newest = await listing(ports, order=MemoryOrder.NEWEST)
    await run_decay("org-a", catalog=ports["index"], clock=ports["clock"], generations=ports["generations"])
    assert (await listing(ports, newest.next_page_token, order=MemoryOrder.NEWEST)).items


async def test_a_page_token_is_refused_for_another_org_listing_or_a_forgery(ports) -> None:
    await write(ports, [draft(f"fact {n}", key=f"k-{n}") for n in range(3)])
    token = (await listing(ports)).next_page_token
    for attempt in (
        listing(ports, token, org="org-b"),
        listing(ports, token, order=MemoryOrder.NEWEST),
        listing(ports, token[:-2] + ("AA" if not token.endswith("AA") else "BB")),
        listing(ports, "not-a-token"),
        list_memories(
            "org-a",
            USER,
            (),
            (),
            MemoryOrder.SALIENCE,
            2,
            token,
            catalog=ports["index"],
            generations=ports["generations"],
            tokens=PageTokens([b"another deployment"]),
        ),
    ):
        with pytest.raises(errors.InvalidArgument) as raised:
            await attempt
        assert raised.value.field == "page_token"


async def test_a_rotated_key_still_opens_tokens_the_previous_key_sealed(ports) -> None:
    await write(ports, [draft(f"fact {n}", key=f"k-{n}") for n in range(3)])
    token = (await listing(ports)).next_page_token
    ports["tokens"] = PageTokens([b"k-2", b"k-1"])
    assert (await listing(ports, token)).items
    assert uuid.UUID((await listing(ports, token)).items[0].id)
