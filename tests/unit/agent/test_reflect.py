"""Reflection on fakes with the real rule extractor: turns in order, the watermark moved after each,
a crashed run resumed without writing anything twice, evidence that names the turn and its memories."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.domain.extraction import Plan
from agent_svc.domain.rules import RuleExtractor
from agent_svc.domain.transcript import Scope, Turn, turn_id_for
from agent_svc.usecases.reflect import ReflectionServices, reflect_through
from agent_svc.usecases.reflection_ports import Evidence
from agent_svc.usecases.sessions import start_session
from lore_runtime.errors import Conflict, DependencyUnavailable

from tests.fakes import FixedClock
from tests.fakes_agent import (
    FakeEngagement,
    FakeMemories,
    FakeObservations,
    FakeWorkingMemory,
    InMemoryTranscript,
    InMemoryTurnLoop,
    memory_id_for,
)

ORG = "org-a"
SCOPE = Scope(user_id="u-1", agent_id="a-1")
ENGAGED = frozenset({"a-1"})  # LORE_ENGAGEMENT_AGENTS naming the session's agent
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

CONVERSATION = [
    ("user", "I'm vegetarian."),
    ("assistant", "Noted, I will suggest vegetarian recipes."),
    ("user", "I live in Lisbon and I'm frustrated with the noise."),
    ("user", "I prefer tea over coffee."),
    ("system", "The user switched to the mobile app."),
]


class CountingExtractor(RuleExtractor):
    """The rule extractor, counting the engagement proposals it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.engagement_calls = 0

    async def engagement(self, turns):
        self.engagement_calls += 1
        return await super().engagement(turns)


class World:
    def __init__(self, engagement_agents: frozenset[str] = ENGAGED) -> None:
        self.engagement_agents = engagement_agents
        self.extractor = CountingExtractor()
        self.transcript = InMemoryTranscript()
        self.results = InMemoryTurnLoop(self.transcript)
        self.memories = FakeMemories()
        self.observations = FakeObservations()
        self.engagement = FakeEngagement()
        self.engagement_skips: list[str] = []  # the reasons the metric counts
        self.working_memory = FakeWorkingMemory()
        self.session_id = ""

    def services(self) -> ReflectionServices:
        return ReflectionServices(
            self.transcript,
            self.results,
            self.extractor,
            self.memories,
            self.observations,
            self.engagement,
            self.working_memory,
            self.engagement_agents,
            self.engagement_skips.append,
        )

    async def say(self, lines: list[tuple[str, str]], source: str = "live") -> list[Turn]:
        turns = [
            Turn(
                turn_id_for(self.session_id, f"{source}-{index}-{content}"),
                self.session_id,
                0,
                role,
                content,
                T0 + timedelta(minutes=index),
                {"channel": "web"},
                f"{source}-{index}-{content}",
                source=source,
            )
            for index, (role, content) in enumerate(lines)
        ]
        return (await self.transcript.append(ORG, self.session_id, turns, T0)).turns

    async def reflect(self, through: int) -> int:
        return await reflect_through(ORG, self.session_id, through, self.services())


@pytest.fixture
async def world() -> World:
    world = World()
    session = await start_session(ORG, SCOPE, {}, "s-1", transcript=world.transcript, clock=FixedClock(T0))
    world.session_id = session.id
    return world


async def test_turns_are_reflected_in_order_and_the_watermark_moves_per_turn(world: World) -> None:
    turns = await world.say(CONVERSATION)

    read = await world.reflect(5)

    assert read == 5
    assert world.results.marks == [(world.session_id, sequence) for sequence in (1, 2, 3, 4, 5)]
    assert await world.results.reflected_through(ORG, world.session_id) == 5
    assert [(o.claim.slot, o.evidence.turn_id) for o in world.observations.observed] == [
        ("diet", turns[0].id),
        ("home_city", turns[2].id),
        ("drink", turns[3].id),
    ]
    assert [o.claim.summary for o in world.observations.observed] == [
        "The user is vegetarian.",
        "The user lives in Lisbon.",
        "The user prefers tea over coffee.",
    ]
    # one Remember call per user or assistant turn (the system turn is context only): message + findings
    assert [keys[0] for keys in world.memories.remembered] == [f"turn:{t.id}" for t in turns[:4]]
    assert [item.write.content for item in world.memories.items.values() if item.write.kind != "message"] == [
        "The user is vegetarian.",
        "The assistant will suggest vegetarian recipes.",
        "The user lives in Lisbon.",
        "The user prefers tea over coffee.",
    ]


