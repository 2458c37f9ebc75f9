"""AssembleContext's use case on fake sources: fan-out, degradation, access and consistency."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.gathered import (
    Belief,
    EngagementDigest,
    EpisodeDigest,
    Finding,
    Hypothesis,
    RecalledMemory,
    Scope,
    SessionState,
    ThreadDigest,
    Unknown,
)
from assembler_svc.domain.model import Outcome, Section, Source
from assembler_svc.domain.tool_results import ToolResult
from assembler_svc.usecases.assemble_context import AssembleInput, assemble_context
from assembler_svc.usecases.ports import AssemblyServices

from tests.fakes import FixedClock
from tests.fakes_assembler import FakeMemorySources, FakeObservationSources

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
# A user of an agent listed in LORE_ENGAGEMENT_AGENTS: its contexts show the engagement state.
SCOPE = Scope(user_id="u-1", agent_id="ada")
ENGAGED = frozenset({"ada"})


def memory(id_: str, content: str, memory_type: str = "fact", **values) -> RecalledMemory:
    defaults = {"similarity": 0.0, "salience": 0.9, "importance": 0.6, "valid_at": NOW - timedelta(days=2)}
    return RecalledMemory(id=id_, content=content, memory_type=memory_type, **{**defaults, **values})


def sources():
    memories = FakeMemorySources(
        memories=[
            memory("m-db", "The user prefers Postgres for new services", "preference"),
            memory("m-trip", "The user flies to Lisbon on Friday for the conference"),
            memory("m-old", "The user once tried MySQL", salience=0.05, importance=0.1),
            memory("m-promise", "I promised to send the migration checklist", "commitment"),
        ],
        episodes=[EpisodeDigest("e-1", "Planned the Postgres migration.", "s-0", NOW - timedelta(days=1), 0.9, 0.7)],
        threads=[ThreadDigest("e-1", "s-0", "migration checklist", "promised last time", NOW - timedelta(days=1))],
        sessions={
            "s-1": SessionState(
                summary="Discussing the database migration.",
                mood="frustrated",
                mood_valence=-0.6,
                last_tool_result=ToolResult("calendar", summary="Friday is free", fields={"day": "Friday"}),
            )
        },
    )
    beliefs = FakeObservationSources(
        beliefs=[
            Belief("o-1", "The user prefers Postgres", "operator_preference", 0.9, 0.95),
            Belief("o-2", "The migration is half done", "project_state", 0.8, 0.9),
        ],
        state=EngagementDigest(
            week_number=3,
            hypotheses=(Hypothesis("h-1", "Migration risk is in the reports", 0.6),),
            unknowns=(Unknown("u-1", "Who owns the reports?", "they sign off"),),
            first_session=False,
        ),
    )
    return memories, beliefs


async def run(request: AssembleInput, memories, beliefs, timeout: float = 0.2, engagement_agents=ENGAGED):
    return await assemble_context(
        request,
        AssemblyServices(memories, beliefs, TiktokenCounter(), FixedClock(NOW)),
        timeout=timeout,
        engagement_agents=engagement_agents,
    )


async def test_every_source_lands_in_its_section_in_the_fixed_order() -> None:
    memories, beliefs = sources()
    request = AssembleInput(
        scope=SCOPE,
        message="what about the Postgres migration checklist",
        session_id="s-1",
        persona="You are Ada, a careful database consultant.",
        opinions=("Postgres is the safer choice here.",),
    )

    result = await run(request, memories, beliefs)

    sections = {s.section: s for s in result.assembly.sections}
    assert [s.section for s in result.assembly.sections] == sorted(sections)
    assert sections[Section.PERSONA].items[0].text.startswith("You are Ada")
    assert "migration" in sections[Section.WORKING_SUMMARY].text
    guidance = sections[Section.GUIDANCE].text
    assert "frustrated" in guidance and "Week 3" in guidance and "Who owns the reports?" in guidance
    assert "Friday is free" in sections[Section.TOOL_RESULTS].text
    assert "prefers Postgres" in sections[Section.USER_PROFILE].text
    assert "migration checklist" in sections[Section.OPINIONS].text
    assert not result.assembly.first_session


async def test_only_kept_memories_have_their_access_recorded() -> None:
    memories, beliefs = sources()

    message = "the user and the Postgres migration checklist"
    result = await run(AssembleInput(scope=SCOPE, message=message, session_id="s-1"), memories, beliefs)

    kept = {e.id for e in result.assembly.manifest if e.source is Source.MEMORY and e.outcome is Outcome.KEPT}
    dropped = {e.id for e in result.assembly.manifest if e.source is Source.MEMORY and e.outcome is not Outcome.KEPT}
    assert kept and dropped, "the fixture keeps some memories and drops others"
    [(ids, session, reason)] = memories.accessed
    assert (set(ids), session, reason) == (kept, "s-1", "assembled_context")


async def test_the_belief_search_reuses_recalls_query_vector() -> None:
    memories, beliefs = sources()

    await run(AssembleInput(scope=SCOPE, message="Postgres migration"), memories, beliefs)

    [given] = beliefs.given_vectors
    assert given is not None and given.model == "fake-words"


@pytest.mark.parametrize("how", ["fail", "hang"])
async def test_without_recall_the_belief_search_still_answers_with_its_own_embedding(how) -> None:
    memories, beliefs = sources()
    getattr(memories.misbehave, how).add("recall")

    result = await run(AssembleInput(scope=SCOPE, message="Postgres migration"), memories, beliefs)

    assert beliefs.given_vectors == [None]
    kept = {e.id for e in result.assembly.manifest if e.outcome is Outcome.KEPT}
    assert {"o-1", "o-2"} <= kept


async def test_no_access_is_recorded_when_the_caller_says_so() -> None:
    memories, beliefs = sources()

    await run(
        AssembleInput(scope=SCOPE, message="Postgres migration", session_id="s-1", record_access=False),
        memories,
        beliefs,
    )

    assert memories.accessed == []


@pytest.mark.parametrize(
    ("method", "source"),
    [
        ("recall", Source.MEMORY),
        ("search_beliefs", Source.OBSERVATION),
        ("engagement", Source.ENGAGEMENT),
        ("working_memory", Source.WORKING_MEMORY),
        ("recent_episodes", Source.EPISODE),
    ],
)
@pytest.mark.parametrize("how", ["fail", "hang"])
async def test_a_failing_or_hanging_source_is_reported_and_the_rest_assembled(method, source, how) -> None:
    memories, beliefs = sources()
    target = memories if hasattr(memories, method) else beliefs
    getattr(target.misbehave, how).add(method)

    result = await run(
        AssembleInput(scope=SCOPE, message="Postgres migration checklist", session_id="s-1"), memories, beliefs
    )

    unavailable = [e for e in result.assembly.manifest if e.outcome is Outcome.SOURCE_UNAVAILABLE]
    assert [e.source for e in unavailable] == [source]
    assert ("no answer within 200 ms" if how == "hang" else "is down") in unavailable[0].reason
    assert result.assembly.sections, "the other sources still fill the context"
    assert not result.assembly.first_session


async def test_a_mood_switch_between_turns_is_flagged_and_the_fingerprint_kept() -> None:
    memories, beliefs = sources()
    first = await run(AssembleInput(scope=SCOPE, message="Postgres migration", session_id="s-1"), memories, beliefs)
    assert memories.sessions["s-1"].fingerprint == first.assembly.fingerprint
    assert first.flags == ()
    state = memories.sessions["s-1"]
    memories.sessions["s-1"] = SessionState(summary=state.summary, mood="relieved", fingerprint=state.fingerprint)

    second = await run(AssembleInput(scope=SCOPE, message="Postgres migration", session_id="s-1"), memories, beliefs)

    assert [(f.aspect, f.previous, f.current) for f in second.flags] == [("mood", "frustrated", "relieved")]


async def test_without_a_session_working_memory_is_neither_read_nor_written() -> None:
    memories, beliefs = sources()

    result = await run(AssembleInput(scope=SCOPE, message="Postgres migration"), memories, beliefs)

    assert "working_memory" not in memories.misbehave.calls and "save_fingerprint" not in memories.misbehave.calls
    assert all(e.source is not Source.WORKING_MEMORY for e in result.assembly.manifest)


async def test_nothing_known_yet_is_a_first_session() -> None:
    result = await run(
        AssembleInput(scope=SCOPE, message="hello there", persona="You are Ada."),
        FakeMemorySources(),
        FakeObservationSources(),
    )

    assert result.assembly.first_session
    assert "first conversation" in result.assembly.text
    assert result.assembly.text.index("You are Ada") < result.assembly.text.index("first conversation")


async def test_an_agent_listed_for_engagement_is_asked_for_it_and_shows_it() -> None:
    memories, beliefs = sources()

    result = await run(AssembleInput(scope=SCOPE, message="Postgres migration", session_id="s-1"), memories, beliefs)

    assert beliefs.misbehave.calls.count("engagement") == 1
    shown = {e.id for e in result.assembly.manifest if e.source is Source.ENGAGEMENT}
    assert shown == {"week", "h-1", "u-1"}


@pytest.mark.parametrize(
    ("scope", "listed"),
    [
        (SCOPE, frozenset()),  # nothing listed: the default
        (Scope(user_id="u-1", agent_id="bob"), ENGAGED),  # another agent
        (Scope(user_id="u-1"), ENGAGED),  # no agent at all
    ],
)
async def test_an_agent_not_listed_for_engagement_never_asks_for_it_nor_shows_it(scope, listed) -> None:
    memories, beliefs = sources()

    result = await run(
        AssembleInput(scope=scope, message="Postgres migration", session_id="s-1"),
        memories,
        beliefs,
        engagement_agents=listed,
    )

    assert "engagement" not in beliefs.misbehave.calls, "GetEngagement is not even called"
    assert all(e.source is not Source.ENGAGEMENT for e in result.assembly.manifest)
    guidance = {s.section: s for s in result.assembly.sections}[Section.GUIDANCE].text
    assert "frustrated" in guidance, "the rest of the guidance is still there"
    assert not any(word in guidance for word in ("Week 3", "hypothesis", "Who owns the reports?"))
    assert not result.assembly.first_session


async def test_engagement_down_for_an_unlisted_agent_is_not_reported() -> None:
    memories, beliefs = sources()
    beliefs.misbehave.fail.add("engagement")

    result = await run(
        AssembleInput(scope=SCOPE, message="Postgres migration"), memories, beliefs, engagement_agents=frozenset()
    )

    assert all(e.outcome is not Outcome.SOURCE_UNAVAILABLE for e in result.assembly.manifest)


def _guidance(result) -> str:  # type: ignore[no-untyped-def]
    return next((s.text for s in result.assembly.sections if s.section is Section.GUIDANCE), "")


async def test_an_org_without_engagement_state_gets_orientation_and_the_user_still_a_first_session() -> None:
    beliefs = FakeObservationSources(state=EngagementDigest())

    result = await run(AssembleInput(scope=SCOPE, message="Where do we start?"), FakeMemorySources(), beliefs)

    guidance = _guidance(result)
    assert "open with orientation" in guidance
    assert result.assembly.first_session, "the org's engagement says nothing about this user"


async def test_an_engagement_outage_is_not_orientation() -> None:
    memories, beliefs = sources()
    beliefs.misbehave.fail.add("engagement")

    result = await run(AssembleInput(scope=SCOPE, message="Postgres migration"), memories, beliefs)

    assert "orientation" not in _guidance(result)
    assert any(
        e.outcome is Outcome.SOURCE_UNAVAILABLE and e.source is Source.ENGAGEMENT for e in result.assembly.manifest
    )


@pytest.mark.parametrize(
    ("week", "focus"), [(1, "orientation questions"), (3, "evidence for and against"), (6, "synthesis")]
)
async def test_the_week_biases_the_guidance_and_findings_are_in_it(week: int, focus: str) -> None:
    memories, _ = sources()
    beliefs = FakeObservationSources(
        state=EngagementDigest(
            week_number=week,
            first_session=False,
            findings=(Finding("f-1", "Handoffs cost more than manufacturing", "the COO, 3 March"),),
        )
    )

    result = await run(AssembleInput(scope=SCOPE, message="What next?"), memories, beliefs)

    guidance = _guidance(result)
    assert f"Week {week} of the engagement" in guidance and focus in guidance
    assert "do not recite it" in guidance
    assert "Finding: Handoffs cost more than manufacturing (source: the COO, 3 March)" in guidance


async def test_an_old_episode_about_the_message_is_found_and_its_use_recorded() -> None:
    memories, beliefs = sources()
    memories.episodes = [
        EpisodeDigest(f"e-new-{n}", f"Small talk number {n}.", f"s-{n}", NOW - timedelta(hours=n), 0.9, 0.5)
        for n in range(3)
    ] + [EpisodeDigest("e-kyoto", "Planned the Kyoto trip in April.", "s-k", NOW - timedelta(days=40), 0.2, 0.6)]

    result = await run(AssembleInput(scope=SCOPE, message="the Kyoto trip", session_id="s-1"), memories, beliefs)

    kept = {e.id for e in result.assembly.manifest if e.source is Source.EPISODE and e.outcome is Outcome.KEPT}
    assert "e-kyoto" in kept, "last month's relevant conversation is reachable"
    kyoto = next(e for e in result.assembly.manifest if e.id == "e-kyoto")
    assert kyoto.score.similarity > 0
    assert sum(e.id == "e-kyoto" for e in result.assembly.manifest) == 1, "searched and listed: one candidate"
    [(ids, session, reason)] = memories.episodes_accessed
    assert set(ids) == kept and (session, reason) == ("s-1", "assembled_context")
