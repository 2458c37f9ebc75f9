"""The two scope matches (``Scope.allowed_values`` / ``Scope.selects``) against the rule as the spec
states it, and the use cases that carry the match: recall, listing memories, episodes, open threads."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from lore_runtime import errors
from lore_runtime.page_tokens import PageTokens
from memory_svc.domain.episode import EpisodeDraft, OpenThread
from memory_svc.domain.model import MemoryDraft, MemoryType, Scope, ScopeMatch
from memory_svc.usecases.episodes import PageRequest, create_episode, list_episodes, list_open_threads
from memory_svc.usecases.manage_memories import list_memories
from memory_svc.usecases.memory_ports import MemoryOrder
from memory_svc.usecases.recall import recall
from memory_svc.usecases.remember import remember

from tests.fakes import (
    FixedClock,
    HashingEmbedder,
    InMemoryErasedMemories,
    InMemoryMemoryIndex,
    InMemoryOrderGenerations,
)
from tests.fakes_episodes import InMemoryEpisodeIndex

T0 = datetime(2026, 1, 1, tzinfo=UTC)
# Every scope over a small alphabet per field ("" = unset): 27 scopes, 729 (read, record) pairs.
ALL_SCOPES = [
    Scope(user_id=user, agent_id=agent, team_id=team)
    for user, agent, team in itertools.product(("", "u1", "u2"), ("", "a1", "a2"), ("", "t1", "t2"))
]

TOKENS = PageTokens()


def context_rule(read: Scope, record: Scope) -> bool:
    """lore.common.v1.ScopeMatch SCOPE_MATCH_CONTEXT, as the spec writes it."""
    user_ok = record.user_id in ("", read.user_id)
    team_ok = record.team_id in ("", read.team_id)
    agent_ok = not read.agent_id or record.agent_id in ("", read.agent_id)
    return user_ok and team_ok and agent_ok


def browse_rule(read: Scope, record: Scope) -> bool:
    """SCOPE_MATCH_UNSPECIFIED: each id the read sets equals the record's; an unset id matches anything."""
    return all(
        not getattr(read, name) or getattr(read, name) == getattr(record, name)
        for name in ("user_id", "agent_id", "team_id")
    )


@pytest.mark.parametrize(("match", "rule"), [(ScopeMatch.CONTEXT, context_rule), (ScopeMatch.BROWSE, browse_rule)])
def test_selects_follows_the_rule_for_every_pair_of_scopes(match: ScopeMatch, rule) -> None:
    for read, record in itertools.product(ALL_SCOPES, ALL_SCOPES):
        assert read.selects(record, match) is rule(read, record), (read, record)


def test_allowed_values_per_field() -> None:
    assert Scope(user_id="u", agent_id="a", team_id="t").allowed_values(ScopeMatch.CONTEXT) == {
        "user_id": ("u", ""),
        "agent_id": ("a", ""),
        "team_id": ("t", ""),
    }
    # No user (team): only records without one; no agent: any agent.
    assert Scope().allowed_values(ScopeMatch.CONTEXT) == {"user_id": ("",), "team_id": ("",)}
    assert Scope(user_id="u", agent_id="a").allowed_values() == {"user_id": ("u",), "agent_id": ("a",)}
    assert Scope().allowed_values(ScopeMatch.BROWSE) == {}


def test_a_context_read_never_selects_another_users_record() -> None:
    for read, record in itertools.product(ALL_SCOPES, ALL_SCOPES):
        if record.user_id and record.user_id != read.user_id:
            assert not read.selects(record, ScopeMatch.CONTEXT)


# --------------------------------------------------------------------------- use cases


@pytest.fixture
def deps():
    return {"index": InMemoryMemoryIndex(), "embedder": HashingEmbedder(), "clock": FixedClock(T0)}


LISTING_PORTS = {"generations": InMemoryOrderGenerations(), "tokens": PageTokens()}