async def test_a_job_for_a_sequence_already_covered_does_nothing(world: World) -> None:
    await world.say(CONVERSATION)
    await world.reflect(5)
    calls = (len(world.memories.calls), len(world.observations.calls), len(world.working_memory.calls))

    assert await world.reflect(3) == 0
    assert await world.reflect(5) == 0
    assert (len(world.memories.calls), len(world.observations.calls), len(world.working_memory.calls)) == calls
    assert world.results.marks[-1] == (world.session_id, 5) and len(world.results.marks) == 5


async def test_a_partial_job_stops_at_its_sequence(world: World) -> None:
    await world.say(CONVERSATION)

    assert await world.reflect(2) == 2
    assert await world.results.reflected_through(ORG, world.session_id) == 2
    assert await world.reflect(5) == 3
    assert [o.claim.slot for o in world.observations.observed] == ["diet", "home_city", "drink"]


async def test_a_run_that_fails_half_way_resumes_at_that_turn_and_writes_nothing_twice(world: World) -> None:
    turns = await world.say(CONVERSATION)
    world.observations.fail_for_turns = {turns[2].id}

    with pytest.raises(DependencyUnavailable):
        await world.reflect(5)
    assert await world.results.reflected_through(ORG, world.session_id) == 2
    ids_after_crash = set(world.memories.items)

    world.observations.fail_for_turns = set()
    assert await world.reflect(5) == 3

    assert await world.results.reflected_through(ORG, world.session_id) == 5
    request_ids = [o.request_id for o in world.observations.observed]
    assert len(request_ids) == len(set(request_ids)) == 3
    assert [o.claim.slot for o in world.observations.observed] == ["diet", "home_city", "drink"]
    # turn 3's Remember ran twice and landed on the same ids; nothing else was written twice
    third = [memory_id for memory_id, write in world.memories.writes if write.turn_ids == (turns[2].id,)]
    assert len(third) == 4 and third[:2] == third[2:]
    assert ids_after_crash <= set(world.memories.items)
    assert len(world.memories.items) == 8  # 4 messages + 4 findings
    assert len(world.memories.writes) == 10


@pytest.mark.parametrize(("reason", "ends_cleanly"), [("SUBJECT_ERASING", True), ("CONFLICT", False)])
async def test_a_write_refused_by_a_services_erasure_fence_ends_the_run_without_failing_the_job(
    world: World, reason: str, ends_cleanly: bool
) -> None:
    turns = await world.say(CONVERSATION)
    remember = world.memories.remember

    async def fenced(scope, session_id, items):
        if any(turns[2].id in item.turn_ids for item in items):
            raise Conflict("refused", reason=reason)
        return await remember(scope, session_id, items)

    world.memories.remember = fenced

    if ends_cleanly:
        assert await world.reflect(5) == 2, "the job stops at the refused turn and ends"
    else:
        with pytest.raises(Conflict):
            await world.reflect(5)
    assert await world.results.reflected_through(ORG, world.session_id) == 2


async def test_live_turns_that_missed_working_memory_reach_it_before_they_are_reflected(world: World) -> None:
    turns = await world.say(CONVERSATION[:3])  # said while working memory was unreachable: never appended
    imported = await world.say([("user", "I grew up in Porto.")], source="import")
    world.working_memory.down = True

    with pytest.raises(DependencyUnavailable):
        await world.reflect(4)
    assert await world.results.reflected_through(ORG, world.session_id) == 0, "nothing reflected past a missed turn"

    world.working_memory.down = False
    assert await world.reflect(4) == 4

    kept = [turn.id for turn in world.working_memory.memory(world.session_id).turns]
    assert kept == [turn.id for turn in turns] and imported[0].id not in kept
    assert await world.reflect(4) == 0 and len(world.working_memory.appends) == 3, "a covered job appends nothing"


async def test_imported_turns_are_not_indexed_again_as_messages(world: World) -> None:
    imported = await world.say([("user", "I'm vegetarian."), ("assistant", "Good to know.")], source="import")
    live = await world.say([("user", "I prefer tea over coffee."), ("user", "Thanks!")])

    await world.reflect(4)

    reflect_key = world.memories.remembered[0][0]
    assert reflect_key.startswith("reflect:")
    assert world.memories.remembered[1:] == [
        [f"turn:{live[0].id}", world.memories.remembered[1][1]],
        [f"turn:{live[1].id}"],
    ], "the import's assistant turn found nothing and is not remembered at all"
    messages = world.memories.of_kind("message")
    assert [(m.write.content, m.write.source, m.write.valid_at) for m in messages] == [
        ("I prefer tea over coffee.", "live", live[0].created_at),
        ("Thanks!", "live", live[1].created_at),
    ]
    assert (
        messages[0].write.metadata == {"channel": "web", "role": "user"} and messages[0].session_id == world.session_id
    )
    assert world.memories.items[memory_id_for(reflect_key)].write.turn_ids == (imported[0].id,)


