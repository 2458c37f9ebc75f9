"""StartSession with its Prime (seed 001: priming is called when a conversation starts), on fakes:
the session is durable first, the Prime is of the session's scope, an assembler that cannot make
it costs the Prime and never the session, and a request id never hands over another scope's
session (nor primes from it)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.api.agent_convert import started_to_pb
from agent_svc.domain.transcript import Scope, Session
from agent_svc.domain.turn_loop import Opaque
from agent_svc.usecases.sessions import Started, start_and_prime
from lore.assembler.v1 import assembler_service_pb2
from lore_runtime.errors import AlreadyExists, InvalidArgument, LoreError

from tests.fakes import FixedClock
from tests.fakes_agent import FakeContextAssembler, InMemoryTranscript

ORG = "org-a"
ANA = Scope(user_id="ana", agent_id="aria")
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class World:
    def __init__(self) -> None:
        self.transcript = InMemoryTranscript()
        self.assembler = FakeContextAssembler()
        self.clock = FixedClock(T0)

    async def start(
        self, scope: Scope = ANA, request_id: str = "", initial_message: str = "", include_prime: bool = False
    ) -> Started:
        return await start_and_prime(
            ORG,
            scope,
            {"channel": "web"},
            request_id,
            initial_message,
            include_prime,
            transcript=self.transcript,
            clock=self.clock,
            assembler=self.assembler,
        )

    def sessions(self) -> list:
        return list(self.transcript.sessions.values())


@pytest.fixture
def world() -> World:
    return World()


async def test_a_start_that_asks_for_nothing_is_not_primed(world: World) -> None:
    started = await world.start()

    assert started.prime is None and started.prime_unavailable is False
    assert world.assembler.calls == []
    assert world.sessions() == [started.session]


async def test_an_initial_message_primes_the_sessions_scope_with_it(world: World) -> None:
    started = await world.start(initial_message="  Any news on the Lisbon flat?  ")

    assert started.prime == Opaque(b"prime:ana:Any news on the Lisbon flat?")
    assert world.assembler.primed == [(ANA, "Any news on the Lisbon flat?")]
    assert started.session.scope == ANA and world.sessions() == [started.session]


async def test_include_prime_primes_without_an_initial_message(world: World) -> None:
    started = await world.start(include_prime=True)

    assert started.prime == Opaque(b"prime:ana:") and world.assembler.primed == [(ANA, "")]


async def test_an_initial_message_over_the_primes_limit_writes_nothing(world: World) -> None:
    with pytest.raises(InvalidArgument) as refused:
        await world.start(initial_message="x" * 4_001)

    assert refused.value.field == "initial_message" and "4000" in refused.value.description
    assert world.sessions() == [] and world.assembler.calls == []


@pytest.mark.parametrize(
    "failure",
    ["down", LoreError("assembler bug", reason="INTERNAL"), InvalidArgument("scope.user_id", "too long")],
)
async def test_an_assembler_that_cannot_prime_costs_the_prime_never_the_session(world: World, failure) -> None:
    if failure == "down":
        world.assembler.down = True
    else:
        world.assembler.error = failure

    started = await world.start(request_id="r-1", initial_message="hello")

    assert started.prime is None and started.prime_unavailable is True
    assert world.sessions() == [started.session] and started.session.status == "active"
    response = started_to_pb(started)
    assert response.prime_unavailable and not response.HasField("prime")


async def test_a_retried_start_returns_the_same_session_with_a_fresh_prime(world: World) -> None:
    first = await world.start(request_id="r-1", initial_message="hello")
    retried = await world.start(request_id="r-1", initial_message="hello")

    assert retried.session == first.session and len(world.sessions()) == 1
    assert retried.prime == first.prime and len(world.assembler.primed) == 2


async def test_a_request_id_of_another_scopes_session_is_refused_and_primes_nothing(world: World) -> None:
    anas = await world.start(request_id="r-1")

    with pytest.raises(AlreadyExists) as refused:
        await world.start(Scope(user_id="bo", agent_id="aria"), request_id="r-1", include_prime=True)

    assert refused.value.reason == "REQUEST_ID_REUSED" and refused.value.metadata == {"field": "request_id"}
    assert anas.session.id not in refused.value.message
    assert world.sessions() == [anas.session] and world.assembler.calls == []


def test_the_prime_reaches_the_caller_as_the_assembler_answered_it() -> None:
    prime = assembler_service_pb2.PrimeResponse(formatted_context="What I remember: Ana is vegetarian.")
    prime.entities.append("Ana")
    session = Session("s-1", ORG, ANA, "active", T0, T0)

    response = started_to_pb(Started(session, Opaque(prime)))

    assert response.prime == prime and response.prime_unavailable is False
    assert response.session.id == session.id
    assert not started_to_pb(Started(session)).HasField("prime")
