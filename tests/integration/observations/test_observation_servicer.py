"""The ObservationService through real gRPC stubs on the embedded Postgres (pgvector), as lore_app."""

import asyncio
from contextlib import AsyncExitStack

import grpc
import numpy as np
import observations_svc.bootstrap
import observations_svc.config
import observations_svc.server
import pytest
from lore.observations.v1 import observation_service_pb2 as pb
from lore.observations.v1 import observation_service_pb2_grpc
from lore_runtime.stores import open_postgres
from observations_svc.adapters.postgres.observation_store import PostgresObservationStore
from observations_svc.domain.model import BeliefScope, Candidate, EvidenceDraft
from observations_svc.usecases import observe, read
from observations_svc.usecases.ports import SearchFilters

from tests.fakes import FixedClock, HashingEmbedder
from tests.grpc_harness import start_service


@pytest.fixture(scope="module")
async def running(migrated_pg):
    clock = FixedClock()
    embedder = HashingEmbedder(384)
    async with AsyncExitStack() as stack:
        service = await start_service(
            stack,
            "observations",
            observations_svc.bootstrap,
            observations_svc.server,
            observations_svc.config.Settings,
            {"LORE_DATABASE_URL": migrated_pg.app_dsn, "LORE_REVALIDATION_INTERVAL_SECONDS": "0"},
            overrides=observations_svc.bootstrap.ObservationsOverrides(embedder=embedder, clock=clock),
        )
        yield service, clock, embedder


@pytest.fixture
def stub(running):
    return observation_service_pb2_grpc.ObservationServiceStub(running[0].channel)


@pytest.fixture
def clock(running):
    return running[1]


def tenant(org_id: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org_id), ("x-lore-principal", "operator-ann"))


def candidate(
    summary: str, *, slot: str = "database", source_id: str = "turn-1", **evidence
) -> pb.ObservationCandidate:
    return pb.ObservationCandidate(
        kind=pb.OBSERVATION_KIND_OPERATOR_PREFERENCE,
        subject_type=pb.SUBJECT_TYPE_ENTITY,
        subject_id="user-42",
        slot=slot,
        summary=summary,
        tags=["db"],
        evidence=[
            pb.EvidenceInput(
                stance=pb.EVIDENCE_STANCE_SUPPORT, source_type=pb.SOURCE_TYPE_MESSAGE, source_id=source_id, **evidence
            )
        ],
    )


async def _observe(stub, org_id, summary, **kwargs) -> pb.ObserveResponse:
    return await stub.Observe(
        pb.ObserveRequest(agent_id="agent-1", candidate=candidate(summary, **kwargs)),
        metadata=tenant(org_id),
        timeout=10,
    )


async def test_observe_creates_then_supports_with_a_code_built_key(stub, org_id, clock):
    created = await _observe(stub, org_id, "Prefers Postgres.")
    clock.advance(seconds=1)
    assert created.outcome == pb.OBSERVE_OUTCOME_CREATED
    assert created.observation.canonical_key == "entity:user-42:operator_preference:database"
    supported = await _observe(stub, org_id, "prefers postgres", source_id="turn-2")
    assert supported.outcome == pb.OBSERVE_OUTCOME_SUPPORTED
    assert supported.observation.id == created.observation.id
    assert supported.observation.confidence > created.observation.confidence
    assert supported.observation.confidence_components.source_count == 2
    got = await stub.GetObservation(pb.GetObservationRequest(id=created.observation.id), metadata=tenant(org_id))
    assert [item.source_id for item in got.observation.evidence] == ["turn-1", "turn-2"]


async def test_a_repeated_claim_is_supported_without_running_the_model(stub, org_id, running):
    embedder = running[2]
    await _observe(stub, org_id, "Prefers Postgres.", slot="store")
    calls = len(embedder.calls)
    supported = await _observe(stub, org_id, "prefers postgres", slot="store", source_id="turn-2")
    assert supported.outcome == pb.OBSERVE_OUTCOME_SUPPORTED
    assert len(embedder.calls) == calls
    challenged = await _observe(stub, org_id, "Prefers MySQL.", slot="store", source_id="turn-3")
    assert challenged.outcome in (pb.OBSERVE_OUTCOME_CONTRADICTED, pb.OBSERVE_OUTCOME_SUPERSEDED)
    assert len(embedder.calls) == calls + 1


