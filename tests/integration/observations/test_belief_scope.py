# ruff: noqa: F811  (pytest fixtures imported from the servicer suite are parameters here)
"""Beliefs carry their scope: two users' beliefs of one key are two beliefs, a context's
search never sees another user's, browsing filters by the ids given, erasure by user, export and
import keep the scope, and the migration attributes beliefs recorded before scopes."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from datetime import UTC, datetime

import asyncpg
import grpc
import pytest
from lore.common.v1 import scope_pb2
from lore.observations.v1 import observation_service_pb2 as pb
from lore_devstack import DatabaseUrls
from lore_migrations import discover, migrate
from lore_runtime.page_tokens import PageTokens
from lore_runtime.stores import open_postgres
from observations_svc.adapters.postgres.observation_store import PostgresObservationStore
from observations_svc.domain.model import BeliefScope, Candidate, EvidenceDraft
from observations_svc.usecases import observe as observe_usecase
from observations_svc.usecases import read
from observations_svc.usecases.ports import QueryFilters, SearchFilters

from tests.backends import fresh_database
from tests.fakes import FixedClock, HashingEmbedder

# The servicer suite's fixtures (a running service on Postgres and its stub), shared rather than copied.
from tests.integration.observations.test_observation_servicer import candidate, running, stub, tenant  # noqa: F401

AGENT = "agent-1"
ACTIVE = pb.OBSERVATION_STATUS_ACTIVE


def copied(observations: list[pb.Observation]) -> list[pb.Observation]:
    """The observations with new ids (their evidence too), for another org: ids are global."""
    copies = []
    for original in observations:
        copy = pb.Observation()
        copy.CopyFrom(original)
        copy.id = str(uuid.uuid4())
        for evidence in copy.evidence:
            evidence.id, evidence.observation_id = str(uuid.uuid4()), copy.id
        copies.append(copy)
    return copies


async def exported(stub, org_id: str) -> list[pb.Observation]:
    stream = stub.ExportObservations(pb.ExportObservationsRequest(), metadata=tenant(org_id))
    return [observation async for page in stream for observation in page.observations]


async def observe(stub, org_id: str, summary: str, user_id: str = "", **kwargs) -> pb.ObserveResponse:
    request = pb.ObserveRequest(
        agent_id=AGENT, candidate=candidate(summary, **kwargs), scope=scope_pb2.Scope(user_id=user_id)
    )
    return await stub.Observe(request, metadata=tenant(org_id), timeout=10)


async def search(stub, org_id: str, query: str, **fields) -> list[pb.Observation]:
    request = pb.SearchObservationsRequest(query=query, k=50, **fields)
    return [hit.observation for hit in (await stub.SearchObservations(request, metadata=tenant(org_id))).results]


async def query(stub, org_id: str, **fields) -> list[pb.Observation]:
    request = pb.QueryObservationsRequest(page_size=100, **fields)
    return list((await stub.QueryObservations(request, metadata=tenant(org_id))).observations)


async def test_two_users_beliefs_of_one_key_are_two_beliefs_each_with_its_own_life(stub, org_id):
    ana = await observe(stub, org_id, "Prefers Postgres.", "ana")
    bo = await observe(stub, org_id, "Prefers MySQL.", "bo")
    ana_again = await observe(stub, org_id, "Prefers Postgres.", "ana", source_id="turn-2")
    bo_changed = await observe(stub, org_id, "Prefers SQLite.", "bo", source_id="turn-3")

    assert (ana.outcome, bo.outcome) == (pb.OBSERVE_OUTCOME_CREATED, pb.OBSERVE_OUTCOME_CREATED)
    assert ana.observation.canonical_key == bo.observation.canonical_key
    assert ana_again.outcome == pb.OBSERVE_OUTCOME_SUPPORTED and ana_again.observation.id == ana.observation.id
    assert bo_changed.outcome == pb.OBSERVE_OUTCOME_SUPERSEDED
    assert bo_changed.observation.scope.user_id == "bo"
    assert bo_changed.observation.supersedes_observation_id == bo.observation.id
    assert ana_again.observation.status == pb.OBSERVATION_STATUS_ACTIVE


async def test_a_contexts_search_shows_the_users_and_the_orgs_beliefs_never_another_users(stub, org_id):
    await observe(stub, org_id, "Prefers Postgres for databases.", "ana", slot="db")
    await observe(stub, org_id, "Prefers MySQL for databases.", "bo", slot="db")
    await observe(stub, org_id, "The team standard for databases is Postgres.", slot="standard")

    for_ana = await search(stub, org_id, "databases", agent_id=AGENT, user_id="ana")
    no_agent = await search(stub, org_id, "databases", user_id="ana")
    no_user = await search(stub, org_id, "databases", agent_id=AGENT)

    assert {o.scope.user_id for o in for_ana} == {"ana", ""} and len(for_ana) == 2
    assert {o.scope.user_id for o in no_agent} == {"ana", ""}
    assert {o.scope.user_id for o in no_user} == {""}


async def test_a_search_with_embeddings_keeps_the_context_rule(stub, org_id):
    """Asking for the vectors changes what each result carries, never which beliefs come back."""
    await observe(stub, org_id, "Prefers Postgres for databases.", "ana", slot="db")
    await observe(stub, org_id, "Prefers MySQL for databases.", "bo", slot="db")
    await observe(stub, org_id, "The team standard for databases is Postgres.", slot="standard")

    async def searched(**fields: str) -> list[tuple[str, int]]:
        request = pb.SearchObservationsRequest(query="databases", k=50, include_embeddings=True, **fields)
        results = (await stub.SearchObservations(request, metadata=tenant(org_id))).results
        return sorted((result.observation.scope.user_id, len(result.embedding)) for result in results)

    assert await searched(agent_id=AGENT, user_id="ana") == [("", 384), ("ana", 384)]
    assert await searched(agent_id=AGENT) == [("", 384)]
    assert await searched(user_id="bo") == [("", 384), ("bo", 384)]


async def test_browsing_filters_by_the_ids_given_and_no_agent_means_every_agent(stub, org_id):
    await observe(stub, org_id, "Prefers Postgres.", "ana")
    await observe(stub, org_id, "Prefers MySQL.", "bo")
    other_agent = pb.ObserveRequest(agent_id="agent-2", candidate=candidate("Likes tea."), scope={"user_id": "ana"})
    await stub.Observe(other_agent, metadata=tenant(org_id))

    # ARCHITECTURE.md §6: subject, kind and status, no agent.
    architecture_example = await query(
        stub,
        org_id,
        subject_id="user-42",
        kind=pb.OBSERVATION_KIND_OPERATOR_PREFERENCE,
        status=pb.OBSERVATION_STATUS_ACTIVE,
    )
    anas = await query(stub, org_id, user_id="ana")
    context = await query(stub, org_id, agent_id=AGENT, user_id="ana", scope_match=scope_pb2.SCOPE_MATCH_CONTEXT)

    assert len(architecture_example) == 3
    assert sorted(o.agent_id for o in anas) == [AGENT, "agent-2"] and {o.scope.user_id for o in anas} == {"ana"}
    assert [o.summary for o in context] == ["Prefers Postgres."]


async def test_a_scope_naming_another_agent_is_refused_naming_the_field(stub, org_id):
    request = pb.ObserveRequest(agent_id=AGENT, candidate=candidate("x"), scope={"agent_id": "agent-2"})

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.Observe(request, metadata=tenant(org_id))

    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "scope.agent_id" in refused.value.details()


async def test_erasing_a_user_removes_every_belief_scoped_to_them_and_leaves_the_others(stub, org_id):
    project = dict(slot="launch")
    await observe(stub, org_id, "Launch is in May.", "ana", **project)
    await observe(stub, org_id, "Launch is in June.", "bo", **project)
    erase = pb.EraseSubjectRequest(
        subject_type=pb.SUBJECT_TYPE_ENTITY, subject_id="ana", user_id="ana", request_id=f"erase-{uuid.uuid4()}"
    )

    erased = await stub.EraseSubject(erase, metadata=tenant(org_id))

    assert erased.observations_erased == 1
    assert [o.scope.user_id for o in await query(stub, org_id)] == ["bo"]


async def test_export_then_import_into_another_org_keeps_scope_and_attribution(stub, org_id):
    await observe(stub, org_id, "Prefers Postgres.", "ana")
    await observe(stub, org_id, "Shared fact.", slot="shared")
    copy = f"{org_id}-copy"

    request = pb.ImportObservationsRequest(observations=copied(await exported(stub, org_id)))
    await stub.ImportObservations(request, metadata=tenant(copy))
    restored = await query(stub, copy)

    assert sorted((o.summary, o.scope.user_id, o.unattributed) for o in restored) == [
        ("Prefers Postgres.", "ana", False),
        ("Shared fact.", "", False),
    ]


async def test_an_export_line_from_before_scopes_is_read_as_the_migration_reads_old_rows(stub, org_id):
    await observe(stub, org_id, "Prefers Postgres.", "user-42")
    [entity] = copied(await exported(stub, org_id))
    entity.ClearField("scope")
    project = pb.Observation()
    project.CopyFrom(entity)
    project.id, project.subject_type, project.subject_id = str(uuid.uuid4()), pb.SUBJECT_TYPE_PROJECT, "apollo"
    project.canonical_key = "project:apollo:operator_preference:database"
    project.ClearField("evidence")
    copy = f"{org_id}-old"

    await stub.ImportObservations(pb.ImportObservationsRequest(observations=[entity, project]), metadata=tenant(copy))
    restored = {o.subject_id: o for o in await query(stub, copy)}

    assert (restored["user-42"].scope.user_id, restored["user-42"].unattributed) == ("user-42", False)
    assert (restored["apollo"].scope.user_id, restored["apollo"].unattributed) == ("", True)
    assert await search(stub, copy, "Postgres", agent_id=AGENT) == []


@contextlib.asynccontextmanager
async def legacy_database(superuser_dsn: str) -> AsyncIterator[DatabaseUrls]:
    """A database migrated to 0004 holding two beliefs of org ``acme`` and agent ``aria`` as the old
    schema stored them (``entity:user-42`` and ``project:apollo``), then migrated to the end."""
    migrations = discover("observations_svc")
    now = datetime.now(UTC)
    async with fresh_database(superuser_dsn, prefix="lore_scope") as urls:
        await migrate(urls.owner_dsn, "observations", [m for m in migrations if m.version < 5])
        connection = await asyncpg.connect(urls.owner_dsn)
        try:
            for subject_type, subject_id in (("entity", "user-42"), ("project", "apollo")):
                await connection.execute(
                    """
                    INSERT INTO observations.observations
                        (id, org_id, agent_id, kind, subject_type, subject_id, slot, canonical_key, summary,
                         confidence, confidence_components, freshness, revalidation_due_at, status, embedding,
                         created_at, updated_at)
                    VALUES ($1, 'acme', 'aria', 'world_fact', $2, $3, 'fact', $4, 'An old belief.', 0.5, $5, 1,
                            $6, 'active', $7::halfvec, $6, $6)
                    """,
                    uuid.uuid4(),
                    subject_type,
                    subject_id,
                    f"{subject_type}:{subject_id}:world_fact:fact",
                    json.dumps({}),
                    now,
                    "[" + ",".join(["0.05"] * 384) + "]",
                )
        finally:
            await connection.close()
        await migrate(urls.owner_dsn, "observations", migrations)
        yield urls


async def test_the_migration_gives_old_entity_beliefs_to_their_user_and_leaves_the_rest_unattributed(
    pg_superuser_dsn,
):
    async with legacy_database(pg_superuser_dsn) as urls:
        connection = await asyncpg.connect(urls.owner_dsn)
        try:
            rows = await connection.fetch(
                "SELECT subject_id, user_id, unattributed FROM observations.observations ORDER BY subject_id"
            )
        finally:
            await connection.close()

    assert [tuple(row) for row in rows] == [("apollo", "", True), ("user-42", "user-42", False)]


async def test_migrated_beliefs_read_by_the_service_unattributed_ones_never_in_a_context(pg_superuser_dsn):
    """As lore_app, through the adapter: the old project belief is listed by a browse but never by a
    search or a context query, and observing its key again starts an attributed belief beside it."""
    embedder, clock = HashingEmbedder(384), FixedClock()
    async with legacy_database(pg_superuser_dsn) as urls, AsyncExitStack() as stack:
        store = PostgresObservationStore(await open_postgres(stack, urls.app_dsn, vectors=True))
        evidence = (EvidenceDraft("support", 1.0, "message", "turn-1", "", clock.now()),)
        project = Candidate(
            "world_fact", "project", "apollo", "fact", "An old belief, observed again.", "", (), evidence
        )

        async def searched(**scope: str) -> list[tuple[str, str]]:
            hits = await read.search_observations(
                "acme", "old belief", SearchFilters(**scope), 10, store=store, embedder=embedder
            )
            return sorted((hit.observation.subject_id, hit.observation.summary) for hit in hits)

        async def listed(filters: QueryFilters) -> list[tuple[str, bool]]:
            rows, _ = await read.query_observations("acme", filters, 10, "", store=store, tokens=PageTokens())
            return sorted((row.subject_id, row.unattributed) for row in rows)

        before = await searched(agent_id="aria")
        fresh, outcome = await observe_usecase.observe(
            "acme", BeliefScope("aria"), project, store=store, embedder=embedder, clock=clock
        )
        after = {
            "user-42's context": await searched(agent_id="aria", user_id="user-42"),
            "the org's context": await searched(agent_id="aria"),
            "another user's context": await searched(agent_id="aria", user_id="user-7"),
        }
        context = await listed(QueryFilters(agent_id="aria", context=True))
        browse = await listed(QueryFilters(agent_id="aria"))

    old, new = "An old belief.", "An old belief, observed again."
    assert before == []
    assert (outcome, fresh.unattributed, fresh.supersedes_observation_id) == ("created", False, None)
    assert after == {
        "user-42's context": [("apollo", new), ("user-42", old)],
        "the org's context": [("apollo", new)],
        "another user's context": [("apollo", new)],
    }
    assert context == [("apollo", False)]
    assert browse == [("apollo", False), ("apollo", True), ("user-42", False)]


async def test_feedback_by_id_acts_on_one_users_belief_and_leaves_the_others(stub, org_id):
    ana = (await observe(stub, org_id, "Prefers Postgres.", "ana", slot="feedback")).observation
    bo = (await observe(stub, org_id, "Prefers Postgres.", "bo", slot="feedback")).observation
    evidence = pb.EvidenceInput(source_type=pb.SOURCE_TYPE_MESSAGE, source_id="turn-9", weight=5.0)

    contradicted = await stub.ContradictObservation(
        pb.ContradictObservationRequest(id=ana.id, evidence=evidence, correction="Prefers SQLite."),
        metadata=tenant(org_id),
    )
    confirmed = await stub.ConfirmObservation(pb.ConfirmObservationRequest(id=bo.id), metadata=tenant(org_id))
    current = {o.scope.user_id: o for o in await query(stub, org_id, canonical_key=ana.canonical_key, status=ACTIVE)}

    assert contradicted.outcome == pb.OBSERVE_OUTCOME_SUPERSEDED
    assert (contradicted.observation.scope.user_id, contradicted.observation.unattributed) == ("ana", False)
    assert contradicted.observation.scope.agent_id == AGENT
    assert confirmed.observation.id == bo.id and confirmed.observation.confidence > bo.confidence
    assert (current["ana"].summary, current["bo"].summary) == ("Prefers SQLite.", "Prefers Postgres.")


async def test_an_unattributed_belief_round_trips_exactly_through_export_and_import(stub, org_id):
    await observe(stub, org_id, "Team habit.", slot="habit")
    [line] = copied(await exported(stub, org_id))
    line.unattributed, line.scope.team_id = True, "team-7"
    restore_org, copy_org = f"{org_id}-restore", f"{org_id}-copy"

    await stub.ImportObservations(pb.ImportObservationsRequest(observations=[line]), metadata=tenant(restore_org))
    [again] = copied(await exported(stub, restore_org))
    await stub.ImportObservations(pb.ImportObservationsRequest(observations=[again]), metadata=tenant(copy_org))
    [restored] = await query(stub, copy_org)

    assert (restored.scope.agent_id, restored.scope.user_id, restored.scope.team_id) == (AGENT, "", "team-7")
    assert restored.unattributed
    assert await search(stub, copy_org, "habit", agent_id=AGENT, team_id="team-7") == []


async def test_an_import_line_whose_scope_names_another_agent_is_refused_naming_the_field(stub, org_id):
    await observe(stub, org_id, "Prefers Postgres.", "ana", slot="wrong")
    [line] = copied(await exported(stub, org_id))
    line.scope.agent_id = "agent-2"

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.ImportObservations(pb.ImportObservationsRequest(observations=[line]), metadata=tenant(org_id))

    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "observations[0].scope.agent_id" in refused.value.details()


async def test_scope_ids_with_control_characters_are_refused_naming_the_field(stub, org_id):
    request = pb.ObserveRequest(agent_id=AGENT, candidate=candidate("x"), scope={"user_id": "ana\n"})

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.Observe(request, metadata=tenant(org_id))

    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "scope.user_id" in refused.value.details()


async def test_a_scope_naming_the_agent_stands_for_an_empty_agent_id(stub, org_id):
    request = pb.ObserveRequest(candidate=candidate("Prefers Postgres."), scope={"agent_id": AGENT, "user_id": "ana"})

    observed = await stub.Observe(request, metadata=tenant(org_id))

    assert (observed.observation.agent_id, observed.observation.scope.agent_id) == (AGENT, AGENT)