async def test_claims_carry_the_turn_and_its_memory_ids_as_evidence(world: World) -> None:
    (turn,) = await world.say([("user", "I'm vegetarian.")])

    await world.reflect(1)

    (observed,) = world.observations.observed
    (keys,) = world.memories.remembered
    assert keys[0] == f"turn:{turn.id}"
    assert observed.evidence == Evidence(turn.id, tuple(memory_id_for(key) for key in keys), turn.created_at)
    assert [world.memories.items[i].write.kind for i in observed.evidence.memory_ids] == ["message", "preference"]
    assert observed.scope == SCOPE
    assert (observed.claim.kind, observed.claim.slot, observed.claim.excerpt) == (
        "operator_preference",
        "diet",
        "I'm vegetarian.",
    )
    assert observed.request_id.startswith("observe:")


CONCLUDED = "My working hypothesis is that the churn comes from pricing."
HUNCH = "I suspect the churn comes from pricing."


async def test_a_users_hunch_alone_forms_no_hypothesis_and_a_users_question_no_unknown(world: World) -> None:
    await world.say([("user", HUNCH), ("user", "I don't know whether the onboarding is too long.")])

    await world.reflect(2)

    assert world.extractor.engagement_calls == 2
    assert world.engagement.hypotheses == {} and world.engagement.unknowns == []


async def test_the_agents_conclusion_forms_one_hypothesis_that_hunches_support_until_promoted(world: World) -> None:
    turns = await world.say(
        [
            ("assistant", CONCLUDED),
            ("user", HUNCH),
            ("assistant", CONCLUDED),  # restating its own hypothesis is not evidence
            ("user", "Honestly, I suspect the churn comes from pricing!"),
        ]
    )

    await world.reflect(2)
    (hypothesis,) = world.engagement.hypotheses.values()
    assert hypothesis["statement"] == "The churn comes from pricing."
    assert [(line, supports) for line, supports, _ in hypothesis["evidence"]] == [(CONCLUDED, True), (HUNCH, True)]
    assert hypothesis["evidence"][1][2] == f"user, 2026-03-01, turn:{turns[1].id}"

    await world.reflect(3)
    assert len(hypothesis["evidence"]) == 2 and world.engagement.statements() == ["The churn comes from pricing."]

    await world.reflect(4)
    # (3 + 1) / (3 + 2) = 0.8 with no contradiction: the documented rule promotes it.
    assert len(world.engagement.hypotheses) == 1 and hypothesis["status"] == "promoted"


async def test_a_full_list_is_a_logged_skip_and_reflection_completes(world: World, caplog) -> None:
    world.engagement.max_active = 0
    await world.say([("assistant", CONCLUDED), ("assistant", "We don't know yet whether onboarding is too long.")])
    world.engagement.max_open = 0

    with caplog.at_level("WARNING", logger="agent_svc.usecases.engage"):
        assert await world.reflect(2) == 2

    assert world.engagement.hypotheses == {} and world.engagement.unknowns == []
    assert await world.results.reflected_through(ORG, world.session_id) == 2
    assert [r.getMessage() for r in caplog.records if "limit is reached" in r.getMessage()] != []
    assert {"TOO_MANY_ACTIVE_HYPOTHESES", "TOO_MANY_OPEN_UNKNOWNS"} <= {
        reason
        for r in caplog.records
        for reason in ("TOO_MANY_ACTIVE_HYPOTHESES", "TOO_MANY_OPEN_UNKNOWNS")
        if reason in r.getMessage()
    }
    assert world.engagement_skips == ["TOO_MANY_ACTIVE_HYPOTHESES", "TOO_MANY_OPEN_UNKNOWNS"], "and counted"
    assert world.memories.remembered, "the rest of reflection went on"


async def test_no_hypothesis_states_a_precise_figure_without_a_source(world: World) -> None:
    await world.say(
        [
            ("assistant", "My hypothesis is that 42% of the churn comes from pricing."),
            ("assistant", "My hypothesis is that the churn spike in March 2026 comes from pricing."),
        ]
    )

    await world.reflect(2)

    assert world.engagement.statements() == ["The churn spike in March 2026 comes from pricing."], "a date is no figure"


async def test_the_agents_open_question_becomes_one_unknown(world: World) -> None:
    await world.say(
        [
            ("assistant", "We don't know yet whether onboarding is too long."),
            ("assistant", "We don't know whether onboarding is too long!"),
        ]
    )

    await world.reflect(2)

    assert world.engagement.unknowns == ["Whether onboarding is too long"]