async def test_a_weak_challenger_only_contradicts_and_a_strong_one_supersedes(stub, org_id):
    first = await _observe(stub, org_id, "prefers Postgres", weight=3.0)
    weak = await _observe(stub, org_id, "prefers MySQL", source_id="turn-2")
    assert weak.outcome == pb.OBSERVE_OUTCOME_CONTRADICTED
    assert weak.observation.id == first.observation.id
    assert weak.observation.confidence < first.observation.confidence
    strong = await _observe(stub, org_id, "prefers MySQL", source_id="turn-3", weight=2.5)
    assert strong.outcome == pb.OBSERVE_OUTCOME_SUPERSEDED
    assert strong.observation.supersedes_observation_id == first.observation.id
    history = await stub.GetObservationHistory(
        pb.GetObservationHistoryRequest(id=first.observation.id), metadata=tenant(org_id)
    )
    assert [row.id for row in history.observations] == [strong.observation.id, first.observation.id]
    assert history.observations[1].status == pb.OBSERVATION_STATUS_SUPERSEDED
    old = await stub.GetObservation(pb.GetObservationRequest(id=first.observation.id), metadata=tenant(org_id))
    contradictions = [e for e in old.observation.evidence if e.stance == pb.EVIDENCE_STANCE_CONTRADICT]
    assert len(contradictions) == 2  # kept forever


async def test_twenty_concurrent_observes_on_one_key_leave_one_current_row(stub, org_id):
    summaries = [f"prefers engine {i % 3}" for i in range(20)]
    await asyncio.gather(
        *(_observe(stub, org_id, summary, source_id=f"turn-{i}") for i, summary in enumerate(summaries))
    )
    current = []
    for status in (pb.OBSERVATION_STATUS_ACTIVE, pb.OBSERVATION_STATUS_STALE):
        page = await stub.QueryObservations(
            pb.QueryObservationsRequest(
                agent_id="agent-1", canonical_key="entity:user-42:operator_preference:database", status=status
            ),
            metadata=tenant(org_id),
        )
        current += page.observations
    assert len(current) == 1


async def test_replayed_request_ids_write_nothing_twice_even_concurrently(stub, org_id):
    request = pb.ObserveRequest(
        agent_id="agent-1", candidate=candidate("prefers tabs", slot="indent"), request_id="r-1"
    )
    first, *replays = await asyncio.gather(
        *(stub.Observe(request, metadata=tenant(org_id), timeout=10) for _ in range(5))
    )
    assert {reply.observation.id for reply in replays} == {first.observation.id}
    assert {reply.outcome for reply in [first, *replays]} == {pb.OBSERVE_OUTCOME_CREATED}
    assert len(replays[-1].observation.evidence) == 1

    confirm = pb.ConfirmObservationRequest(id=first.observation.id, note="yes", request_id="r-2")
    once = await stub.ConfirmObservation(confirm, metadata=tenant(org_id))
    twice = await stub.ConfirmObservation(confirm, metadata=tenant(org_id))
    assert len(twice.observation.evidence) == len(once.observation.evidence) == 2
    assert twice.observation.confidence == once.observation.confidence

    contradict = pb.ContradictObservationRequest(
        id=first.observation.id,
        correction="prefers spaces",
        evidence=pb.EvidenceInput(source_type=pb.SOURCE_TYPE_MESSAGE, source_id="turn-7", weight=5.0),
        request_id="r-3",
    )
    won = await stub.ContradictObservation(contradict, metadata=tenant(org_id))
    assert won.outcome == pb.OBSERVE_OUTCOME_SUPERSEDED
    # The replay answers as the first call did, although the original is no longer current.
    again = await stub.ContradictObservation(contradict, metadata=tenant(org_id))
    assert (again.outcome, again.observation.id) == (won.outcome, won.observation.id)
    history = await stub.GetObservationHistory(
        pb.GetObservationHistoryRequest(id=first.observation.id), metadata=tenant(org_id)
    )
    assert len(history.observations) == 2
    # Another org's identical request id is its own.
    elsewhere = await stub.Observe(request, metadata=tenant(f"{org_id}-other"), timeout=10)
    assert elsewhere.observation.id != first.observation.id


