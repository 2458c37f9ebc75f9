"""In-memory fakes of the observations service's archive ports (``ObservationArchive``,
``EngagementArchive``): the rules the Postgres adapters keep, over dicts.

Ids are global, as primary keys are: an id another org holds is refused with AlreadyExists and, a
call being one transaction, nothing of it is written. The contract suite
(tests/integration/observations/test_archive_contract.py) runs the same cases on both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from lore_runtime import errors
from observations_svc.domain.engagement import Finding, Hypothesis, Unknown
from observations_svc.domain.model import CURRENT_STATUSES, Observation
from observations_svc.domain.restore import EngagementRow
from observations_svc.usecases.engagement_ports import RestoreCounts


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
