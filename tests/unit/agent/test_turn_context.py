"""GetTurnContext on fakes: a live user turn's kept context comes back with when it was kept and
when the retention lets it go; every turn without one says why (an assistant reply, an imported
turn, an assembler that could not be reached, a result not kept), and one past the retention says
it expired and when — never a bare not-found. A turn of another session or org is not found."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.api.agent_convert import turn_context_to_pb
from agent_svc.domain.transcript import Scope, TurnDraft
from agent_svc.domain.turn_loop import AVAILABLE, EXPIRED, NONE, Opaque
from agent_svc.usecases.import_turns import import_turns
from agent_svc.usecases.process_turn import TurnServices, process_turn
from agent_svc.usecases.sessions import start_session
from agent_svc.usecases.turn_context import get_turn_context
from lore.agent.v1 import agent_service_pb2 as pb
from lore.common.v1 import context_pb2
from lore_runtime.errors import InvalidArgument, NotFound

from tests.fakes import FixedClock
from tests.fakes_agent import (
    FakeContextAssembler,
    FakeLanguageModel,
    FakeMemories,
    FakeWorkingMemory,
    InMemoryTranscript,
    InMemoryTurnLoop,
)

ORG = "org-a"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
WEEK = timedelta(days=7)


class World:
    def __init__(self) -> None:
        self.transcript = InMemoryTranscript()
        self.results = InMemoryTurnLoop(self.transcript)
        self.assembler = FakeContextAssembler()
        self.clock = FixedClock(T0)
        self.model: FakeLanguageModel | None = None
        self.session_id = ""

    def services(self) -> TurnServices:
        return TurnServices(
            self.transcript, self.results, FakeWorkingMemory(), self.assembler, self.clock, model=self.model
        )

    async def turn(self, content: str, key: str, role: str = "") -> object:
        draft = TurnDraft(role=role, content=content, idempotency_key=key)
        return await process_turn(ORG, self.session_id, draft, Opaque(b""), self.services())

    async def context(self, turn_id: str, retention: timedelta | None = WEEK, **where: str):
        return await get_turn_context(
            where.get("org", ORG),
            where.get("session", self.session_id),
            turn_id,
            transcript=self.transcript,
            results=self.results,
            clock=self.clock,
            retention=retention,
        )


@pytest.fixture
async def world() -> World:
    world = World()
    session = await start_session(ORG, Scope(user_id="u-1"), {}, "s-1", transcript=world.transcript, clock=world.clock)
    world.session_id = session.id
    return world


async def test_a_user_turn_answers_the_context_it_was_given_while_the_result_is_kept(world: World) -> None:
    said = await world.turn("Which trail did I like in Sintra?", "k1")
    world.clock.advance(days=2)

    found = await world.context(said.turn.id)

    assert found.status == AVAILABLE and (found.reason, found.message) == ("", "")
    assert found.context == said.result.context == b"payload:Which trail did I like in Sintra?"
    assert found.turn == said.turn
    assert found.assembled_at == T0 and found.expires_at == T0 + WEEK
    kept_forever = await world.context(said.turn.id, retention=None)
    assert kept_forever.status == AVAILABLE and kept_forever.expires_at is None


async def test_the_caller_reply_and_a_generated_reply_have_no_context(world: World) -> None:
    world.model = FakeLanguageModel("Pena Park, the long loop.")
    asked = await world.turn("Which trail?", "k1")
    caller_reply = await world.turn("The green one, I think.", "k2", role="assistant")

    for turn in (asked.reply_turn, caller_reply.turn):
        found = await world.context(turn.id)
        assert (found.status, found.reason, found.context) == (NONE, "ASSISTANT_TURN", b"")
        assert "reply" in found.message and found.turn == turn


async def test_an_imported_turn_has_no_context(world: World) -> None:
    await import_turns(
        ORG,
        world.session_id,
        [TurnDraft("user", "We walked the Pena Park loop in May.", created_at=T0 - timedelta(days=300))],
        transcript=world.transcript,
        messages=FakeMemories(),
        clock=world.clock,
    )
    imported = world.transcript.turns_by_session[(ORG, world.session_id)][0]

    found = await world.context(imported.id)

    assert (found.status, found.reason) == (NONE, "IMPORTED_TURN") and "imported" in found.message
    assert found.expires_at is None, "an imported turn never had a result to expire"


async def test_a_turn_answered_without_the_assembler_says_so(world: World) -> None:
    world.assembler.down = True
    said = await world.turn("Any walks near Lisbon?", "k1")

    found = await world.context(said.turn.id)

    assert (found.status, found.reason, found.context) == (NONE, "NOT_ASSEMBLED", b"")
    assert "assembler" in found.message


async def test_past_the_retention_the_context_is_expired_with_the_time_it_passed(world: World) -> None:
    said = await world.turn("Which trail did I like?", "k1")
    world.clock.advance(days=8)
    assert await world.results.prune_results(world.clock.now() - WEEK) == 1  # the agent's daily purge

    found = await world.context(said.turn.id)

    assert (found.status, found.reason, found.context) == (EXPIRED, "RETENTION", b"")
    assert found.expires_at == T0 + WEEK and found.assembled_at is None
    assert "7 days" in found.message and "LORE_AGENT_TURN_RESULT_DAYS" in found.message


async def test_a_live_turn_without_a_kept_result_inside_the_retention_is_not_kept(world: World) -> None:
    said = await world.turn("Which trail?", "k1")
    world.clock.advance(days=8)
    await world.results.prune_results(world.clock.now() - WEEK)
    # Kept forever (LORE_AGENT_TURN_RESULT_DAYS=0), a missing result cannot have expired: it was never
    # kept (a processing that stopped early), which is what the answer says.
    found = await world.context(said.turn.id, retention=None)
    young = await world.context(said.turn.id, retention=timedelta(days=30))

    for answer in (found, young):
        assert (answer.status, answer.reason, answer.expires_at) == (NONE, "NOT_KEPT", None)
        assert "idempotency key" in answer.message


async def test_a_turn_of_another_session_or_org_is_not_found_and_a_bad_id_is_named(world: World) -> None:
    said = await world.turn("Which trail?", "k1")
    other = await start_session(ORG, Scope(user_id="u-1"), {}, "s-2", transcript=world.transcript, clock=world.clock)

    with pytest.raises(NotFound) as elsewhere:
        await world.context(said.turn.id, session=other.id)
    with pytest.raises(NotFound) as unknown:
        await world.context("0b9a7c52-3f0e-4d1a-9c55-8f1e2d3c4b5a")
    with pytest.raises(NotFound) as other_org:
        await world.context(said.turn.id, org="org-b")
    with pytest.raises(InvalidArgument) as bad:
        await world.context("turn-1")

    assert elsewhere.value.reason == unknown.value.reason == "TURN_NOT_FOUND"
    assert other_org.value.reason == "SESSION_NOT_FOUND"
    assert bad.value.field == "turn_id"


async def test_the_answer_carries_the_kept_context_message_as_processturn_returned_it(world: World) -> None:
    """The kept bytes are the assembler's AssembledContext: the response parses them, manifest and all."""
    context = context_pb2.AssembledContext(
        text="## What you remember\n- Pena Park loop",
        total_tokens=9,
        budget_tokens=1200,
        manifest=[
            context_pb2.ManifestEntry(
                id="m-1",
                source=context_pb2.CANDIDATE_SOURCE_MEMORY,
                section=context_pb2.SECTION_KIND_MEMORIES,
                outcome=context_pb2.MANIFEST_OUTCOME_KEPT,
                score=context_pb2.ScoreComponents(similarity=0.8, recency=0.5, importance=0.6, total=0.71),
            ),
            context_pb2.ManifestEntry(id="m-2", outcome=context_pb2.MANIFEST_OUTCOME_BELOW_THRESHOLD),
        ],
    )
    original = world.assembler.assemble

    async def real_context(session, message, options):
        assembled = await original(session, message, options)
        return type(assembled)(assembled.text, context.SerializeToString(), Opaque(context))

    world.assembler.assemble = real_context  # type: ignore[method-assign]
    said = await world.turn("Which trail?", "k1")

    answer = turn_context_to_pb(await world.context(said.turn.id))

    assert answer.status == pb.TURN_CONTEXT_STATUS_AVAILABLE and answer.context == context
    assert answer.turn.id == said.turn.id and answer.assembled_at.ToDatetime(UTC) == T0
    assert answer.expires_at.ToDatetime(UTC) == T0 + WEEK
    none = turn_context_to_pb(await world.context((await world.turn("ok", "k2", role="assistant")).turn.id))
    assert none.status == pb.TURN_CONTEXT_STATUS_NONE and not none.HasField("context")
    assert not none.HasField("assembled_at") and not none.HasField("expires_at")