async def test_confirm_boosts_and_contradict_invalidates(stub, org_id):
    created = await _observe(stub, org_id, "uses vim")
    confirmed = await stub.ConfirmObservation(
        pb.ConfirmObservationRequest(id=created.observation.id, note="yes"), metadata=tenant(org_id)
    )
    assert confirmed.observation.confidence > created.observation.confidence
    assert confirmed.observation.confidence_components.operator_confirmed_boost > 0
    contradicted = await stub.ContradictObservation(
        pb.ContradictObservationRequest(
            id=created.observation.id,
            evidence=pb.EvidenceInput(source_type=pb.SOURCE_TYPE_MESSAGE, source_id="turn-9", weight=9.0),
        ),
        metadata=tenant(org_id),
    )
    assert contradicted.observation.status == pb.OBSERVATION_STATUS_INVALIDATED
    assert contradicted.outcome == pb.OBSERVE_OUTCOME_CONTRADICTED


async def test_a_winning_correction_supersedes(stub, org_id):
    created = await _observe(stub, org_id, "uses emacs", slot="editor")
    corrected = await stub.ContradictObservation(
        pb.ContradictObservationRequest(
            id=created.observation.id,
            correction="uses helix",
            evidence=pb.EvidenceInput(source_type=pb.SOURCE_TYPE_MESSAGE, source_id="turn-5", weight=2.0),
        ),
        metadata=tenant(org_id),
    )
    assert corrected.outcome == pb.OBSERVE_OUTCOME_SUPERSEDED
    assert corrected.observation.summary == "uses helix"
    assert corrected.observation.supersedes_observation_id == created.observation.id


async def test_query_ranks_by_confidence_and_pages_with_a_token_bound_to_filters(stub, org_id):
    for index in range(5):
        for source in range(index + 1):
            await _observe(stub, org_id, f"fact {index}", slot=f"slot-{index}", source_id=f"t-{source}")
    request = pb.QueryObservationsRequest(agent_id="agent-1", page_size=2)
    seen, token = [], ""
    while True:
        request.page_token = token
        page = await stub.QueryObservations(request, metadata=tenant(org_id))
        seen += page.observations
        token = page.next_page_token
        if not token:
            break
    assert [row.summary for row in seen] == [f"fact {index}" for index in range(4, -1, -1)]
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.QueryObservations(
            pb.QueryObservationsRequest(agent_id="agent-2", page_size=2, page_token=page.next_page_token or "x"),
            metadata=tenant(org_id),
        )
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT


async def test_search_finds_by_meaning_and_words(stub, org_id):
    await _observe(stub, org_id, "deploys with kubernetes on friday", slot="deploys")
    await _observe(stub, org_id, "likes green tea in the morning", slot="drink")
    found = await stub.SearchObservations(
        pb.SearchObservationsRequest(agent_id="agent-1", query="kubernetes deploys", k=5), metadata=tenant(org_id)
    )
    assert found.results[0].observation.slot == "deploys"
    assert found.results[0].lexical_score > 0


async def test_search_returns_each_beliefs_stored_embedding_only_when_asked(stub, org_id, running):
    """The assembler compares beliefs with memories by vector. Asked, each result carries
    its stored vector (the model's dimension, unit length, the summary's embedding by the service's
    model, named in the response); not asked, none, and the results are the same."""
    embedder = running[2]
    created = (await _observe(stub, org_id, "Deploys to kubernetes with Argo CD.", slot="deploy-tool")).observation
    request = pb.SearchObservationsRequest(agent_id="agent-1", query="kubernetes deploys", k=5)
    plain = await stub.SearchObservations(request, metadata=tenant(org_id))
    request.include_embeddings = True
    asked = await stub.SearchObservations(request, metadata=tenant(org_id))

    assert [r.observation.id for r in plain.results] == [r.observation.id for r in asked.results] == [created.id]
    assert [len(r.embedding) for r in plain.results] == [0]
    assert plain.embedding_model == asked.embedding_model == embedder.model_name
    [hit] = asked.results
    assert (hit.score, hit.similarity, hit.lexical_score) == (
        plain.results[0].score,
        plain.results[0].similarity,
        plain.results[0].lexical_score,
    )
    vector = np.asarray(hit.embedding)
    [summary_vector] = await embedder.embed([created.summary])
    [query_vector] = await embedder.embed(["kubernetes deploys"])
    assert vector.shape == (embedder.dimension,)
    assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-6)
    assert float(vector @ summary_vector) == pytest.approx(1.0, abs=1e-3)
    # What a client computes with its own vector of the model is the similarity the service ranked by.
    assert float(vector @ query_vector) == pytest.approx(hit.similarity, abs=2e-3)


