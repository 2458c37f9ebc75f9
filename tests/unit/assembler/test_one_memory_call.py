"""The memory service's sources of a context, a Prime and a profile are read in one gather and
what was kept is written in one call; the episode search of the gather reuses recall's vector."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.gathered import EpisodeDigest, QueryVector, RecalledMemory, Scope, SessionState
from assembler_svc.domain.memory_reads import MemoryReads
from assembler_svc.usecases.assemble_context import AssembleInput, assemble_context
from assembler_svc.usecases.ports import AssemblyServices
from assembler_svc.usecases.prime import prime
from assembler_svc.usecases.user_profile import ProfileInput, user_profile

from tests.fakes import FixedClock
from tests.fakes_assembler import FakeMemorySources, FakeObservationSources

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
ANN = Scope(user_id="u-ann", agent_id="aria")


class RecordingMemory(FakeMemorySources):
    """The fake, remembering what each gather asked for and the vector each episode search got."""

    def __init__(self, **values) -> None:
        super().__init__(**values)
        self.asked: list[MemoryReads] = []
        self.search_vectors: list[QueryVector | None] = []

    async def gather(self, reads, *, timeout):
        self.asked.append(reads)
        return await super().gather(reads, timeout=timeout)

    async def search_episodes(self, query, scope, k, min_salience, *, query_vector=None, timeout):
        self.search_vectors.append(query_vector)
        return await super().search_episodes(query, scope, k, min_salience, query_vector=query_vector, timeout=timeout)


def world() -> tuple[RecordingMemory, FakeObservationSources, AssemblyServices]:
    memory = RecordingMemory()
    memory.add_memory(fact("m-1", "Ann is building a garden shed from cedar"), ANN)
    memory.add_memory(fact("m-2", "Ann prefers working on the shed at weekends", "preference"), ANN)
    memory.add_episode(
        EpisodeDigest("e-1", "Ann planned the garden shed roof.", "c-1", NOW - timedelta(days=1), 0.9, 0.7), ANN
    )
    memory.sessions["s-1"] = SessionState(summary="Planning the shed.")
    beliefs = FakeObservationSources()
    return memory, beliefs, AssemblyServices(memory, beliefs, TiktokenCounter(), FixedClock(NOW))


def fact(id_: str, content: str, memory_type: str = "fact") -> RecalledMemory:
    return RecalledMemory(id_, content, memory_type, 0.0, 0.9, 0.7, NOW - timedelta(days=2))


async def test_a_context_reads_the_memory_service_once_and_writes_once() -> None:
    memory, _, services = world()

    result = await assemble_context(
        AssembleInput(message="How is the garden shed going?", scope=ANN, session_id="s-1"), services, timeout=1.0
    )

    [asked] = memory.asked
    assert asked.asked() == (
        "working_memory",
        "recall",
        "recent_episodes",
        "episode_search",
        "open_threads",
        "user_facts",
    ), "the profile's user facts come in the context's own gather"
    assert memory.misbehave.calls.count("gather") == 1 and memory.misbehave.calls.count("record_use") == 1
    assert memory.search_vectors == [QueryVector((29.0, 6.0), "fake-words")], "recall's vector, not a new one"
    assert "garden shed" in result.assembly.text
    [(kept, session, reason)] = memory.accessed
    assert session == "s-1" and reason == "assembled_context" and kept
    assert memory.sessions["s-1"].fingerprint == result.assembly.fingerprint


async def test_a_prime_and_a_profile_read_the_memory_service_once_each() -> None:
    memory, _, services = world()

    primed = await prime(ANN, "Any news on the shed?", 400, services, timeout=1.0)
    primed_asked = memory.asked.pop()
    profile = await user_profile(ProfileInput(ANN), services, timeout=1.0)

    assert primed_asked.asked() == ("recall", "recent_episodes", "episode_search", "open_threads", "salient_facts")
    assert [reads.asked() for reads in memory.asked] == [("user_facts",)]
    assert memory.misbehave.calls.count("gather") == 2 and memory.misbehave.calls.count("record_use") == 1
    assert "garden shed" in primed.formatted_context and "cedar" in profile.text


async def test_a_failed_write_of_a_contexts_use_leaves_the_others_and_the_context() -> None:
    memory, _, services = world()
    memory.misbehave.fail.add("record_access")

    result = await assemble_context(
        AssembleInput(message="How is the garden shed going?", scope=ANN, session_id="s-1"), services, timeout=1.0
    )

    assert memory.accessed == [] and memory.episodes_accessed, "the episodes' access is still written"
    assert memory.sessions["s-1"].fingerprint == result.assembly.fingerprint, "and the fingerprint"
    assert "garden shed" in result.assembly.text
