"""Erasure's job on fakes: forgetting a user also erases every belief scoped to that user (the
user id travels with each EraseSubject call), whatever the beliefs are about; forgetting an agent
or a team names no user."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_svc.domain.transcript import Scope, Turn, turn_id_for
from agent_svc.domain.turn_loop import TurnResult
from agent_svc.usecases.erasure import ErasureServices, forget_subject, run_erasure
from agent_svc.usecases.sessions import start_session

from tests.fakes import FixedClock
from tests.fakes_agent import FakeSubjectEraser, InMemoryErasureStore, InMemoryTranscript, InMemoryTurnLoop

ORG = "org-a"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class World:
    def __init__(self) -> None:
        self.transcript = InMemoryTranscript()
        self.store = InMemoryErasureStore(self.transcript)
        self.eraser = FakeSubjectEraser()
        self.services = ErasureServices(self.store, self.eraser, FixedClock(T0))

    async def session(self, scope: Scope, said: str) -> str:
        session = await start_session(ORG, scope, {}, f"start-{said}", transcript=self.transcript, clock=FixedClock(T0))
        turn = Turn(turn_id_for(session.id, said), session.id, 0, "user", said, T0, {}, said)
        await self.transcript.append(ORG, session.id, [turn], T0)
        return session.id

    async def forget(self, subject: Scope) -> None:
        erasure = await forget_subject(ORG, "tester", subject, f"forget-{subject}", self.services)
        done = await run_erasure(ORG, erasure.id, self.services)
        assert done is not None and done.status == "completed"


async def test_forgetting_a_user_sends_their_user_id_so_their_scoped_beliefs_go_too() -> None:
    world = World()
    await world.session(Scope(user_id="u-gone", agent_id="aria"), "I'm vegetarian.")
    await world.session(Scope(user_id="u-kept", agent_id="aria"), "I prefer tea.")
    world.eraser.memories = {"m-gone": Scope(user_id="u-gone", agent_id="aria"), "m-kept": Scope(user_id="u-kept")}

    await world.forget(Scope(user_id="u-gone"))

    [call] = world.eraser.observation_erasures
    assert (call.subject_type, call.subject_id, call.user_id) == ("entity", "u-gone", "u-gone")
    assert "m-gone" in call.source_ids and "m-kept" not in call.source_ids
    assert list(world.eraser.memories) == ["m-kept"]


async def test_a_user_with_nothing_in_the_agent_still_has_their_scoped_beliefs_erased() -> None:
    world = World()  # beliefs observed through the API, no session, no memory

    await world.forget(Scope(user_id="u-api-only"))

    [call] = world.eraser.observation_erasures
    assert (call.subject_id, call.source_ids, call.user_id) == ("u-api-only", (), "u-api-only")


async def test_a_user_id_that_is_no_observation_subject_still_erases_their_scoped_beliefs() -> None:
    world = World()

    await world.forget(Scope(user_id="ana maria"))  # a space: not an id the service holds as a subject

    [call] = world.eraser.observation_erasures
    assert call.subject_id.startswith("erasure-") and call.user_id == "ana maria"


async def test_forgetting_an_agent_or_a_team_names_no_user() -> None:
    world = World()
    await world.session(Scope(user_id="u-1", agent_id="aria", team_id="t-1"), "Hello.")

    await world.forget(Scope(agent_id="aria"))
    await world.forget(Scope(team_id="t-2"))

    assert [(c.subject_type, c.subject_id, c.user_id) for c in world.eraser.observation_erasures] == [
        ("agent", "aria", "")
    ], "a team with no sources is no observation subject: nothing to ask"


async def test_cached_contexts_that_showed_an_erased_shared_belief_go_and_a_purge_is_asked_for() -> None:
    world = World()
    world.loop = InMemoryTurnLoop(world.transcript)
    world.store = InMemoryErasureStore(world.transcript, world.loop)
    world.services = ErasureServices(world.store, world.eraser, FixedClock(T0))
    await world.session(Scope(user_id="u-gone"), "I run the Lisbon office.")
    other = await world.session(Scope(user_id="u-kept"), "Who runs Lisbon?")
    [turn] = world.transcript.turns_by_session[(ORG, other)]
    await world.loop.save_result(ORG, other, turn.id, TurnResult(context=b"...belief obs-shared..."), T0)
    world.eraser.shared_erased = ("obs-shared",)

    await world.forget(Scope(user_id="u-gone"))

    assert await world.loop.result(ORG, turn.id) is None, "a retried turn must not replay the erased belief"
    assert world.eraser.purges_requested == 1
    [erasure] = world.store.erasures.values()
    assert erasure.counts["cached_contexts"] == 1