def backup_candidate(summary: str, slot: str, clock: FixedClock) -> Candidate:
    evidence = (EvidenceDraft("support", 1.0, "message", f"turn-{slot}", "", clock.now()),)
    return Candidate("operator_preference", "entity", "user-42", slot, summary, "", (), evidence)


async def test_search_reads_the_stored_vectors_of_the_winners_only_when_asked(migrated_pg, org_id):
    """Through the use case on the Postgres adapter: without ``include_embeddings`` the embedding
    column is never read; with it, only the top k beliefs' vectors are."""
    reads: list[tuple[str, int]] = []

    class RecordingStore(PostgresObservationStore):
        async def get_many(self, org_id, ids):
            reads.append(("get_many", len(ids)))
            return await super().get_many(org_id, ids)

        async def get_many_with_embeddings(self, org_id, ids):
            reads.append(("get_many_with_embeddings", len(ids)))
            return await super().get_many_with_embeddings(org_id, ids)

    embedder, clock = HashingEmbedder(384), FixedClock()
    async with AsyncExitStack() as stack:
        store = RecordingStore(await open_postgres(stack, migrated_pg.app_dsn, vectors=True))
        for slot in ("one", "two", "three"):
            await observe.observe(
                org_id,
                BeliefScope("agent-1"),
                backup_candidate(f"Runs nightly backups {slot}.", slot, clock),
                store=store,
                embedder=embedder,
                clock=clock,
            )

        async def searched(include: bool) -> list[read.SearchResult]:
            return await read.search_observations(
                org_id,
                "nightly backups",
                SearchFilters(agent_id="agent-1"),
                2,
                store=store,
                embedder=embedder,
                include_embeddings=include,
            )

        plain = await searched(False)
        asked = await searched(True)

    assert reads == [("get_many", 2), ("get_many_with_embeddings", 2)]
    assert [result.embedding for result in plain] == [None, None]
    assert [result.observation.id for result in asked] == [result.observation.id for result in plain]
    for result in asked:
        [expected] = await embedder.embed([result.observation.summary])
        assert result.embedding is not None and len(result.embedding) == 384
        assert float(np.asarray(result.embedding) @ expected) == pytest.approx(1.0, abs=1e-3)


async def test_revalidation_marks_old_beliefs_stale(stub, org_id, clock):
    created = await _observe(stub, org_id, "build is green", slot="ci")
    clock.advance(days=45)
    try:
        result = await stub.RunRevalidation(pb.RunRevalidationRequest(agent_id="agent-1"), metadata=tenant(org_id))
    finally:
        clock.advance(days=-45)
    assert result.checked >= 1 and result.marked_stale >= 1
    got = await stub.GetObservation(pb.GetObservationRequest(id=created.observation.id), metadata=tenant(org_id))
    assert got.observation.status == pb.OBSERVATION_STATUS_STALE
    assert got.observation.freshness < 0.5


