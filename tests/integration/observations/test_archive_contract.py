"""One contract for the archive ports of ``lore org export`` / ``import``: the fakes of
tests/fakes_observations.py and the Postgres adapters (as lore_app, under row-level security).

Each test runs on both: what the transfer use cases are unit-tested against is what production does.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from lore_runtime import errors
from lore_runtime.stores import open_postgres
from observations_svc.adapters.postgres.engagement_archive import PostgresEngagementArchive
from observations_svc.adapters.postgres.observation_archive import PostgresObservationArchive
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
from observations_svc.domain.restore import EngagementRow

from tests.fakes_observations import InMemoryEngagementArchive, InMemoryObservationArchive

T0 = datetime(2026, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)
VECTOR = [1.0] + [0.0] * 383


@pytest.fixture(params=["fake", "postgres"])
async def archives(request: pytest.FixtureRequest, migrated_pg) -> AsyncIterator[tuple[object, object]]:
    if request.param == "fake":
        yield InMemoryObservationArchive(), InMemoryEngagementArchive()
        return
    async with AsyncExitStack() as stack:
        pool = await open_postgres(stack, migrated_pg.app_dsn, vectors=True)
        yield PostgresObservationArchive(pool), PostgresEngagementArchive(pool)


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def observation(at: datetime, *, slot: str = "drink", status: str = "active", supersedes: str | None = None, **fields):
    observation_id = str(uuid.uuid4())
    values = dict(
        id=observation_id,
        org_id="ignored",
        agent_id="aria",
        kind="operator_preference",
        subject_type="entity",
        subject_id="sam",
        slot=slot,
        canonical_key=f"entity:sam:operator_preference:{slot}",
        summary=f"Sam {slot} {observation_id[:4]}",
        detail="",
        tags=("t",),
        confidence=0.61,
        components=ConfidenceComponents(2, 0.5, 3.0, 1.0, 0.97, 0.1),
        freshness=0.93,
        last_supported_at=at,
        revalidation_due_at=at + timedelta(days=30),
        status=status,
        supersedes_observation_id=supersedes,
        created_at=at,
        updated_at=at + timedelta(seconds=1),
        evidence=(
            Evidence(str(uuid.uuid4()), observation_id, "support", 2.0, "memory_item", "m-1", "e", at, False, at),
            Evidence(
                str(uuid.uuid4()),
                observation_id,
                "contradict",
                1.0,
                "message",
                "t-1",
                "",
                at,
                True,
                at + timedelta(microseconds=1),
            ),
        ),
    )
    values.update(fields)
    return Observation(**values)


def restored(item: Observation, org: str) -> Observation:
    return replace(item, org_id=org)


async def test_observations_round_trip_in_created_order_with_their_evidence(archives):
    store, _ = archives
    org = new_org()
    old = observation(T0, status="superseded")
    new = observation(T0 + timedelta(seconds=5), supersedes=old.id)
    other = observation(T0 + timedelta(seconds=2), slot="seat", status="stale")
    await store.insert_restored(org, [old, other, new], [VECTOR] * 3)
    assert await store.export_page(org, None, 10) == [restored(old, org), restored(other, org), restored(new, org)]
    first = await store.export_page(org, None, 2)
    assert [item.id for item in first] == [old.id, other.id]
    rest = await store.export_page(org, (first[-1].created_at, first[-1].id), 2)
    assert [item.id for item in rest] == [new.id]
    assert await store.export_page(new_org(), None, 10) == []
    fetched = await store.get_many(org, [new.id, old.id])
    assert [item.id for item in fetched] == [new.id, old.id] and fetched[0].evidence == ()


async def test_an_id_of_another_org_is_refused_and_nothing_of_the_call_is_written(archives):
    store, _ = archives
    owner, thief = new_org(), new_org()
    held = observation(T0)
    await store.insert_restored(owner, [held], [VECTOR])
    innocent = observation(T0, slot="seat")
    with pytest.raises(errors.AlreadyExists):
        await store.insert_restored(thief, [innocent, held], [VECTOR, VECTOR])
    assert await store.export_page(thief, None, 10) == []
    assert await store.export_page(owner, None, 10) == [restored(held, owner)]
    evidence_thief = observation(T0, slot="desk", evidence=(replace(held.evidence[0], observation_id=""),))
    evidence_thief = replace(evidence_thief, evidence=(replace(held.evidence[0], observation_id=evidence_thief.id),))
    with pytest.raises(errors.AlreadyExists):
        await store.insert_restored(thief, [evidence_thief], [VECTOR])
    assert await store.export_page(thief, None, 10) == []


async def test_a_second_current_belief_of_a_key_is_a_conflict(archives):
    store, _ = archives
    org = new_org()
    await store.insert_restored(org, [observation(T0)], [VECTOR])
    with pytest.raises(errors.Conflict):
        await store.insert_restored(org, [observation(T0 + timedelta(seconds=1))], [VECTOR])


async def test_scope_and_attribution_round_trip_and_one_current_belief_per_scope(archives):
    store, _ = archives
    org = new_org()
    anas = observation(T0, user_id="ana")
    bos = observation(T0 + timedelta(seconds=1), user_id="bo", team_id="team-1")
    shared = observation(T0 + timedelta(seconds=2))
    old = observation(T0 + timedelta(seconds=3), unattributed=True)
    await store.insert_restored(org, [anas, bos, shared, old], [VECTOR] * 4)
    assert await store.export_page(org, None, 10) == [restored(item, org) for item in (anas, bos, shared, old)]
    with pytest.raises(errors.Conflict):
        await store.insert_restored(org, [observation(T0 + timedelta(seconds=4), user_id="ana")], [VECTOR])
    await store.insert_restored(org, [observation(T0 + timedelta(seconds=5), unattributed=True)], [VECTOR])
    assert len(await store.export_page(org, None, 10)) == 5


def hypothesis(at: datetime, status: HypothesisStatus = HypothesisStatus.ACTIVE, **fields) -> Hypothesis:
    hypothesis_id = str(uuid.uuid4())
    revision = Revision("Emails help.", "Emails cut churn.", 0.6, 0.85, "Cohort C had none.", at + timedelta(1))
    values = dict(
        id=hypothesis_id,
        statement="Emails cut churn.",
        confidence=0.9,
        status=status,
        prior=0.85,
        evidence=(
            EvidenceLine(str(uuid.uuid4()), "A kept users.", Stance.SUPPORT, 1.0, "", at, at, 0),
            EvidenceLine(str(uuid.uuid4()), "C churned.", Stance.CONTRADICT, 2.0, "survey", at, at + timedelta(1), 0),
            EvidenceLine(str(uuid.uuid4()), "D kept users.", Stance.SUPPORT, 1.0, "", at, at + timedelta(2), 1),
        ),
        revisions=(revision,),
        created_at=at,
        updated_at=at + timedelta(3),
    )
    values.update(fields)
    return Hypothesis(**values)


async def test_engagement_state_round_trips_with_findings_and_unknowns(archives):
    _, store = archives
    org = new_org()
    assert await store.export_row(org) is None
    with pytest.raises(errors.InvalidArgument):
        await store.restore(org, None, [], [])
    row = EngagementRow(week_number=3, week_started_at=T0 + timedelta(7), created_at=T0, updated_at=T0 + timedelta(7))
    promoted = hypothesis(T0, HypothesisStatus.PROMOTED)
    finding = Finding(str(uuid.uuid4()), "Emails cut churn.", "crm", promoted.id, T0 + timedelta(4))
    promoted = replace(promoted, finding_id=finding.id)
    archived = hypothesis(T0 + timedelta(1), HypothesisStatus.ARCHIVED, archive_note="No signal.", revisions=())
    archived = replace(archived, prior=0.5, evidence=tuple(replace(line, epoch=0) for line in archived.evidence))
    resolved = Unknown(str(uuid.uuid4()), "Who owns billing?", "Follow-up.", UnknownStatus.RESOLVED, T0, "Dana.", T0)
    open_ = Unknown(str(uuid.uuid4()), "Seasonal?", "Baseline.", UnknownStatus.OPEN, T0 + timedelta(1))

    counts = await store.restore(org, row, [(promoted, finding), (archived, None)], [open_, resolved])
    assert (counts.hypotheses, counts.unknowns, counts.skipped) == (2, 2, 0)
    assert await store.export_row(org) == row
    assert await store.export_hypotheses(org, None, 10) == [(promoted, finding), (archived, None)]
    assert [h.id for h, _ in await store.export_hypotheses(org, (promoted.created_at, promoted.id), 10)] == [
        archived.id
    ]
    assert await store.export_unknowns(org, None, 10) == [resolved, open_]
    assert await store.export_unknowns(org, (resolved.created_at, resolved.id), 1) == [open_]

    # Again: nothing changes, the row included (it is only created when missing).
    later = replace(row, week_number=9)
    again = await store.restore(org, later, [(promoted, finding), (archived, None)], [open_, resolved])
    assert (again.hypotheses, again.unknowns, again.skipped) == (0, 0, 4)
    assert await store.export_row(org) == row

    # Another org cannot take these ids: refused, and its own new row is not written either.
    thief = new_org()
    with pytest.raises(errors.AlreadyExists):
        await store.restore(thief, row, [(hypothesis(T0), None), (archived, None)], [])
    assert await store.export_row(thief) is None
    assert await store.export_hypotheses(thief, None, 10) == []
