"""The EngagementService through real gRPC stubs on the embedded Postgres (pgvector), as lore_app:
reading writes nothing, the confidence rule, promotion's preconditions, the precise-figure rule,
replays, the atomic week and tenancy."""

import asyncio
import uuid
from contextlib import AsyncExitStack

import asyncpg
import grpc
import observations_svc.bootstrap
import observations_svc.config
import observations_svc.server
import pytest
from lore.observations.v1 import engagement_service_pb2 as pb
from lore.observations.v1 import engagement_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2 as observation_pb

from tests.fakes import FixedClock, HashingEmbedder
from tests.grpc_harness import start_service

SUPPORT = observation_pb.EVIDENCE_STANCE_SUPPORT
CONTRADICT = observation_pb.EVIDENCE_STANCE_CONTRADICT


@pytest.fixture(scope="module")
async def running(migrated_pg):
    async with AsyncExitStack() as stack:
        yield await start_service(
            stack,
            "observations",
            observations_svc.bootstrap,
            observations_svc.server,
            observations_svc.config.Settings,
            {"LORE_DATABASE_URL": migrated_pg.app_dsn, "LORE_REVALIDATION_INTERVAL_SECONDS": "0"},
            overrides=observations_svc.bootstrap.ObservationsOverrides(
                embedder=HashingEmbedder(384), clock=FixedClock()
            ),
        )


@pytest.fixture
def stub(running):
    return engagement_service_pb2_grpc.EngagementServiceStub(running.channel)


def tenant(org_id: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org_id), ("x-lore-principal", "analyst-bo"))


def line(statement: str, stance=SUPPORT, **fields) -> pb.HypothesisEvidenceInput:
    return pb.HypothesisEvidenceInput(statement=statement, stance=stance, **fields)


async def _form(stub, org_id, statement="Churn comes from onboarding.", *evidence, request_id="") -> pb.Hypothesis:
    response = await stub.FormHypothesis(
        pb.FormHypothesisRequest(statement=statement, evidence=list(evidence), request_id=request_id),
        metadata=tenant(org_id),
        timeout=10,
    )
    return response.hypothesis


async def _add(stub, org_id, hypothesis_id, evidence, request_id="") -> pb.Hypothesis:
    response = await stub.AddHypothesisEvidence(
        pb.AddHypothesisEvidenceRequest(hypothesis_id=hypothesis_id, evidence=evidence, request_id=request_id),
        metadata=tenant(org_id),
        timeout=10,
    )
    return response.hypothesis