async def test_erase_subject_leaves_a_tombstone_and_is_idempotent(stub, org_id):
    created = await _observe(stub, org_id, "lives in Paris", slot="city")
    request = pb.EraseSubjectRequest(subject_type=pb.SUBJECT_TYPE_ENTITY, subject_id="user-42", request_id="erase-1")
    erased = await stub.EraseSubject(request, metadata=tenant(org_id))
    assert erased.observations_erased == 1 and erased.evidence_erased == 1 and erased.tombstone_id
    assert await stub.EraseSubject(request, metadata=tenant(org_id)) == erased
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.GetObservation(pb.GetObservationRequest(id=created.observation.id), metadata=tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.NOT_FOUND


async def test_another_org_cannot_read_confirm_contradict_or_erase(stub, org_id):
    created = await _observe(stub, org_id, "owns a cat", slot="pet")
    other = tenant("org-intruder")
    for call in (
        stub.GetObservation(pb.GetObservationRequest(id=created.observation.id), metadata=other),
        stub.GetObservationHistory(pb.GetObservationHistoryRequest(id=created.observation.id), metadata=other),
        stub.ConfirmObservation(pb.ConfirmObservationRequest(id=created.observation.id), metadata=other),
        stub.ContradictObservation(
            pb.ContradictObservationRequest(
                id=created.observation.id,
                evidence=pb.EvidenceInput(source_type=pb.SOURCE_TYPE_MESSAGE, source_id="t"),
            ),
            metadata=other,
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await call
        assert raised.value.code() is grpc.StatusCode.NOT_FOUND
    erased = await stub.EraseSubject(
        pb.EraseSubjectRequest(subject_type=pb.SUBJECT_TYPE_ENTITY, subject_id="user-42"), metadata=other
    )
    assert erased.observations_erased == 0
    query = await stub.QueryObservations(pb.QueryObservationsRequest(agent_id="agent-1"), metadata=other)
    assert list(query.observations) == []
    got = await stub.GetObservation(pb.GetObservationRequest(id=created.observation.id), metadata=tenant(org_id))
    assert got.observation.summary == "owns a cat"


async def test_evidence_pointing_at_an_observation_is_refused(stub, org_id):
    created = await _observe(stub, org_id, "speaks French", slot="language")
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await _observe(stub, org_id, "speaks French", slot="language", source_id=created.observation.id)
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "evidence.source_id" in raised.value.details()


def _bad(**changes) -> pb.ObserveRequest:
    request = pb.ObserveRequest(agent_id="agent-1", candidate=candidate("fine"))
    for path, value in changes.items():
        target = request.candidate
        *parents, leaf = path.split("__")
        for parent in parents:
            target = getattr(target, parent)[0] if parent == "evidence" else getattr(target, parent)
        setattr(target, leaf, value)
    return request


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (_bad(kind=0), "candidate.kind"),
        (_bad(evidence__stance=0), "candidate.evidence[0].stance"),
        (_bad(evidence__weight=0.0), "candidate.evidence[0].weight"),
        (_bad(evidence__weight=10.5), "candidate.evidence[0].weight"),
        (_bad(summary="   "), "candidate.summary"),
        (_bad(summary="x" * 1001), "candidate.summary"),
        (_bad(slot="Bad Slot"), "candidate.slot"),
        (_bad(subject_id="has:colon"), "candidate.subject_id"),
        (_bad(evidence__excerpt="x" * 2001), "candidate.evidence[0].excerpt"),
    ],
)
async def test_bad_input_is_invalid_argument_naming_the_field(stub, org_id, request_, field):
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.Observe(request_, metadata=tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert field in raised.value.details()
    query = await stub.QueryObservations(pb.QueryObservationsRequest(agent_id="agent-1"), metadata=tenant(org_id))
    assert list(query.observations) == []  # no partial write


async def test_too_many_evidence_items_are_refused(stub, org_id):
    request = _bad()
    request.candidate.evidence.extend([request.candidate.evidence[0]] * 50)
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.Observe(request, metadata=tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "candidate.evidence" in raised.value.details()


async def test_search_reuses_a_query_vector_of_its_own_model_and_ignores_another_models(stub, org_id, running):
    embedder = running[2]
    await _observe(stub, org_id, "Prefers Postgres for analytics.", slot="analytics")
    [vector] = await embedder.embed(["Postgres analytics"])
    request = pb.SearchObservationsRequest(agent_id="agent-1", query="Postgres analytics", k=3)
    plain = await stub.SearchObservations(request, metadata=tenant(org_id))

    calls = len(embedder.calls)
    request.query_embedding.extend(vector.tolist())
    request.query_embedding_model = embedder.model_name
    reused = await stub.SearchObservations(request, metadata=tenant(org_id))
    assert len(embedder.calls) == calls, "the given vector was used: no embedding"
    request.query_embedding_model = "another-model"
    foreign = await stub.SearchObservations(request, metadata=tenant(org_id))
    assert len(embedder.calls) == calls + 1, "a vector of another model is never compared with ours"

    assert [r.observation.id for r in reused.results] == [r.observation.id for r in plain.results]
    assert [r.observation.id for r in foreign.results] == [r.observation.id for r in plain.results]
    request.query_embedding_model = embedder.model_name
    del request.query_embedding[5:]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.SearchObservations(request, metadata=tenant(org_id))
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "query_embedding" in refused.value.details()


async def test_the_scheduled_revalidation_visits_every_org_with_beliefs_due(running, stub, org_id, clock):
    """The scheduled job's path (all orgs, as a system principal), not only the RPC: it finds the
    orgs through the owner's function and revalidates each (it once failed on every run)."""
    container = running[0].container
    created = await _observe(stub, org_id, "the deploy pipeline is green", slot="deploy")
    clock.advance(days=45)
    try:
        totals = await observations_svc.bootstrap.revalidate_due_orgs(container.store, clock)
    finally:
        clock.advance(days=-45)
    assert totals["orgs"] >= 1 and totals["marked_stale"] >= 1
    got = await stub.GetObservation(pb.GetObservationRequest(id=created.observation.id), metadata=tenant(org_id))
    assert got.observation.status == pb.OBSERVATION_STATUS_STALE


async def _page_through(stub, org_id, size: int, subject: str) -> list[str]:
    seen, token = [], ""
    while True:
        page = await stub.QueryObservations(
            pb.QueryObservationsRequest(agent_id="agent-1", subject_id=subject, page_size=size, page_token=token),
            metadata=tenant(org_id),
        )
        seen += [row.id for row in page.observations]
        if not (token := page.next_page_token):
            return seen


async def test_paging_through_equally_confident_beliefs_returns_each_once(stub, org_id):
    """Keyset tokens over (confidence, freshness, id): ties of both never skip or repeat a belief."""
    subject = "user-ties"
    for n in range(23):
        request = pb.ObserveRequest(agent_id="agent-1", candidate=candidate(f"Prefers tool {n}.", slot=f"tool-{n}"))
        request.candidate.subject_id = subject
        await stub.Observe(request, metadata=tenant(org_id), timeout=10)
    everything = await _page_through(stub, org_id, 100, subject)
    assert len(everything) == len(set(everything)) == 23
    for size in (1, 2, 5, 22, 23):
        assert await _page_through(stub, org_id, size, subject) == everything, f"page size {size}"


async def test_a_belief_page_token_is_stale_after_revalidation_moved_the_order(stub, org_id, clock):
    subject = "user-stale"
    for n in range(3):
        request = pb.ObserveRequest(agent_id="agent-1", candidate=candidate(f"Uses editor {n}.", slot=f"editor-{n}"))
        request.candidate.subject_id = subject
        await stub.Observe(request, metadata=tenant(org_id), timeout=10)
    listing = pb.QueryObservationsRequest(agent_id="agent-1", subject_id=subject, page_size=1)
    first = await stub.QueryObservations(listing, metadata=tenant(org_id))
    listing.page_token = first.next_page_token
    assert (await stub.QueryObservations(listing, metadata=tenant(org_id))).observations
    clock.advance(days=400)
    await stub.RunRevalidation(pb.RunRevalidationRequest(agent_id="agent-1"), metadata=tenant(org_id))
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.QueryObservations(listing, metadata=tenant(org_id))
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "revalidation" in raised.value.details()


async def test_a_challengers_contradicting_lines_are_kept_on_the_belief_they_deny(stub, org_id):
    """A changed summary whose evidence contradicts: the lines land on the current belief (they were
    dropped, so a spoken denial changed nothing while the outcome said CONTRADICTED)."""
    created = await _observe(stub, org_id, "Eats no meat.", slot="diet-denial")
    denial = candidate("Eats meat again.", slot="diet-denial", source_id="turn-2")
    denial.evidence[0].stance = pb.EVIDENCE_STANCE_CONTRADICT
    denied = await stub.Observe(pb.ObserveRequest(agent_id="agent-1", candidate=denial), metadata=tenant(org_id))
    assert denied.outcome == pb.OBSERVE_OUTCOME_CONTRADICTED  # a bare denial is no claim of its own
    assert denied.observation.id == created.observation.id
    stances = [e.stance for e in denied.observation.evidence]
    assert (
        stances.count(pb.EVIDENCE_STANCE_CONTRADICT) == 1
        and denied.observation.confidence < created.observation.confidence
    )


async def test_a_successor_keeps_only_the_lines_that_support_it(stub, org_id):
    await _observe(stub, org_id, "Prefers tea.", slot="drink-switch")
    switch = candidate("Prefers coffee.", slot="drink-switch", source_id="turn-2")
    switch.evidence.append(
        pb.EvidenceInput(stance=pb.EVIDENCE_STANCE_CONTRADICT, source_type=pb.SOURCE_TYPE_MESSAGE, source_id="turn-2")
    )
    won = await stub.Observe(pb.ObserveRequest(agent_id="agent-1", candidate=switch), metadata=tenant(org_id))
    assert won.outcome == pb.OBSERVE_OUTCOME_SUPERSEDED
    assert [e.stance for e in won.observation.evidence] == [pb.EVIDENCE_STANCE_SUPPORT]
    old = await stub.GetObservation(
        pb.GetObservationRequest(id=won.observation.supersedes_observation_id), metadata=tenant(org_id)
    )
    assert [e.stance for e in old.observation.evidence].count(pb.EVIDENCE_STANCE_CONTRADICT) == 2
