"""Private by scope at use-case level: AssembleContext and Prime for one user of an org whose other
users have memories, episodes, open threads and beliefs show that user's records and the org's
shared ones, never another user's — a brand-new user sees only the org's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from assembler_svc.adapters.grpc_sources import observation_scope, shown_in_context
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.gathered import Belief, EpisodeDigest, RecalledMemory, Scope, ThreadDigest
from assembler_svc.domain.model import Source
from assembler_svc.usecases.assemble_context import AssembleInput, assemble_context
from assembler_svc.usecases.ports import AssemblyServices
from assembler_svc.usecases.prime import prime
from lore.common.v1 import scope_pb2
from lore.observations.v1 import observation_service_pb2 as opb

from tests.fakes import FixedClock
from tests.fakes_assembler import FakeMemorySources, FakeObservationSources

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
ANN = Scope(user_id="u-ann", agent_id="aria")
BOB = Scope(user_id="u-bob", agent_id="aria")
NEWCOMER = Scope(user_id="u-new", agent_id="aria")
ORG = Scope()
MESSAGE = "what about the Lisbon offsite and the Postgres migration"


def memory(id_: str, content: str, memory_type: str = "fact") -> RecalledMemory:
    return RecalledMemory(id_, content, memory_type, 0.0, 0.9, 0.8, NOW - timedelta(days=1), entities=("lisbon",))


def org_with_two_users() -> tuple[FakeMemorySources, FakeObservationSources]:
    """Ann's (``alvaro-*`` ids and texts), Bob's (``bertil-*``) and the org's (``shared-*``) records,
    each on the same topics, so each would rank."""
    memories, beliefs = FakeMemorySources(), FakeObservationSources()
    for owner, scope in (("alvaro", ANN), ("bertil", BOB), ("shared", ORG)):
        memories.add_memory(memory(f"{owner}-fact", f"{owner}: the Lisbon offsite is in May"), scope)
        memories.add_memory(
            memory(f"{owner}-pref", f"{owner}: prefers Postgres for the migration", "preference"), scope
        )
        memories.add_memory(
            memory(f"{owner}-said", f"{owner}: Lisbon offsite and Postgres migration", "message"), scope
        )
        memories.add_episode(
            EpisodeDigest(
                f"{owner}-episode", f"{owner} planned the Lisbon offsite.", "c", NOW - timedelta(hours=2), 0.9, 0.8
            ),
            scope,
            [ThreadDigest(f"{owner}-episode", "c", f"{owner}'s venue", "open", NOW - timedelta(hours=2))],
        )
        beliefs.add_belief(
            Belief(f"{owner}-belief", f"{owner}: the Postgres migration is half done", "project_state", 0.9, 0.9), scope
        )
    return memories, beliefs


def owners(ids) -> set[str]:
    """Whose records these are: the id's prefix (an open thread's id starts with its episode's)."""
    return {item_id.split("-", 1)[0] for item_id in ids if item_id}


async def assembled(scope: Scope):
    memories, beliefs = org_with_two_users()
    result = await assemble_context(
        AssembleInput(scope=scope, message=MESSAGE),
        AssemblyServices(memories, beliefs, TiktokenCounter(), FixedClock(NOW)),
        timeout=0.5,
        engagement_agents=frozenset({"aria"}),
    )
    return result.assembly


async def primed(scope: Scope, initial_message: str):
    memories, beliefs = org_with_two_users()
    return await prime(
        scope,
        initial_message,
        1_000,
        AssemblyServices(memories, beliefs, TiktokenCounter(), FixedClock(NOW)),
        timeout=0.5,
    )


async def test_a_users_context_shows_their_records_and_the_orgs_never_another_users() -> None:
    assembly = await assembled(ANN)

    stored = [e for e in assembly.manifest if e.source not in (Source.CALLER, Source.ENGAGEMENT)]
    assert owners(e.id for e in stored) == {"alvaro", "shared"}
    assert "bertil" not in assembly.text
    assert {e.source for e in stored} == {Source.MEMORY, Source.EPISODE, Source.OPEN_THREAD, Source.OBSERVATION}


async def test_a_brand_new_users_context_shows_nothing_of_the_orgs_other_users() -> None:
    assembly = await assembled(NEWCOMER)

    stored = [e for e in assembly.manifest if e.source not in (Source.CALLER, Source.ENGAGEMENT)]
    assert owners(e.id for e in stored) == {"shared"}
    assert "alvaro" not in assembly.text and "bertil" not in assembly.text


@pytest.mark.parametrize("initial_message", ["", MESSAGE])
async def test_a_brand_new_users_priming_shows_nothing_of_the_orgs_other_users(initial_message) -> None:
    priming = await primed(NEWCOMER, initial_message)

    assert priming.manifest, "the org's shared records are primed"
    assert owners(e.id for e in priming.manifest) == {"shared"}
    assert "alvaro" not in priming.formatted_context and "bertil" not in priming.formatted_context


@pytest.mark.parametrize("initial_message", ["", MESSAGE])
async def test_a_users_priming_shows_their_records_and_the_orgs_never_another_users(initial_message) -> None:
    priming = await primed(ANN, initial_message)

    assert owners(e.id for e in priming.manifest) == {"alvaro", "shared"}
    assert "bertil" not in priming.formatted_context


@pytest.mark.parametrize(
    ("context", "record", "shown"),
    [
        (ANN, ANN, True),
        (ANN, ORG, True),  # the org's shared records reach every user's context
        (ANN, Scope(agent_id="aria"), True),
        (ANN, Scope(user_id="u-ann"), True),  # the user's, of no agent
        (ANN, BOB, False),  # another user's: never
        (ANN, Scope(user_id="u-bob"), False),
        (ANN, Scope(user_id="u-ann", agent_id="other"), False),  # what the user told another agent
        (ANN, Scope(user_id="u-ann", agent_id="aria", team_id="t-1"), False),  # a team the context is not in
        (Scope(user_id="u-ann", agent_id="aria", team_id="t-1"), Scope(team_id="t-1"), True),
        (Scope(user_id="u-ann", agent_id="aria", team_id="t-1"), Scope(team_id="t-2"), False),
        (Scope(agent_id="aria"), ANN, False),  # a context without a user sees no user's records
        (Scope(agent_id="aria"), ORG, True),
        (Scope(user_id="u-ann"), Scope(user_id="u-ann", agent_id="other"), True),  # no agent named: any agent
        (ORG, Scope(agent_id="other"), True),
        (ORG, ANN, False),
    ],
)
def test_the_context_match(context: Scope, record: Scope, shown: bool) -> None:
    assert context.shows(record) is shown


def test_engagement_is_shown_only_for_a_listed_agent() -> None:
    assert ANN.engages({"aria"}) and not ANN.engages(set()) and not ANN.engages({"other"})
    assert not Scope(user_id="u-ann").engages({"aria", ""}), "a scope without an agent never engages"


def test_the_adapters_drop_what_a_service_returned_outside_the_context(caplog) -> None:
    def observation(id_: str, user_id: str = "", unattributed: bool = False) -> opb.Observation:
        return opb.Observation(
            id=id_, agent_id="aria", scope=scope_pb2.Scope(user_id=user_id, agent_id="aria"), unattributed=unattributed
        )

    found = [observation("ann", "u-ann"), observation("bob", "u-bob"), observation("org"), observation("old", "", True)]

    kept = shown_in_context(ANN, found, observation_scope, "beliefs")

    assert [o.id for o in kept] == ["ann", "org"], "another user's and unattributed beliefs never reach a context"
    assert "dropped 2 beliefs" in caplog.text