async def test_a_tool_interaction_is_remembered_as_one(world: World) -> None:
    from agent_svc.domain.transcript import ToolInteraction

    turn = Turn(
        turn_id_for(world.session_id, "t"),
        world.session_id,
        0,
        "user",
        "Check the weather.",
        T0,
        {},
        "t",
        (ToolInteraction("weather", intent="Lisbon today", summary="21°C and sunny"),),
    )
    await world.transcript.append(ORG, world.session_id, [turn], T0)

    await world.reflect(1)

    (tool,) = world.memories.of_kind("tool_interaction")
    assert (tool.write.content, tool.write.metadata, tool.write.valid_at) == (
        "weather: 21°C and sunny",
        {"tool_name": "weather"},
        T0,
    )


async def test_working_memory_gets_the_last_summary_the_plan_and_five_emotions(world: World) -> None:
    turns = await world.say(
        [
            ("user", "I want to migrate our database to Postgres."),
            ("user", "I'm frustrated with the old server."),
            ("user", "I'm so annoyed, this is terrible!"),
            ("user", "I'm worried about the deadline."),
            ("assistant", "I'm sorry you are frustrated."),
            ("user", "Ugh, I'm frustrated."),
            ("user", "I'm anxious about the cutover."),
            ("user", "I'm worried about downtime."),
            ("assistant", "First, dump the schema, then restore it."),
        ]
    )

    await world.reflect(9)

    memory = world.working_memory.memory(world.session_id)
    assert world.working_memory.calls.count("reflect") == 1, "once per run, with the last turn's state"
    assert memory.plan == Plan(goal="migrate our database to Postgres", progress="", next_step="dump the schema")
    assert [(e.turn_id, e.label) for e in memory.emotions] == [
        (turns[2].id, "annoyed"),
        (turns[3].id, "anxious"),
        (turns[5].id, "frustrated"),
        (turns[6].id, "anxious"),
        (turns[7].id, "anxious"),
    ]
    assert memory.emotions[0].observed_at == turns[2].created_at
    assert memory.summary.startswith("User: I want to migrate our database to Postgres.")
    assert memory.summary.endswith("Assistant: First, dump the schema, then restore it.")


async def test_the_extractor_reads_only_the_turns_said_before(world: World) -> None:
    await world.say([("user", "I'm vegetarian."), ("user", "I live in Lisbon.")])

    await world.reflect(2)

    assert world.working_memory.memory(world.session_id).summary == "User: I'm vegetarian. I live in Lisbon."


async def test_an_erased_session_is_not_reflected(world: World) -> None:
    assert await reflect_through(ORG, "00000000-0000-0000-0000-000000000000", 3, world.services()) == 0
    assert world.memories.calls == [] and world.results.marks == []


HEDGED = [
    ("assistant", "My working hypothesis is that the churn comes from pricing."),
    ("user", "I suspect the churn comes from pricing."),
    ("user", "I wonder whether onboarding is too long?"),
]


async def test_a_listed_agents_reflection_asks_for_engagement_and_writes_it(world: World) -> None:
    await world.say(HEDGED)

    await world.reflect(3)

    assert world.extractor.engagement_calls == 3
    assert world.engagement.statements() == ["The churn comes from pricing."]


@pytest.mark.parametrize(
    ("scope", "listed"),
    [
        (SCOPE, frozenset()),  # nothing listed: the default
        (SCOPE, frozenset({"coach"})),  # another agent listed
        (Scope(user_id="u-1"), ENGAGED),  # a session without an agent
    ],
)
async def test_an_unlisted_agents_reflection_writes_no_engagement_and_does_not_ask_for_it(scope, listed) -> None:
    world = World(engagement_agents=listed)
    session = await start_session(ORG, scope, {}, "s-unlisted", transcript=world.transcript, clock=FixedClock(T0))
    world.session_id = session.id
    await world.say(HEDGED)

    assert await world.reflect(3) == 3

    assert world.extractor.engagement_calls == 0, "the extractor (a model call, when configured) is not even asked"
    assert world.engagement.hypotheses == {} and world.engagement.calls == []
    assert world.memories.remembered, "the rest of reflection is unchanged"


async def test_beliefs_are_observed_under_the_sessions_scope() -> None:
    world = World()
    team_scope = Scope(user_id="u-2", agent_id="a-1", team_id="t-1")
    session = await start_session(ORG, team_scope, {}, "s-team", transcript=world.transcript, clock=FixedClock(T0))
    world.session_id = session.id
    await world.say([("user", "I'm vegetarian.")])

    await world.reflect(1)

    assert [o.scope for o in world.observations.observed] == [team_scope]
