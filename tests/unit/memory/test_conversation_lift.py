"""Conversation-aware recall (domain.conversation): among the first window of candidates, the messages
of one session lift each other — the nearest said ones most, a session where the query landed as a
whole — and nothing else gives or gains a lift."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from memory_svc.domain.conversation import (
    NO_LIFT,
    SESSION_READ_LIMIT,
    ConversationLift,
    Said,
    lifts,
    named_speaker,
    said_of,
    sessions_to_read,
    window_size,
)
from memory_svc.domain.model import MemoryDraft, MemoryItem, MemoryStatus, MemoryType, Provenance, Scope, ScopeMatch
from memory_svc.domain.ranking import RankingWeights, whole_session
from memory_svc.usecases.recall import recall
from memory_svc.usecases.remember import remember

from tests.fakes import FixedClock, HashingEmbedder, InMemoryErasedMemories, InMemoryMemoryIndex

T0 = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
NEIGHBOURS_ONLY = ConversationLift(neighbours=0.4, window=2, session=0.0)
SESSION_ONLY = ConversationLift(neighbours=0.0, session=0.3)


def said(
    key: str, session: str, place: int, memory_type: MemoryType = MemoryType.MESSAGE, speaker: str = ""
) -> MemoryItem:
    return MemoryItem(
        id=key,
        org_id="org",
        content=f"turn {key}",
        memory_type=memory_type,
        scope=Scope(user_id="u"),
        importance=0.5,
        status=MemoryStatus.ACTIVE,
        metadata={},
        provenance=Provenance(session_id=session, speaker=speaker),
        entities=(),
        created_at=T0,
        valid_at=T0 + timedelta(seconds=place),
        last_accessed_at=T0,
    )


def by_id(*items: MemoryItem) -> dict[str, Said]:
    """Where each message of a session among ``items`` was said (the others are not: ``said_of``)."""
    return {item.id: place for item in items if (place := said_of(item)) is not None}


def test_the_turns_said_next_to_a_strong_hit_are_lifted_by_it_less_the_further_they_are() -> None:
    items = by_id(said("q", "s1", 10), said("reply", "s1", 11), said("later", "s1", 12), said("far", "s1", 13))
    relevance = {"q": 0.9, "reply": 0.1, "later": 0.1, "far": 0.1}

    lifted = lifts(relevance, items, NEIGHBOURS_ONLY)

    assert lifted["reply"] == pytest.approx(0.4 * 0.9)
    assert lifted["later"] == pytest.approx(0.4 * 0.9 / 2)
    assert lifted["far"] == pytest.approx(0.4 * 0.1)  # three places from q: only its own neighbours count
    assert lifted["q"] == pytest.approx(0.4 * 0.1)


def test_places_are_the_order_said_not_the_order_found() -> None:
    items = by_id(said("first", "s1", 1), said("second", "s1", 2), said("third", "s1", 3))

    lifted = lifts({"third": 0.9, "first": 0.8, "second": 0.0}, items, NEIGHBOURS_ONLY)

    assert lifted["second"] == pytest.approx(0.4 * 0.9)
    assert lifted["first"] == pytest.approx(0.4 * 0.9 / 2)


def test_another_session_facts_and_messages_without_a_session_neither_give_nor_gain() -> None:
    items = by_id(
        said("hit", "s1", 1),
        said("other session", "s2", 2),
        said("fact", "s1", 2, MemoryType.FACT),
        said("no session", "", 2),
    )
    relevance = {"hit": 0.9, "other session": 0.2, "fact": 0.2, "no session": 0.2}

    lifted = lifts(relevance, items, NEIGHBOURS_ONLY)

    assert set(lifted) == {"hit", "other session"}
    assert lifted["other session"] == 0.0 and lifted["hit"] == 0.0


def test_a_session_lifts_its_messages_by_its_best_relevance_over_the_best_of_any_session() -> None:
    items = by_id(said("a", "s1", 1), said("b", "s1", 40), said("c", "s2", 1))

    lifted = lifts({"a": 0.8, "b": 0.1, "c": 0.4}, items, SESSION_ONLY)

    assert lifted == pytest.approx({"a": 0.3, "b": 0.3, "c": 0.3 * 0.4 / 0.8})


def test_no_lift_and_candidates_not_read_lift_nothing() -> None:
    items = by_id(said("a", "s1", 1))
    assert lifts({"a": 0.9, "b": 0.9}, items, NO_LIFT) == {}
    assert lifts({"a": 0.9, "gone": 0.9}, items, NEIGHBOURS_ONLY) == {"a": 0.0}


def test_a_message_neither_search_found_rises_by_its_neighbour_and_its_session() -> None:
    items = by_id(said("hit", "s1", 1), said("reply", "s1", 2))

    lifted = lifts({"hit": 0.9}, items, ConversationLift(neighbours=0.4, session=0.3))

    assert lifted["reply"] == pytest.approx(0.4 * 0.9 + 0.3)


def test_the_sessions_read_whole_are_those_of_the_best_messages_ties_by_session() -> None:
    items = by_id(said("a", "s-b", 1), said("b", "s-a", 1), said("c", "s-c", 1), said("d", "s-d", 1))
    relevance = {"a": 0.5, "b": 0.5, "c": 0.9, "d": 0.1}

    assert sessions_to_read(relevance, items, ConversationLift(whole_sessions=3)) == ["s-c", "s-a", "s-b"]
    assert sessions_to_read(relevance, items, ConversationLift(whole_sessions=0)) == []
    assert sessions_to_read(relevance, items, NO_LIFT) == []


def test_a_session_longer_than_the_read_limit_is_not_read_whole() -> None:
    told = [Said(f"m{n}", "s1", T0, T0) for n in range(SESSION_READ_LIMIT + 1)]

    assert whole_session(told) == {}
    assert len(whole_session(told[:SESSION_READ_LIMIT])) == SESSION_READ_LIMIT


SPEAKER_ONLY = ConversationLift(neighbours=0.0, session=0.0, speaker=0.2)


def test_a_query_names_a_speaker_by_their_whole_name_in_any_case() -> None:
    items = by_id(said("a", "s1", 1, speaker="Noor"), said("b", "s1", 2, speaker="Ines"), said("c", "s1", 3))

    assert named_speaker("When did noor move to Porto?", items) == "Noor"
    assert named_speaker("What did NOOR's sister say?", items) == "Noor"
    assert named_speaker("When did Noorah move?", items) == "", "part of another word names nobody"
    assert named_speaker("Did Noor and Ines meet?", items) == "", "two speakers named: the question is about both"
    assert named_speaker("When did the move happen?", items) == ""
    assert named_speaker("Is (Noor) a regex?", by_id(said("x", "s1", 1, speaker="(Noor)"))) == "(Noor)"


def test_the_named_speakers_messages_gain_the_speaker_lift_and_no_one_elses() -> None:
    items = by_id(
        said("hers", "s1", 1, speaker="Noor"),
        said("his", "s1", 2, speaker="Tomas"),
        said("hers too", "s2", 1, speaker="Noor"),
        said("unnamed", "s2", 2),
    )
    relevance = {"hers": 0.5, "his": 0.5, "hers too": 0.1, "unnamed": 0.5}

    assert lifts(relevance, items, SPEAKER_ONLY, "Noor") == pytest.approx(
        {"hers": 0.2, "his": 0.0, "hers too": 0.2, "unnamed": 0.0}
    )
    assert lifts(relevance, items, SPEAKER_ONLY, "") == pytest.approx(dict.fromkeys(relevance, 0.0))
    assert lifts(relevance, items, NO_LIFT, "Noor") == {}


def test_the_window_is_twice_k_and_never_under_eight() -> None:
    assert [window_size(k) for k in (1, 4, 5, 25)] == [8, 8, 10, 50]


@pytest.mark.parametrize(
    "field",
    [{"neighbours": -0.1}, {"session": float("nan")}, {"window": 0}, {"whole_sessions": -1}, {"speaker": -0.2}],
)
def test_a_lift_is_non_negative_and_its_window_at_least_one(field) -> None:
    with pytest.raises(ValueError):
        ConversationLift(**field)


# --- through Recall: a lift never crosses an org or a user, and ties are ordered by id -----------


MINE = [
    "I adopted a greyhound last week",
    "she sleeps on the sofa all day",
    "the vet said she is healthy",
    "we walk by the river at dawn",
]


def draft(content: str, user: str, place: float, session: str = "shared-session") -> MemoryDraft:
    return MemoryDraft(
        content=content,
        memory_type=MemoryType.MESSAGE,
        scope=Scope(user_id=user),
        valid_at=T0 + timedelta(seconds=place),
        provenance=Provenance(session_id=session),
    )


async def ranked_for_u1(index: InMemoryMemoryIndex, org: str = "org-a") -> list[tuple[str, float]]:
    hits = await recall(
        org, "greyhound adopted", Scope(user_id="u-1"), 10, index=index, embedder=HashingEmbedder(),
        clock=FixedClock(T0 + timedelta(days=1)), scope_match=ScopeMatch.CONTEXT,
    )  # fmt: skip
    return [(hit.item.content, round(hit.score, 9)) for hit in hits]


async def write(index: InMemoryMemoryIndex, org: str, drafts: list[MemoryDraft]) -> None:
    await remember(
        org, drafts, "", index=index, embedder=HashingEmbedder(), clock=FixedClock(T0), erased=InMemoryErasedMemories()
    )


async def test_another_users_or_another_orgs_turns_in_the_same_session_neither_appear_nor_lift() -> None:
    alone, crowded = InMemoryMemoryIndex(), InMemoryMemoryIndex()
    mine = [draft(text, "u-1", place) for place, text in enumerate(MINE)]
    await write(alone, "org-a", mine)
    await write(crowded, "org-a", mine)
    # The same session id, said in between and matching the query far better: another user's
    # turns in the same org, and the same user id's turns in another org.
    better = "greyhound adopted greyhound adopted"
    await write(crowded, "org-a", [draft(better, "u-2", place + 0.5) for place in range(4)])
    await write(crowded, "org-b", [draft(better, "u-1", place + 0.5) for place in range(4)])

    found = await ranked_for_u1(crowded)

    assert {content for content, _ in found} <= set(MINE)
    assert found == await ranked_for_u1(alone)


async def test_turns_that_tie_are_ordered_by_id_every_time() -> None:
    index = InMemoryMemoryIndex()
    await write(index, "org-a", [draft("I adopted a greyhound", "u-1", 0, session=f"s-{n}") for n in range(6)])

    first = await recall(
        "org-a", "greyhound", Scope(user_id="u-1"), 10, index=index, embedder=HashingEmbedder(), clock=FixedClock(T0)
    )
    again = await recall(
        "org-a", "greyhound", Scope(user_id="u-1"), 10, index=index, embedder=HashingEmbedder(), clock=FixedClock(T0)
    )

    assert len({round(hit.score, 9) for hit in first}) == 1, "six identical turns tie"
    assert [hit.item.id for hit in first] == sorted(hit.item.id for hit in first) == [hit.item.id for hit in again]


async def test_the_reply_to_a_hit_comes_back_though_neither_search_found_it() -> None:
    index = InMemoryMemoryIndex()
    hit, reply = draft("I adopted a greyhound", "u-1", 0, "s-dog"), draft("her name is Pixel", "u-1", 1, "s-dog")
    noise = [draft(f"greyhound racing results week {n}", "u-1", 10 + n, f"s-{n}") for n in range(30)]
    await write(index, "org-a", [hit, reply, *noise])

    async def found(whole_sessions: int) -> list[str]:
        hits = await recall(
            "org-a", "greyhound adopted", Scope(user_id="u-1"), 3, index=index, embedder=HashingEmbedder(),
            clock=FixedClock(T0), weights=RankingWeights(conversation=ConversationLift(whole_sessions=whole_sessions)),
        )  # fmt: skip
        return [hit.item.content for hit in hits]

    assert (await found(0))[0] == hit.content and reply.content not in await found(0)
    assert (await found(3))[:2] == [hit.content, reply.content]


def spoken(content: str, user: str, place: float, speaker: str, session: str = "trip") -> MemoryDraft:
    return MemoryDraft(
        content=content,
        memory_type=MemoryType.MESSAGE,
        scope=Scope(user_id=user),
        valid_at=T0 + timedelta(seconds=place),
        provenance=Provenance(session_id=session, speaker=speaker),
    )


async def asked(index: InMemoryMemoryIndex, query: str) -> list[str]:
    hits = await recall(
        "org-a", query, Scope(user_id="u-1"), 4, index=index, embedder=HashingEmbedder(),
        clock=FixedClock(T0 + timedelta(days=1)), scope_match=ScopeMatch.CONTEXT,
    )  # fmt: skip
    return [hit.item.content for hit in hits]


async def test_a_question_naming_a_speaker_ranks_their_words_first() -> None:
    index = InMemoryMemoryIndex()
    await write(
        index,
        "org-a",
        [
            spoken("the ferry to the island was late", "u-1", 0, "Tomas"),
            spoken("the ferry to the island was full", "u-1", 1, "Noor"),
        ],
    )

    assert (await asked(index, "What did Noor say about the ferry to the island?"))[
        0
    ] == "the ferry to the island was full"
    assert (await asked(index, "What did Tomas say about the ferry to the island?"))[
        0
    ] == "the ferry to the island was late"


async def test_a_speaker_named_by_another_user_or_another_org_lifts_nothing() -> None:
    alone, crowded = InMemoryMemoryIndex(), InMemoryMemoryIndex()
    mine = [
        spoken("the ferry to the island was late", "u-1", 0, "Tomas"),
        spoken("the ferry to the island was full", "u-1", 1, "Noor"),
    ]
    await write(alone, "org-a", mine)
    await write(crowded, "org-a", mine)
    # The same session, and messages only another user and another org attribute to Ines.
    await write(crowded, "org-a", [spoken("Ines: ferry island ferry island", "u-2", 0.5, "Ines")])
    await write(crowded, "org-b", [spoken("Ines: ferry island ferry island", "u-1", 0.5, "Ines")])

    question = "What did Ines say about the ferry to the island?"
    assert await asked(crowded, question) == await asked(alone, question)