async def remember_population(deps) -> str:
    org = f"org-{uuid.uuid4().hex[:8]}"
    drafts = [
        MemoryDraft(content=f"{name} note about the garden", memory_type=MemoryType.FACT, scope=scope)
        for name, scope in (
            ("alice", Scope(user_id="alice")),
            ("bob", Scope(user_id="bob")),
            ("shared", Scope()),
            ("team", Scope(team_id="t1")),
        )
    ]
    await remember(org, drafts, "", **deps, erased=InMemoryErasedMemories())
    return org


async def test_a_context_recall_returns_the_users_and_the_orgs_memories_only(deps) -> None:
    org = await remember_population(deps)

    def owners(results) -> set[str]:
        return {result.item.content.split()[0] for result in results}

    alice = await recall(org, "garden", Scope(user_id="alice"), 10, scope_match=ScopeMatch.CONTEXT, **deps)
    alice_in_team = await recall(
        org, "garden", Scope(user_id="alice", team_id="t1"), 10, scope_match=ScopeMatch.CONTEXT, **deps
    )
    nobody = await recall(org, "garden", Scope(), 10, scope_match=ScopeMatch.CONTEXT, **deps)
    browse = await recall(org, "garden", Scope(user_id="alice"), 10, **deps)

    assert owners(alice) == {"alice", "shared"}
    assert owners(alice_in_team) == {"alice", "shared", "team"}
    assert owners(nobody) == {"shared"}
    assert owners(browse) == {"alice"}


async def test_a_memory_page_token_only_continues_the_match_that_issued_it(deps) -> None:
    org = await remember_population(deps)
    alice = Scope(user_id="alice")

    def listing(token: str, match: ScopeMatch):
        return list_memories(
            org, alice, (), (), MemoryOrder.NEWEST, 1, token, scope_match=match, **LISTING_PORTS, catalog=deps["index"]
        )

    first = await listing("", ScopeMatch.CONTEXT)
    second = await listing(first.next_page_token, ScopeMatch.CONTEXT)
    assert {item.content.split()[0] for item in first.items + second.items} == {"alice", "shared"}
    assert second.next_page_token == ""
    with pytest.raises(errors.InvalidArgument) as raised:
        await listing(first.next_page_token, ScopeMatch.BROWSE)
    assert raised.value.field == "page_token"


async def test_an_episode_or_thread_page_token_only_continues_the_match_that_issued_it(deps) -> None:
    org, index = f"org-{uuid.uuid4().hex[:8]}", InMemoryEpisodeIndex()
    for n, scope in enumerate((Scope(user_id="alice"), Scope(user_id="bob"), Scope(), Scope())):
        draft = EpisodeDraft(
            conversation_id=f"conv-{n}",
            summary="Planned the garden.",
            scope=scope,
            ended_at=T0 - timedelta(minutes=n),
            open_threads=(OpenThread(f"thread {n}"),),
        )
        await create_episode(org, draft, "r", index=index, embedder=deps["embedder"], clock=deps["clock"])
    alice, context = Scope(user_id="alice"), ScopeMatch.CONTEXT

    episodes = await list_episodes(
        org, PageRequest(alice, 2, "", context), index=index, tokens=TOKENS, clock=deps["clock"]
    )
    threads = await list_open_threads(org, PageRequest(alice, 2, "", context), index=index, tokens=TOKENS)
    rest = await list_open_threads(
        org, PageRequest(alice, 2, threads.next_page_token, context), index=index, tokens=TOKENS
    )

    assert [episode.conversation_id for episode in episodes.episodes] == ["conv-0", "conv-2"]
    assert [thread.thread.topic for thread in threads.threads + rest.threads] == ["thread 0", "thread 2", "thread 3"]
    with pytest.raises(errors.InvalidArgument) as raised:
        await list_episodes(
            org, PageRequest(alice, 2, episodes.next_page_token), index=index, tokens=TOKENS, clock=deps["clock"]
        )
    assert raised.value.field == "page_token"
    with pytest.raises(errors.InvalidArgument) as raised:
        await list_open_threads(org, PageRequest(alice, 2, threads.next_page_token), index=index, tokens=TOKENS)
    assert raised.value.field == "page_token"
