"""Prime's use case and formatting on fake sources."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.gathered import Belief, EpisodeDigest, RecalledMemory, Scope, ThreadDigest
from assembler_svc.domain.model import Outcome, Source
from assembler_svc.domain.priming import NOTHING_YET, PrimeLimits, related_memories, shared_entities
from assembler_svc.usecases.ports import AssemblyServices
from assembler_svc.usecases.prime import prime

from tests.fakes import FixedClock
from tests.fakes_assembler import FakeMemorySources, FakeObservationSources

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
COUNTER = TiktokenCounter()


def fact(id_: str, content: str, salience: float, entities=(), memory_type: str = "fact") -> RecalledMemory:
    return RecalledMemory(
        id=id_,
        content=content,
        memory_type=memory_type,
        similarity=0.0,
        salience=salience,
        importance=0.5,
        valid_at=NOW - timedelta(days=3),
        entities=tuple(entities),
    )


def sources():
    memories = FakeMemorySources(
        memories=[
            fact("f-1", "Works at Acme as a data engineer", 0.9, ["acme"]),
            fact("f-2", "Prefers short answers", 0.8, memory_type="preference"),
            fact("m-1", "Lisbon trip with Marta is in May", 0.4, ["lisbon", "marta"], "message"),
        ],
        episodes=[
            EpisodeDigest("e-1", "Talked about the Lisbon trip.", "s-1", NOW - timedelta(days=2), 0.8, 0.6),
            EpisodeDigest("e-0", "Old chat about taxes.", "s-0", NOW - timedelta(days=200), 0.1, 0.3),
        ],
        threads=[ThreadDigest("e-1", "s-1", "hotel booking", "not decided", NOW - timedelta(days=2))],
    )
    beliefs = FakeObservationSources(beliefs=[Belief("o-1", "Travels mostly for work", "relationship_fact", 0.8, 0.9)])
    return memories, beliefs


async def run(memories, beliefs, initial_message: str = "", budget: int = 600):
    return await prime(
        Scope(user_id="u-1"),
        initial_message,
        budget,
        AssemblyServices(memories, beliefs, COUNTER, FixedClock(NOW)),
        timeout=0.2,
    )


async def test_priming_gathers_each_part_and_formats_them() -> None:
    memories, beliefs = sources()

    primed = await run(memories, beliefs)

    assert [i.id for i in primed.recent_context] == ["e-1"], "the old episode is under the minimum salience"
    assert [i.text for i in primed.open_threads] == ["hotel booking (not decided)"]
    assert [i.id for i in primed.salient_facts] == ["f-1", "f-2"]
    assert [i.id for i in primed.observations] == ["o-1"]
    text = primed.formatted_context
    assert text.startswith("What I remember about this user:")
    for expected in ("Recent conversations:", "Lisbon trip", "Open threads:", "What I know:", "What I believe:"):
        assert expected in text
    assert {e.outcome for e in primed.manifest} == {Outcome.KEPT}
    [(ids, _, reason)] = memories.accessed
    assert (set(ids), reason) == ({"f-1", "f-2"}, "prime")


async def test_an_initial_message_brings_the_memories_sharing_its_entities() -> None:
    memories, beliefs = sources()

    primed = await run(memories, beliefs, "Any news about Lisbon?")

    assert primed.entities == ("lisbon",)
    assert [i.id for i in primed.related] == ["m-1"]
    assert "Related to this message:" in primed.formatted_context


def test_related_memories_share_an_entity_or_are_close_in_meaning() -> None:
    def recalled(id_: str, similarity: float, entities=()) -> RecalledMemory:
        return RecalledMemory(id_, "x", "message", similarity, 1.0, 0.5, entities=tuple(entities))

    found = [recalled("close", 0.7), recalled("far", 0.2), recalled("named", 0.1, ["miso"]), recalled("seen", 0.9)]

    assert [m.id for m in related_memories(found, ["miso"], exclude={"seen"})] == ["named", "close"]


def test_entities_are_the_known_ones_the_message_names_on_word_boundaries() -> None:
    known = [fact("a", "x", 1, ["acme", "lisbon"]), fact("b", "y", 1, ["acme"])]

    assert shared_entities("Is ACME hiring in Lisbon?", known) == ("acme", "lisbon")
    assert shared_entities("acmes and lisbonites", known) == ()


async def test_a_small_budget_keeps_what_fits_and_says_what_did_not() -> None:
    memories, beliefs = sources()

    primed = await run(memories, beliefs, budget=30)

    assert COUNTER.count(primed.formatted_context) <= 30
    outcomes = {e.outcome for e in primed.manifest}
    assert outcomes == {Outcome.KEPT, Outcome.OVER_BUDGET}


async def test_nothing_known_is_said_plainly() -> None:
    primed = await run(FakeMemorySources(), FakeObservationSources())

    assert primed.formatted_context == NOTHING_YET
    assert primed.manifest == ()


async def test_a_failing_source_is_reported_and_the_rest_primed() -> None:
    memories, beliefs = sources()
    memories.misbehave.fail.add("open_threads")

    primed = await run(memories, beliefs)

    [missing] = [e for e in primed.manifest if e.outcome is Outcome.SOURCE_UNAVAILABLE]
    assert missing.source is Source.OPEN_THREAD and "open_threads" in missing.reason
    assert "Recent conversations:" in primed.formatted_context


async def test_with_an_initial_message_what_relates_to_it_comes_first_and_is_not_crowded_out() -> None:
    memories, beliefs = sources()
    memories.episodes = [
        EpisodeDigest(f"e-{n}", " ".join(["A long catch-up about many unrelated things."] * 25), "s", NOW, 0.9, 0.5)
        for n in range(3)
    ]

    primed = await run(memories, beliefs, "How is the Lisbon trip with Marta going?", budget=200)

    text = primed.formatted_context
    assert text.splitlines()[1] == "Related to this message:"
    assert "Lisbon trip with Marta is in May" in text, "the related memory fits before the long episodes"
    assert "Recent conversations:" not in text, "the three long episodes come after, and do not fit"


async def test_prime_counts_and_salience_threshold_are_configurable() -> None:
    memories, beliefs = sources()
    limits = PrimeLimits(episodes=3, threads=0, facts=1, min_salience=0.05)

    primed = await prime(
        Scope(user_id="u-1"),
        "",
        600,
        AssemblyServices(memories, beliefs, COUNTER, FixedClock(NOW)),
        timeout=0.2,
        limits=limits,
    )

    assert [i.id for i in primed.recent_context] == ["e-1", "e-0"], "the old episode clears a lower threshold"
    assert primed.open_threads == ()
    assert [i.id for i in primed.salient_facts] == ["f-1"]


async def test_episodes_say_their_outcomes_and_beliefs_how_sure_they_are() -> None:
    memories, beliefs = sources()
    memories.episodes = [
        EpisodeDigest(
            "e-1", "Planned the Lisbon trip.", "s-1", NOW - timedelta(days=2), 0.8, 0.6, ("decision: fly on 3 May",)
        )
    ]
    beliefs.beliefs = [
        Belief(
            "o-1",
            "The user travels mostly for work.",
            "world_fact",
            0.82,
            0.9,
            sources=3,
            last_supported_at=datetime(2026, 2, 20, tzinfo=UTC),
        )
    ]

    primed = await run(memories, beliefs)

    text = primed.formatted_context
    assert "Planned the Lisbon trip. Outcomes: decision: fly on 3 May." in text
    assert "The user travels mostly for work (confidence 0.82, 3 sources, last 2026-02-20)." in text


async def test_a_fact_a_belief_states_is_not_primed_twice() -> None:
    memories, beliefs = sources()
    beliefs.beliefs = [Belief("o-1", "Works at Acme as a data engineer.", "world_fact", 0.9, 0.9)]

    primed = await run(memories, beliefs)

    assert [i.id for i in primed.salient_facts] == ["f-2"]
    assert primed.formatted_context.count("Acme") == 1


async def test_with_an_initial_message_the_episode_about_it_is_primed_before_the_newest() -> None:
    memories, beliefs = sources()
    memories.episodes = [
        EpisodeDigest(f"e-new-{n}", f"Small talk number {n}.", f"s-{n}", NOW - timedelta(hours=n), 0.9, 0.5)
        for n in range(3)
    ] + [EpisodeDigest("e-kyoto", "Planned the Kyoto trip in April.", "s-k", NOW - timedelta(days=40), 0.35, 0.6)]

    primed = await run(memories, beliefs, "How is the Kyoto trip coming along?")

    assert primed.recent_context[0].id == "e-kyoto"
    assert len(primed.recent_context) == 3
    [(ids, _, reason)] = memories.episodes_accessed
    assert "e-kyoto" in ids and reason == "prime"
