"""The observations side of `lore org export` / `import` on the fakes: beliefs and engagement state come
back exactly (never re-scored), superseded beliefs first, and tampered records are refused by field."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from lore.observations.v1 import engagement_service_pb2 as gpb
from lore.observations.v1 import observation_service_pb2 as pb
from lore_runtime import errors
from observations_svc.api import engagement_convert, import_convert, observation_convert
from observations_svc.domain import restore
from observations_svc.domain.engagement import (
    EvidenceLine,
    Finding,
    Hypothesis,
    HypothesisStatus,
    Revision,
    Stance,
    Unknown,
    UnknownStatus,
)
from observations_svc.domain.model import ConfidenceComponents, Evidence, Observation
from observations_svc.usecases.org_transfer import (
    export_engagement,
    export_observations,
    import_engagement,
    import_observations,
)

from tests.fakes import HashingEmbedder
from tests.fakes_observations import InMemoryEngagementArchive, InMemoryObservationArchive

T0 = datetime(2026, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)


def belief(at: datetime, *, status: str = "active", supersedes: str | None = None, slot: str = "drink") -> Observation:
    observation_id = str(uuid.uuid4())
    return Observation(
        id=observation_id,
        org_id="org-a",
        agent_id="aria",
        kind="operator_preference",
        subject_type="entity",
        subject_id="sam",
        slot=slot,
        canonical_key=f"entity:sam:operator_preference:{slot}",
        summary=f"Sam {slot} at {at:%S}",
        detail="",
        tags=(),
        confidence=0.37,
        components=ConfidenceComponents(1, 0.25, 1.0, 0.5, 0.9, 0.0),
        freshness=0.5,
        last_supported_at=at,
        revalidation_due_at=at + timedelta(days=3),
        status=status,
        supersedes_observation_id=supersedes,
        created_at=at,
        updated_at=at,
        evidence=(Evidence(str(uuid.uuid4()), observation_id, "support", 1.0, "message", "t-1", "", at, False, at),),
    )


def hypothesis(at: datetime, status: HypothesisStatus = HypothesisStatus.ACTIVE) -> Hypothesis:
    """Revised once: two lines from before the revision (epoch 0), one after (epoch 1)."""
    return Hypothesis(
        id=str(uuid.uuid4()),
        statement="Emails cut churn.",
        confidence=0.9,
        status=status,
        prior=0.85,
        evidence=(
            EvidenceLine(str(uuid.uuid4()), "A kept users.", Stance.SUPPORT, 1.0, "", at, at, 0),
            EvidenceLine(str(uuid.uuid4()), "C churned.", Stance.CONTRADICT, 2.0, "survey", at, at, 0),
            EvidenceLine(str(uuid.uuid4()), "D kept users.", Stance.SUPPORT, 1.0, "", at, at + timedelta(1), 1),
        ),
        revisions=(Revision("Emails help.", "Emails cut churn.", 0.6, 0.85, "C had none.", at),),
        created_at=at,
        updated_at=at + timedelta(2),
    )


def wire(*observations: Observation) -> pb.ImportObservationsRequest:
    return pb.ImportObservationsRequest(observations=[observation_convert.observation_to_pb(o) for o in observations])


async def test_beliefs_come_back_exactly_superseded_first_and_a_re_import_changes_nothing():
    store, embedder = InMemoryObservationArchive(), HashingEmbedder(384)
    old = belief(T0, status="superseded")
    new = belief(T0 + timedelta(seconds=1), supersedes=old.id)
    # The successor first in the batch: the use case orders the chain itself.
    batch = import_convert.observations_from_pb(wire(new, old), "org-b", T0 + timedelta(days=365))
    report = await import_observations("org-b", batch, store=store, embedder=embedder)
    assert (report.imported, report.skipped) == (2, 0)
    exported = [item async for page in export_observations("org-b", 0, store=store) for item in page]
    assert exported == [replace(old, org_id="org-b"), replace(new, org_id="org-b")]  # confidence, freshness as given
    again = await import_observations("org-b", batch, store=store, embedder=embedder)
    assert (again.imported, again.skipped) == (0, 2)
    assert embedder.calls == [2]


async def test_a_successor_whose_predecessor_the_org_does_not_hold_is_refused():
    store, embedder = InMemoryObservationArchive(), HashingEmbedder(384)
    orphan = belief(T0, supersedes=str(uuid.uuid4()))
    with pytest.raises(errors.InvalidArgument) as raised:
        await import_observations("org-b", [orphan], store=store, embedder=embedder)
    assert raised.value.field == "observations[0].supersedes_observation_id"
    assert [page async for page in export_observations("org-b", 0, store=store)] == []


def test_tampered_observations_are_refused_naming_the_field():
    good = belief(T0)
    cases = {
        "observations[0].canonical_key": replace(good, canonical_key="entity:someone:else"),
        "observations[0].confidence": replace(good, confidence=1.5),
        "observations[0].evidence[0].weight": replace(good, evidence=(replace(good.evidence[0], weight=0.0),)),
        "observations[0].evidence[0].observation_id": replace(
            good, evidence=(replace(good.evidence[0], observation_id=str(uuid.uuid4())),)
        ),
        "observations[0].id": replace(good, id="nope", evidence=()),
    }
    for field, tampered in cases.items():
        with pytest.raises(errors.InvalidArgument) as raised:
            import_convert.observations_from_pb(wire(tampered), "org-b", T0 + timedelta(days=365))
        assert raised.value.field == field
    twin = replace(belief(T0), slot="drink")
    with pytest.raises(errors.InvalidArgument, match="second current belief"):
        import_convert.observations_from_pb(wire(good, twin), "org-b", T0 + timedelta(days=365))
    message = wire(good)
    message.observations[0].ClearField("revalidation_due_at")
    with pytest.raises(errors.InvalidArgument, match="revalidation_due_at: is required"):
        import_convert.observations_from_pb(message, "org-b", T0 + timedelta(days=365))


def test_a_supersession_cycle_is_refused():
    first, second = belief(T0), belief(T0)
    first = replace(first, supersedes_observation_id=second.id)
    second = replace(second, supersedes_observation_id=first.id)
    with pytest.raises(errors.InvalidArgument, match="cycle"):
        restore.supersession_order([first, second])


async def test_engagement_exports_the_row_first_then_hypotheses_then_unknowns_and_imports_exactly():
    source, target = InMemoryEngagementArchive(), InMemoryEngagementArchive()
    assert [page async for page in export_engagement("org-a", 0, store=source)] == []
    row = restore.EngagementRow(2, T0, T0, T0)
    promoted = hypothesis(T0, HypothesisStatus.PROMOTED)
    finding = Finding(str(uuid.uuid4()), "Emails cut churn.", "", promoted.id, T0)
    promoted = replace(promoted, finding_id=finding.id)
    others = [hypothesis(T0 + timedelta(seconds=i)) for i in range(1, 4)]
    unknown = Unknown(str(uuid.uuid4()), "Seasonal?", "Baseline.", UnknownStatus.OPEN, T0)
    await source.restore("org-a", row, [(promoted, finding), *((h, None) for h in others)], [unknown])
    pages = [page async for page in export_engagement("org-a", 2, store=source)]
    assert [(page.row, len(page.hypotheses), len(page.unknowns)) for page in pages] == [
        (row, 2, 0),
        (None, 2, 0),
        (None, 0, 1),
    ]

    # Through the wire and back: the hypothesis with its finding and the line epochs, exactly.
    request = gpb.ImportEngagementRequest(
        engagement=engagement_convert.engagement_row_to_pb(row),
        hypotheses=[engagement_convert.hypothesis_to_pb(h, f) for page in pages for h, f in page.hypotheses],
        unknowns=[engagement_convert.unknown_to_pb(u) for page in pages for u in page.unknowns],
    )
    parsed_row, hypotheses, unknowns = import_convert.engagement_import_from_pb(request, T0 + timedelta(days=365))
    counts = await import_engagement("org-b", parsed_row, hypotheses, unknowns, store=target)
    assert (counts.hypotheses, counts.unknowns, counts.skipped) == (4, 1, 0)
    assert await target.export_hypotheses("org-b", None, 10) == await source.export_hypotheses("org-a", None, 10)
    assert await target.export_row("org-b") == row


def test_tampered_engagement_records_are_refused_naming_the_field():
    promoted = hypothesis(T0, HypothesisStatus.PROMOTED)
    finding = Finding(str(uuid.uuid4()), "Emails cut churn.", "", promoted.id, T0)
    good = engagement_convert.hypothesis_to_pb(replace(promoted, finding_id=finding.id), finding)
    cases = []
    no_finding = gpb.Hypothesis()
    no_finding.CopyFrom(good)
    no_finding.ClearField("finding")
    cases.append((no_finding, "hypotheses[0].finding"))
    bad_epoch = gpb.Hypothesis()
    bad_epoch.CopyFrom(good)
    bad_epoch.evidence[0].epoch = 7
    cases.append((bad_epoch, "hypotheses[0].evidence[0].epoch"))
    archived_without_note = gpb.Hypothesis()
    archived_without_note.CopyFrom(good)
    archived_without_note.status = gpb.HYPOTHESIS_STATUS_ARCHIVED
    archived_without_note.ClearField("finding")
    archived_without_note.finding_id = ""
    cases.append((archived_without_note, "hypotheses[0].archive_note"))
    for tampered, field in cases:
        with pytest.raises(errors.InvalidArgument) as raised:
            import_convert.engagement_import_from_pb(
                gpb.ImportEngagementRequest(hypotheses=[tampered]), T0 + timedelta(days=365)
            )
        assert raised.value.field == field
    resolved_without_answer = gpb.Unknown(
        id=str(uuid.uuid4()), question="q", why_it_matters="w", status=gpb.UNKNOWN_STATUS_RESOLVED
    )
    resolved_without_answer.created_at.FromDatetime(T0)
    with pytest.raises(errors.InvalidArgument) as raised:
        import_convert.engagement_import_from_pb(
            gpb.ImportEngagementRequest(unknowns=[resolved_without_answer]), T0 + timedelta(days=365)
        )
    assert raised.value.field == "unknowns[0].resolution"
