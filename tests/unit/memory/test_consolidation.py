"""Consolidation: which near-duplicates fold into which survivor, what the survivor inherits,
and that running it again changes nothing."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_svc.domain.consolidation import find_folds
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from memory_svc.usecases.consolidate import run_consolidation

from tests.fakes import FixedClock, InMemoryMemoryIndex, InMemoryOrderGenerations

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _item(**fields) -> MemoryItem:
    values = dict(
        id=str(uuid.uuid4()),
        org_id="org-a",
        content="x",
        memory_type=MemoryType.FACT,
        scope=Scope(user_id="u"),
        importance=0.5,
        status=MemoryStatus.ACTIVE,
        metadata={},
        provenance=Provenance(),
        entities=(),
        created_at=T0,
        valid_at=T0,
        last_accessed_at=T0,
    )
    values.update(fields)
    return MemoryItem(**values)


def _unit(*components: float) -> np.ndarray:
    vector = np.asarray(components, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_near_duplicates_fold_into_the_most_accessed_with_the_union_of_provenance():
    survivor = _item(
        access_count=3, provenance=Provenance(session_id="s1", turn_ids=("t1",)), entities=("tea",), importance=0.4
    )
    twin = _item(
        access_count=1,
        provenance=Provenance(session_id="s2", turn_ids=("t7", "t8")),
        entities=("sam", "tea"),
        importance=0.9,
        last_accessed_at=T0 + timedelta(days=3),
    )
    unrelated = _item(access_count=9)
    vectors = np.vstack([_unit(1, 0.01, 0), _unit(1, 0, 0), _unit(0, 1, 0)])

    (fold,) = find_folds([twin, survivor, unrelated], vectors[[1, 0, 2]], threshold=0.92)

    kept = fold.survivor
    assert kept.id == survivor.id and kept.status is MemoryStatus.ACTIVE
    assert kept.provenance.turn_ids == ("t1", "t7", "t8")
    assert kept.provenance.session_ids == ("s2",)
    assert kept.provenance.consolidated_from == (twin.id,)
    assert kept.entities == ("tea", "sam")
    assert (kept.importance, kept.access_count) == (0.9, 4)
    assert kept.last_accessed_at == T0 + timedelta(days=3)
    (member,) = fold.members
    assert member.id == twin.id
    assert member.status is MemoryStatus.CONSOLIDATED
    assert member.provenance.consolidated_into == survivor.id


def test_a_chain_of_similar_items_never_folds_the_ends_together():
    # a ≈ b and b ≈ c, but a and c are not near-duplicates: c must stay on its own.
    a, b, c = _item(access_count=2), _item(access_count=1), _item()
    angle = np.deg2rad(20)  # cos 20° = 0.94 between neighbours, cos 40° = 0.77 between the ends
    vectors = np.vstack([_unit(1, 0), _unit(np.cos(angle), np.sin(angle)), _unit(np.cos(2 * angle), np.sin(2 * angle))])

    folds = find_folds([a, b, c], vectors, threshold=0.92)

    assert [(fold.survivor.id, [member.id for member in fold.members]) for fold in folds] == [(a.id, [b.id])]


@settings(max_examples=50, deadline=None)
@given(st.permutations(range(6)), st.integers(min_value=0, max_value=2**31))
def test_the_folds_do_not_depend_on_the_order_items_arrive_in(order, seed):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(2, 8))
    vectors = np.vstack([base[index % 2] + rng.normal(scale=0.05, size=8) for index in range(6)])
    items = [_item(id=f"00000000-0000-0000-0000-00000000000{index}", access_count=index % 3) for index in range(6)]

    expected = find_folds(items, vectors, threshold=0.9)
    shuffled = find_folds([items[index] for index in order], vectors[list(order)], threshold=0.9)

    assert shuffled == expected


async def test_the_job_folds_exact_scopes_and_types_only_and_a_second_run_changes_nothing():
    index = InMemoryMemoryIndex()
    fact = _item(content="Sam drinks green tea", access_count=2)
    fact_twin = _item(content="Sam drinks green tea!")
    other_user = _item(content="Sam drinks green tea", scope=Scope(user_id="v"))
    with_agent = _item(content="Sam drinks green tea", scope=Scope(user_id="u", agent_id="aria"))
    message = _item(content="Sam drinks green tea", memory_type=MemoryType.MESSAGE)
    message_twin = _item(content="Sam drinks green tea", memory_type=MemoryType.MESSAGE)
    items = [fact, fact_twin, other_user, with_agent, message, message_twin]
    same = _unit(1, 0, 0)
    await index.upsert(items, np.vstack([same] * len(items)))
    clock = FixedClock(T0 + timedelta(days=1))

    async def consolidate(**options):
        defaults = dict(scope=None, memory_types=(), threshold=0.92, dry_run=False, catalog=index, clock=clock)
        return await run_consolidation("org-a", **{**defaults, **options})

    preview = await consolidate(dry_run=True)
    assert (preview.examined, preview.groups, preview.consolidated) == (4, 1, 1)
    assert (await index.get("org-a", [fact_twin.id]))[0].status is MemoryStatus.ACTIVE  # a dry run writes nothing

    report = await consolidate()
    assert (report.groups, report.consolidated) == (1, 1)
    twin_after, fact_after, agent_after = await index.get("org-a", [fact_twin.id, fact.id, with_agent.id])
    assert twin_after.status is MemoryStatus.CONSOLIDATED and twin_after.provenance.consolidated_into == fact.id
    assert fact_after.provenance.consolidated_from == (fact_twin.id,)
    assert agent_after.status is MemoryStatus.ACTIVE  # another scope, however similar

    again = await consolidate()
    assert (again.groups, again.consolidated) == (0, 0)

    messages = await consolidate(memory_types=[MemoryType.MESSAGE], scope=Scope(user_id="u"))
    assert (messages.examined, messages.consolidated) == (2, 1)


async def test_another_orgs_items_are_never_read_or_folded():
    index = InMemoryMemoryIndex()
    mine, theirs = _item(), _item(org_id="org-b")
    await index.upsert([mine, theirs], np.vstack([_unit(1, 0), _unit(1, 0)]))

    report = await run_consolidation(
        "org-a", scope=None, memory_types=(), threshold=0.92, dry_run=False, catalog=index, clock=FixedClock(T0)
    )

    assert (report.examined, report.consolidated) == (1, 0)
    assert (await index.get("org-b", [theirs.id]))[0].status is MemoryStatus.ACTIVE


async def test_maintenance_decays_and_folds_every_org_and_one_failing_org_spares_the_others():
    from memory_svc.usecases.maintenance import run_maintenance

    class OneOrgBroken(InMemoryMemoryIndex):
        def iterate(self, org_id, scope, batch_size):
            if org_id == "org-broken":
                raise ConnectionError("shard unavailable")
            return super().iterate(org_id, scope, batch_size)

    index = OneOrgBroken()
    items = [_item(org_id=org) for org in ("org-a", "org-a", "org-b", "org-b", "org-broken")]
    await index.upsert(items, np.vstack([_unit(1, 0)] * len(items)))

    totals = await run_maintenance(
        catalog=index,
        clock=FixedClock(T0 + timedelta(days=30)),
        threshold=0.92,
        generations=InMemoryOrderGenerations(),
    )

    assert totals == {
        "orgs": 3,
        "failed_orgs": 1,
        "salience_updated": 4,
        "episode_salience_updated": 0,
        "groups": 2,
        "consolidated": 2,
    }
