"""In-memory fakes of the observations service's ports, over dicts: the rules the Postgres adapters
keep.

``InMemoryObservationArchive`` and ``InMemoryEngagementArchive`` (the archive ports): ids are global,
as primary keys are: an id another org holds is refused with AlreadyExists and, a call being one
transaction, nothing of it is written. The contract suite
(tests/integration/observations/test_archive_contract.py) runs the same cases on both.

``InMemoryObservationStore``: the part of ``ObservationStore`` that usecases/observe.py (observe,
confirm, contradict) uses — transactions, key locks, current beliefs, evidence, assessments and
applied request ids; tests/integration/observations/test_observation_store_contract.py holds it to
``PostgresObservationStore``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime, timedelta

from lore_runtime import errors
from observations_svc.domain.engagement import Finding, Hypothesis, Unknown
from observations_svc.domain.model import CURRENT_STATUSES, BeliefScope, Evidence, EvidenceDraft, Observation
from observations_svc.domain.restore import EngagementRow
from observations_svc.usecases.engagement_ports import RestoreCounts
from observations_svc.usecases.ports import AppliedRequest


def _after(items: list, key, after: tuple[datetime, str] | None, limit: int) -> list:  # type: ignore[no-untyped-def]
    ordered = sorted(items, key=key)
    if after is not None:
        ordered = [item for item in ordered if key(item) > after]
    return ordered[:limit]


class InMemoryObservationArchive:
    def __init__(self) -> None:
        self.rows: dict[str, Observation] = {}
        self.evidence_owner: dict[str, str] = {}  # evidence id -> org
        self.embeddings: dict[str, list[float]] = {}

    async def get_many(self, org_id: str, ids: Sequence[str]) -> list[Observation]:
        return [
            replace(self.rows[value], evidence=())
            for value in ids
            if value in self.rows and self.rows[value].org_id == org_id
        ]

    async def export_page(self, org_id: str, after: tuple[datetime, str] | None, limit: int) -> list[Observation]:
        mine = [row for row in self.rows.values() if row.org_id == org_id]
        return _after(mine, lambda row: (row.created_at, row.id), after, limit)

    async def insert_restored(
        self, org_id: str, observations: Sequence[Observation], embeddings: Sequence[Sequence[float]]
    ) -> None:
        staged: dict[str, Observation] = {}
        for observation in observations:
            if observation.id in self.rows or observation.id in staged:
                raise errors.id_of_another_org("observation", observation.id)
            for item in observation.evidence:
                if item.id in self.evidence_owner:
                    raise errors.id_of_another_org("evidence", item.id)
            visible = {**{k: v for k, v in self.rows.items() if v.org_id == org_id}, **staged}
            predecessor = observation.supersedes_observation_id
            if predecessor and predecessor not in visible:
                raise errors.InvalidArgument("supersedes_observation_id", "no such observation in the org")
            if predecessor and any(row.supersedes_observation_id == predecessor for row in visible.values()):
                raise errors.Conflict("a belief is superseded at most once", reason="KEY_CONFLICT")
            if (
                observation.status in CURRENT_STATUSES
                and not observation.unattributed
                and any(
                    row.status in CURRENT_STATUSES
                    and not row.unattributed
                    and (row.scope, row.canonical_key) == (observation.scope, observation.canonical_key)
                    for row in visible.values()
                )
            ):
                raise errors.Conflict("another current belief of the key", reason="KEY_CONFLICT")
            staged[observation.id] = replace(
                observation,
                org_id=org_id,
                evidence=tuple(sorted(observation.evidence, key=lambda e: (e.created_at, e.id))),
            )
        for (observation_id, observation), embedding in zip(staged.items(), embeddings, strict=True):
            self.rows[observation_id] = observation
            self.embeddings[observation_id] = list(embedding)
            for item in observation.evidence:
                self.evidence_owner[item.id] = org_id


class InMemoryEngagementArchive:
    def __init__(self) -> None:
        self.engagements: dict[str, EngagementRow] = {}
        self.hypotheses: dict[str, tuple[str, Hypothesis, Finding | None]] = {}
        self.unknowns: dict[str, tuple[str, Unknown]] = {}
        self.line_owner: dict[str, str] = {}

    async def export_row(self, org_id: str) -> EngagementRow | None:
        return self.engagements.get(org_id)

    async def export_hypotheses(
        self, org_id: str, after: tuple[datetime, str] | None, limit: int
    ) -> list[tuple[Hypothesis, Finding | None]]:
        mine = [(hypothesis, finding) for org, hypothesis, finding in self.hypotheses.values() if org == org_id]
        chosen = _after(mine, lambda pair: (pair[0].created_at, pair[0].id), after, limit)
        return [
            (
                replace(
                    hypothesis,
                    evidence=tuple(sorted(hypothesis.evidence, key=lambda line: (line.recorded_at, line.id))),
                ),
                finding,
            )
            for hypothesis, finding in chosen
        ]

    async def export_unknowns(self, org_id: str, after: tuple[datetime, str] | None, limit: int) -> list[Unknown]:
        mine = [unknown for org, unknown in self.unknowns.values() if org == org_id]
        return _after(mine, lambda unknown: (unknown.created_at, unknown.id), after, limit)

    async def restore(
        self,
        org_id: str,
        row: EngagementRow | None,
        hypotheses: Sequence[tuple[Hypothesis, Finding | None]],
        unknowns: Sequence[Unknown],
    ) -> RestoreCounts:
        if org_id not in self.engagements and row is None:
            raise errors.InvalidArgument("engagement", "is required: the organisation has no engagement state yet")
        fresh_hypotheses = []
        for hypothesis, finding in hypotheses:
            if hypothesis.id in self.hypotheses:
                if self.hypotheses[hypothesis.id][0] != org_id:
                    raise errors.id_of_another_org("hypothesis", hypothesis.id)
                continue
            for line in hypothesis.evidence:
                if line.id in self.line_owner:
                    raise errors.id_of_another_org("evidence line", line.id)
            fresh_hypotheses.append((hypothesis, finding))
        fresh_unknowns = []
        for unknown in unknowns:
            if unknown.id in self.unknowns:
                if self.unknowns[unknown.id][0] != org_id:
                    raise errors.id_of_another_org("unknown", unknown.id)
                continue
            fresh_unknowns.append(unknown)
        if row is not None:
            self.engagements.setdefault(org_id, row)
        for hypothesis, finding in fresh_hypotheses:
            self.hypotheses[hypothesis.id] = (org_id, hypothesis, finding)
            for line in hypothesis.evidence:
                self.line_owner[line.id] = org_id
        for unknown in fresh_unknowns:
            self.unknowns[unknown.id] = (org_id, unknown)
        skipped = len(hypotheses) - len(fresh_hypotheses) + len(unknowns) - len(fresh_unknowns)
        return RestoreCounts(hypotheses=len(fresh_hypotheses), unknowns=len(fresh_unknowns), skipped=skipped)


# --- the store Observe, Confirm and Contradict write through ----------------------------------------


def _is_current(row: Observation) -> bool:
    """What the ``observations_one_current`` index and ``current`` count: active or stale, attributed."""
    return row.status in CURRENT_STATUSES and not row.unattributed


def _as_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


class InMemoryObservationStore:
    """Observations (``rows``, without evidence), their ``evidence`` and the ``applied`` request ids of
    every org. A transaction stages its writes and commits them when its block ends without an error;
    ``lock_key`` holds a lock per (org, scope, key) until then, as the advisory lock does."""

    def __init__(self) -> None:
        self.rows: dict[str, Observation] = {}
        self.evidence: dict[str, list[Evidence]] = {}
        self.applied: dict[tuple[str, str], AppliedRequest] = {}
        self.embeddings: dict[str, list[float]] = {}
        self._locks: dict[tuple[str, BeliefScope, str], asyncio.Lock] = {}
        # Erasure's fences: (org, erasure id) -> the subject (as the triggers of migration 0009).
        self.fences: dict[tuple[str, str], BeliefScope] = {}

    async def fence_subject(self, org_id: str, erasure_id: str, subject: BeliefScope) -> None:
        self.fences.setdefault((org_id, erasure_id), subject)

    async def lift_subject_fence(self, org_id: str, erasure_id: str) -> None:
        self.fences.pop((org_id, erasure_id), None)

    def refuse_fenced(self, org_id: str, belief: Observation) -> None:
        for (org, erasure_id), fence in self.fences.items():
            covered = all(
                not wanted or wanted == getattr(belief.scope, name)
                for name, wanted in (
                    ("user_id", fence.user_id),
                    ("agent_id", fence.agent_id),
                    ("team_id", fence.team_id),
                )
            )
            about = (fence.user_id and (belief.subject_type, belief.subject_id) == ("entity", fence.user_id)) or (
                not fence.user_id
                and fence.agent_id
                and (belief.subject_type, belief.subject_id) == ("agent", fence.agent_id)
            )
            if org == org_id and (covered or about):
                raise errors.Conflict(
                    f"this subject is being erased (erasure {erasure_id}): nothing is written for it until the "
                    "erasure completes",
                    reason="SUBJECT_ERASING",
                )

    @asynccontextmanager
    async def transaction(self, org_id: str) -> AsyncIterator[InMemoryObservationTransaction]:
        tx = InMemoryObservationTransaction(self, org_id)
        try:
            yield tx
            tx.commit()
        finally:
            tx.release()

    async def current_summary(self, org_id: str, scope: BeliefScope, canonical_key: str) -> str | None:
        current = InMemoryObservationTransaction(self, org_id).find_current(scope, canonical_key)
        return current.summary if current is not None else None

    async def get(self, org_id: str, observation_id: str) -> Observation | None:
        return await InMemoryObservationTransaction(self, org_id).load(observation_id)


class InMemoryObservationTransaction:
    def __init__(self, store: InMemoryObservationStore, org_id: str) -> None:
        self._store = store
        self._org_id = org_id
        self._rows: dict[str, Observation] = {}
        self._evidence: dict[str, list[Evidence]] = {}
        self._applied: dict[str, AppliedRequest] = {}
        self._embeddings: dict[str, list[float]] = {}
        self._held: list[asyncio.Lock] = []
        self._held_keys: set[tuple[str, BeliefScope, str]] = set()

    def _visible(self) -> dict[str, Observation]:
        """The org's rows as this transaction sees them: committed, then its own writes."""
        merged = {**self._store.rows, **self._rows}
        return {row_id: row for row_id, row in merged.items() if row.org_id == self._org_id}

    async def lock_key(self, scope: BeliefScope, canonical_key: str) -> None:
        key = (self._org_id, scope, canonical_key)
        if key in self._held_keys:  # as a transaction's advisory locks: taking one again never waits
            return
        lock = self._store._locks.setdefault(key, asyncio.Lock())
        await lock.acquire()
        self._held.append(lock)
        self._held_keys.add(key)

    def find_current(self, scope: BeliefScope, canonical_key: str) -> Observation | None:
        for row in self._visible().values():
            if _is_current(row) and (row.scope, row.canonical_key) == (scope, canonical_key):
                return self._with_evidence(row)
        return None

    async def current(self, scope: BeliefScope, canonical_key: str) -> Observation | None:
        return self.find_current(scope, canonical_key)

    async def load(self, observation_id: str) -> Observation | None:
        if _as_uuid(observation_id) is None:
            return None
        row = self._visible().get(observation_id)
        return self._with_evidence(row) if row is not None else None

    def _with_evidence(self, row: Observation) -> Observation:
        items = [*self._store.evidence.get(row.id, []), *self._evidence.get(row.id, [])]
        return replace(row, evidence=tuple(sorted(items, key=lambda item: (item.created_at, item.id))))

    async def insert(self, observation: Observation, embedding: Sequence[float]) -> None:
        self._store.refuse_fenced(self._org_id, observation)
        visible = self._visible()
        if observation.id in {**self._store.rows, **self._rows}:
            raise errors.Conflict("an observation of that id exists", reason="KEY_CONFLICT")
        predecessor = observation.supersedes_observation_id
        if _is_current(observation) and self.find_current(observation.scope, observation.canonical_key):
            raise errors.Conflict("another write of this key won the race; retry", reason="KEY_CONFLICT")
        if predecessor and any(row.supersedes_observation_id == predecessor for row in visible.values()):
            raise errors.Conflict("another write of this key won the race; retry", reason="KEY_CONFLICT")
        self._rows[observation.id] = replace(observation, org_id=self._org_id, evidence=())
        self._embeddings[observation.id] = list(embedding)

    async def add_evidence(self, observation_id: str, drafts: Sequence[EvidenceDraft], now: datetime) -> list[Evidence]:
        visible = self._visible()
        if observation_id in visible:
            self._store.refuse_fenced(self._org_id, visible[observation_id])
        for draft in drafts:
            cited = _as_uuid(draft.source_id.strip().lower().replace("{", "").replace("}", ""))
            if cited is not None and str(cited) in visible:
                raise errors.InvalidArgument(
                    "evidence.source_id", "evidence points at raw sources, never at an observation"
                )
        added = [
            Evidence(
                str(uuid.uuid4()),
                observation_id,
                draft.stance,
                draft.weight,
                draft.source_type,
                draft.source_id,
                draft.excerpt,
                draft.observed_at,
                draft.operator_confirmed,
                now + timedelta(microseconds=position),  # as the insert: the drafts' order kept
            )
            for position, draft in enumerate(drafts)
        ]
        self._evidence.setdefault(observation_id, []).extend(added)
        return added

    async def save_assessment(self, observation: Observation) -> None:
        row = self._visible().get(observation.id)
        if row is None:  # the UPDATE matches no row
            return
        self._rows[row.id] = replace(
            row,
            confidence=observation.confidence,
            components=observation.components,
            freshness=observation.freshness,
            last_supported_at=observation.last_supported_at,
            revalidation_due_at=observation.revalidation_due_at,
            status=observation.status,
            updated_at=observation.updated_at,
        )

    async def applied(self, request_id: str) -> AppliedRequest | None:
        return self._applied.get(request_id) or self._store.applied.get((self._org_id, request_id))

    async def record_applied(self, request_id: str, method: str, applied: AppliedRequest, now: datetime) -> None:
        if await self.applied(request_id) is not None:
            raise errors.Conflict(f"request {request_id} was applied already", reason="KEY_CONFLICT")
        self._applied[request_id] = applied

    def commit(self) -> None:
        self._store.rows.update(self._rows)
        for observation_id, items in self._evidence.items():
            self._store.evidence.setdefault(observation_id, []).extend(items)
        self._store.applied.update({(self._org_id, request_id): done for request_id, done in self._applied.items()})
        self._store.embeddings.update(self._embeddings)

    def release(self) -> None:
        for lock in self._held:
            lock.release()
        self._held.clear()