async def _expect(code: grpc.StatusCode, call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    assert raised.value.code() is code, raised.value.details()
    return raised.value


async def test_an_org_with_no_state_reads_week_one_and_first_session_and_reading_writes_nothing(
    stub, org_id, migrated_pg
):
    for _ in range(2):
        state = await stub.GetEngagement(pb.GetEngagementRequest(), metadata=tenant(org_id), timeout=10)
        assert (state.week_number, state.first_session) == (1, True)
        assert not state.hypotheses and not state.unknowns and not state.findings
    connection = await asyncpg.connect(migrated_pg.owner_dsn)
    try:
        for table in ["engagements", "hypotheses", "unknowns", "findings"]:
            count = await connection.fetchval(f"SELECT count(*) FROM observations.{table} WHERE org_id = $1", org_id)
            assert count == 0, table
    finally:
        await connection.close()


async def test_evidence_moves_confidence_by_the_documented_rule(stub, org_id):
    hypothesis = await _form(stub, org_id)
    assert hypothesis.confidence == pytest.approx(0.5)
    assert hypothesis.status == pb.HYPOTHESIS_STATUS_ACTIVE
    supported = await _add(stub, org_id, hypothesis.id, line("Most cancellations happen in week one.", weight=2.0))
    assert supported.confidence == pytest.approx((2 + 2 * 0.5) / (2 + 2))  # 0.75
    contradicted = await _add(stub, org_id, hypothesis.id, line("Exit survey blames price.", CONTRADICT))
    assert contradicted.confidence == pytest.approx((2 + 1) / (2 + 1 + 2))  # 0.6
    assert [e.stance for e in contradicted.evidence] == [SUPPORT, CONTRADICT]

    state = await stub.GetEngagement(pb.GetEngagementRequest(), metadata=tenant(org_id), timeout=10)
    assert not state.first_session
    assert [h.id for h in state.hypotheses] == [hypothesis.id]
    assert state.hypotheses[0].confidence == pytest.approx(0.6)


async def test_promotion_needs_the_threshold_and_no_outstanding_contradiction(stub, org_id):
    hypothesis = await _form(stub, org_id, "Onboarding emails cut churn.", line("Cohort A kept more users."))
    low = await _expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.PromoteHypothesis(pb.PromoteHypothesisRequest(hypothesis_id=hypothesis.id), metadata=tenant(org_id)),
    )
    assert "below the promotion threshold 0.800" in low.details()

    for i in range(6):
        hypothesis = await _add(stub, org_id, hypothesis.id, line(f"Cohort {'BCDEFG'[i]} kept more users."))
    hypothesis = await _add(stub, org_id, hypothesis.id, line("One cohort churned anyway.", CONTRADICT))
    assert hypothesis.confidence >= 0.8
    contradicted = await _expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.PromoteHypothesis(pb.PromoteHypothesisRequest(hypothesis_id=hypothesis.id), metadata=tenant(org_id)),
    )
    assert "contradicting evidence line(s) outstanding" in contradicted.details()

    revised = await stub.ReviseHypothesis(
        pb.ReviseHypothesisRequest(hypothesis_id=hypothesis.id, confidence=0.85, reason="That cohort had no emails."),
        metadata=tenant(org_id),
        timeout=10,
    )
    assert revised.hypothesis.confidence == pytest.approx(0.85)
    assert all(e.reviewed for e in revised.hypothesis.evidence)
    assert revised.hypothesis.revisions[0].previous_confidence == pytest.approx(hypothesis.confidence)

    promoted = await stub.PromoteHypothesis(
        pb.PromoteHypothesisRequest(hypothesis_id=hypothesis.id), metadata=tenant(org_id), timeout=10
    )
    assert promoted.hypothesis.status == pb.HYPOTHESIS_STATUS_PROMOTED
    assert promoted.finding.statement == "Onboarding emails cut churn."
    assert promoted.finding.hypothesis_id == hypothesis.id
    state = await stub.GetEngagement(pb.GetEngagementRequest(), metadata=tenant(org_id), timeout=10)
    assert [f.id for f in state.findings] == [promoted.finding.id]
    again = await _expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.PromoteHypothesis(pb.PromoteHypothesisRequest(hypothesis_id=hypothesis.id), metadata=tenant(org_id)),
    )
    assert "promoted" in again.details()


async def test_a_precise_figure_without_a_source_is_refused_and_nothing_is_written(stub, org_id):
    hypothesis = await _form(stub, org_id)
    refused = await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.AddHypothesisEvidence(
            pb.AddHypothesisEvidenceRequest(hypothesis_id=hypothesis.id, evidence=line("Churn is 42% in week 1.")),
            metadata=tenant(org_id),
        ),
    )
    assert "evidence.source" in refused.details()
    await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.FormHypothesis(
            pb.FormHypothesisRequest(statement="x", evidence=[line("1,200 users left.")]), metadata=tenant(org_id)
        ),
    )
    sourced = await _add(stub, org_id, hypothesis.id, line("Churn is 42% in week 1.", source="billing export"))
    assert len(sourced.evidence) == 1 and sourced.evidence[0].source == "billing export"
    dated = await _add(stub, org_id, hypothesis.id, line("Seen again on 2026-03-05 in week 3."))
    assert len(dated.evidence) == 2

    promote = pb.PromoteHypothesisRequest(hypothesis_id=hypothesis.id, statement="Churn is 42%.")
    await stub.ReviseHypothesis(
        pb.ReviseHypothesisRequest(hypothesis_id=hypothesis.id, confidence=0.9, reason="billing agrees"),
        metadata=tenant(org_id),
    )
    finding = await _expect(grpc.StatusCode.INVALID_ARGUMENT, stub.PromoteHypothesis(promote, metadata=tenant(org_id)))
    assert "source" in finding.details()


@pytest.mark.parametrize(
    ("evidence", "field"),
    [
        (line("x", stance=observation_pb.EVIDENCE_STANCE_UNSPECIFIED), "evidence.stance"),
        (line("x", weight=0.0), "evidence.weight"),
        (line("x", weight=10.5), "evidence.weight"),
        (line("   "), "evidence.statement"),
        (line("x" * 501), "evidence.statement"),
    ],
)
async def test_bad_evidence_is_invalid_argument_naming_the_field(stub, org_id, evidence, field):
    hypothesis = await _form(stub, org_id)
    error = await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.AddHypothesisEvidence(
            pb.AddHypothesisEvidenceRequest(hypothesis_id=hypothesis.id, evidence=evidence), metadata=tenant(org_id)
        ),
    )
    assert field in error.details()


async def test_archive_needs_a_note_and_closes_the_hypothesis(stub, org_id):
    hypothesis = await _form(stub, org_id)
    await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.ArchiveHypothesis(pb.ArchiveHypothesisRequest(hypothesis_id=hypothesis.id), metadata=tenant(org_id)),
    )
    archived = await stub.ArchiveHypothesis(
        pb.ArchiveHypothesisRequest(hypothesis_id=hypothesis.id, note="Superseded by pricing work."),
        metadata=tenant(org_id),
        timeout=10,
    )
    assert archived.hypothesis.status == pb.HYPOTHESIS_STATUS_ARCHIVED
    assert archived.hypothesis.archive_note == "Superseded by pricing work."
    await _expect(grpc.StatusCode.FAILED_PRECONDITION, _add(stub, org_id, hypothesis.id, line("late evidence")))


async def test_replayed_request_ids_create_nothing_twice(stub, org_id):
    first = await _form(stub, org_id, "Replayed.", request_id="form-1")
    again = await _form(stub, org_id, "Replayed.", request_id="form-1")
    assert again.id == first.id
    await _add(stub, org_id, first.id, line("once"), request_id="evidence-1")
    replay = await _add(stub, org_id, first.id, line("once"), request_id="evidence-1")
    assert len(replay.evidence) == 1

    unknown = pb.AddUnknownRequest(question="Who owns billing?", why_it_matters="Churn data.", request_id="u-1")
    one = await stub.AddUnknown(unknown, metadata=tenant(org_id), timeout=10)
    two = await stub.AddUnknown(unknown, metadata=tenant(org_id), timeout=10)
    assert one.unknown.id == two.unknown.id
    state = await stub.GetEngagement(pb.GetEngagementRequest(), metadata=tenant(org_id), timeout=10)
    assert len(state.hypotheses) == 1 and len(state.unknowns) == 1


async def test_unknowns_resolve_once_with_a_resolution(stub, org_id):
    added = await stub.AddUnknown(
        pb.AddUnknownRequest(question="Which plan churns most?", why_it_matters="Targets the fix."),
        metadata=tenant(org_id),
        timeout=10,
    )
    assert added.unknown.status == pb.UNKNOWN_STATUS_OPEN
    request = pb.ResolveUnknownRequest(unknown_id=added.unknown.id)
    await _expect(grpc.StatusCode.INVALID_ARGUMENT, stub.ResolveUnknown(request, metadata=tenant(org_id)))
    request.resolution = "The monthly starter plan."
    resolved = await stub.ResolveUnknown(request, metadata=tenant(org_id), timeout=10)
    assert resolved.unknown.status == pb.UNKNOWN_STATUS_RESOLVED
    await _expect(grpc.StatusCode.FAILED_PRECONDITION, stub.ResolveUnknown(request, metadata=tenant(org_id)))


async def test_concurrent_week_advances_all_count_and_an_expected_week_guards(stub, org_id):
    calls = [stub.AdvanceWeek(pb.AdvanceWeekRequest(), metadata=tenant(org_id), timeout=20) for _ in range(10)]
    weeks = sorted(response.week_number for response in await asyncio.gather(*calls))
    assert weeks == list(range(2, 12))
    await _expect(
        grpc.StatusCode.ABORTED,
        stub.AdvanceWeek(pb.AdvanceWeekRequest(expected_week_number=3), metadata=tenant(org_id)),
    )
    advanced = await stub.AdvanceWeek(pb.AdvanceWeekRequest(expected_week_number=11), metadata=tenant(org_id))
    assert advanced.week_number == 12
    state = await stub.GetEngagement(pb.GetEngagementRequest(), metadata=tenant(org_id), timeout=10)
    assert state.week_number == 12


async def test_another_org_cannot_read_or_change_the_state(stub, org_id):
    hypothesis = await _form(stub, org_id, "Ours.")
    unknown = await stub.AddUnknown(
        pb.AddUnknownRequest(question="Ours?", why_it_matters="Ours."), metadata=tenant(org_id), timeout=10
    )
    intruder = f"intruder-{uuid.uuid4().hex[:8]}"
    state = await stub.GetEngagement(pb.GetEngagementRequest(), metadata=tenant(intruder), timeout=10)
    assert state.first_session and not state.hypotheses and not state.unknowns
    await _expect(grpc.StatusCode.NOT_FOUND, _add(stub, intruder, hypothesis.id, line("theirs")))
    for method, request in [
        (stub.ArchiveHypothesis, pb.ArchiveHypothesisRequest(hypothesis_id=hypothesis.id, note="n")),
        (stub.PromoteHypothesis, pb.PromoteHypothesisRequest(hypothesis_id=hypothesis.id)),
        (stub.ReviseHypothesis, pb.ReviseHypothesisRequest(hypothesis_id=hypothesis.id, confidence=1.0, reason="r")),
        (stub.ResolveUnknown, pb.ResolveUnknownRequest(unknown_id=unknown.unknown.id, resolution="r")),
    ]:
        await _expect(grpc.StatusCode.NOT_FOUND, method(request, metadata=tenant(intruder)))
    ours = await stub.GetEngagement(pb.GetEngagementRequest(), metadata=tenant(org_id), timeout=10)
    assert ours.hypotheses[0].status == pb.HYPOTHESIS_STATUS_ACTIVE and not ours.hypotheses[0].evidence
    assert ours.unknowns[0].status == pb.UNKNOWN_STATUS_OPEN


async def test_a_malformed_id_is_invalid_argument(stub, org_id):
    error = await _expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stub.ArchiveHypothesis(pb.ArchiveHypothesisRequest(hypothesis_id="nope", note="n"), metadata=tenant(org_id)),
    )
    assert "hypothesis_id" in error.details()


async def _get(stub, org_id, view=pb.ENGAGEMENT_VIEW_UNSPECIFIED) -> pb.GetEngagementResponse:
    return await stub.GetEngagement(pb.GetEngagementRequest(view=view), metadata=tenant(org_id), timeout=10)


async def test_the_digest_view_is_the_full_views_open_part_without_lines_and_full_stays_the_default(stub, org_id):
    kept = await _form(stub, org_id, "Kept.", line("Seen."), line("Doubted.", stance=CONTRADICT))
    closed = await _form(stub, org_id, "Closed.")
    await stub.ArchiveHypothesis(
        pb.ArchiveHypothesisRequest(hypothesis_id=closed.id, note="Ruled out."), metadata=tenant(org_id), timeout=10
    )
    asked = await stub.AddUnknown(
        pb.AddUnknownRequest(question="Open?", why_it_matters="Yes."), metadata=tenant(org_id), timeout=10
    )
    answered = await stub.AddUnknown(
        pb.AddUnknownRequest(question="Answered?", why_it_matters="Yes."), metadata=tenant(org_id), timeout=10
    )
    await stub.ResolveUnknown(
        pb.ResolveUnknownRequest(unknown_id=answered.unknown.id, resolution="Done."), metadata=tenant(org_id)
    )

    default, full = await _get(stub, org_id), await _get(stub, org_id, pb.ENGAGEMENT_VIEW_FULL)
    digest = await _get(stub, org_id, pb.ENGAGEMENT_VIEW_DIGEST)

    assert default == full
    assert [h.id for h in full.hypotheses] == [kept.id, closed.id] and len(full.unknowns) == 2
    assert (full.hypotheses[0].evidence_count, full.hypotheses[0].outstanding_contradictions) == (2, 1)
    expected = pb.GetEngagementResponse(week_number=full.week_number, findings=full.findings)
    for hypothesis in full.hypotheses:
        if hypothesis.status == pb.HYPOTHESIS_STATUS_ACTIVE:
            expected.hypotheses.append(hypothesis)
            del expected.hypotheses[-1].evidence[:]
            del expected.hypotheses[-1].revisions[:]
    expected.unknowns.extend(u for u in full.unknowns if u.status == pb.UNKNOWN_STATUS_OPEN)
    assert digest == expected
    assert [u.id for u in digest.unknowns] == [asked.unknown.id]


async def test_the_digest_of_another_org_is_its_own_and_a_bad_view_names_the_field(stub, org_id):
    await _form(stub, org_id, "Ours.", line("Seen."))
    intruder = f"intruder-{uuid.uuid4().hex[:8]}"

    theirs = await _get(stub, intruder, pb.ENGAGEMENT_VIEW_DIGEST)
    assert theirs == pb.GetEngagementResponse(week_number=1, first_session=True)
    error = await _expect(grpc.StatusCode.INVALID_ARGUMENT, _get(stub, org_id, 7))
    assert "view" in error.details()
