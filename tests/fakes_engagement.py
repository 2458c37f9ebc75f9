"""An in-memory ``EngagementStore`` over dicts: the rules ``PostgresEngagementStore`` keeps.

Every call is confined to its org (another org's hypothesis or unknown is NotFound, as row-level
security makes it in Postgres); the org's state row is made by its first write; a replayed request id
returns what the first call wrote; ``decide`` runs against the current state and, when it raises,
nothing is written. No ``await`` happens between a read and its write, so each call is atomic as the
adapter's locked transaction is. tests/integration/observations/test_engagement_store_contract.py
holds it to the Postgres adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from lore_runtime.errors import Conflict, NotFound
from observations_svc.domain import engagement_limits as limits
from observations_svc.domain.engagement import (
    FIRST_SESSION,
    Engagement,
    EngagementDigest,
    Finding,
    Hypothesis,
    HypothesisChange,
    HypothesisStatus,
    Unknown,
    UnknownStatus,
    digest_of,
)


@dataclass
class _OrgState:
    week_number: int
    hypotheses: dict[str, Hypothesis] = field(default_factory=dict)
    unknowns: dict[str, Unknown] = field(default_factory=dict)
    findings: dict[str, Finding] = field(default_factory=dict)
    # request id -> the id of the hypothesis / unknown it formed; request ids of evidence lines
    formed_by: dict[str, str] = field(default_factory=dict)
    asked_by: dict[str, str] = field(default_factory=dict)
    evidence_requests: set[str] = field(default_factory=set)


def _in_order(hypothesis: Hypothesis) -> Hypothesis:
    """Evidence as the adapter reads it back: by (recorded_at, id)."""
    return replace(
        hypothesis, evidence=tuple(sorted(hypothesis.evidence, key=lambda line: (line.recorded_at, line.id)))
    )


class InMemoryEngagementStore:
    def __init__(self) -> None:
        self.orgs: dict[str, _OrgState] = {}

    def _state(self, org_id: str) -> _OrgState:
        """The org's state, or a new one (week 1) that ``_keep`` stores once the write succeeded: a
        refused first write leaves no state behind, as the adapter's rolled-back transaction does."""
        return self.orgs.get(org_id) or _OrgState(week_number=1)

    def _keep(self, org_id: str, state: _OrgState) -> None:
        self.orgs[org_id] = state

    async def read(self, org_id: str) -> Engagement:
        state = self.orgs.get(org_id)
        if state is None:
            return FIRST_SESSION
        hypotheses = list(state.hypotheses.values())
        active = sorted(
            (h for h in hypotheses if h.status is HypothesisStatus.ACTIVE), key=lambda h: (h.created_at, h.id)
        )
        closed = sorted(
            (h for h in hypotheses if h.status is not HypothesisStatus.ACTIVE),
            key=lambda h: (-h.updated_at.timestamp(), h.id),
        )[: limits.CLOSED_HYPOTHESES_SHOWN]
        unknowns = list(state.unknowns.values())
        open_ = sorted((u for u in unknowns if u.status is UnknownStatus.OPEN), key=lambda u: (u.created_at, u.id))
        resolved = sorted(
            (u for u in unknowns if u.status is UnknownStatus.RESOLVED),
            key=lambda u: (-u.resolved_at.timestamp() if u.resolved_at else 0.0, u.id),
        )[: limits.RESOLVED_UNKNOWNS_SHOWN]
        findings = sorted(state.findings.values(), key=lambda f: (-f.recorded_at.timestamp(), f.id))
        return Engagement(
            week_number=state.week_number,
            first_session=False,
            hypotheses=(*active, *closed),
            unknowns=(*open_, *resolved),
            findings=tuple(findings[: limits.FINDINGS_SHOWN]),
        )

    async def digest(self, org_id: str) -> EngagementDigest:
        return digest_of(await self.read(org_id))

    async def form_hypothesis(
        self, org_id: str, request_id: str, now: datetime, decide: Callable[[int], Hypothesis]
    ) -> Hypothesis:
        state = self._state(org_id)
        if request_id and request_id in state.formed_by:
            return state.hypotheses[state.formed_by[request_id]]
        active = sum(h.status is HypothesisStatus.ACTIVE for h in state.hypotheses.values())
        hypothesis = decide(active)
        state.hypotheses[hypothesis.id] = _in_order(hypothesis)
        if request_id:
            state.formed_by[request_id] = hypothesis.id
        self._keep(org_id, state)
        return hypothesis

    async def change_hypothesis(
        self,
        org_id: str,
        hypothesis_id: str,
        decide: Callable[[Hypothesis], HypothesisChange],
        *,
        request_id: str = "",
    ) -> HypothesisChange:
        state = self.orgs.get(org_id)
        current = state.hypotheses.get(hypothesis_id) if state else None
        if state is None or current is None:
            raise NotFound(
                f"no hypothesis {hypothesis_id}", reason="HYPOTHESIS_NOT_FOUND", metadata={"id": hypothesis_id}
            )
        if request_id and request_id in state.evidence_requests:
            return HypothesisChange(hypothesis=current)
        change = decide(current)
        state.hypotheses[hypothesis_id] = _in_order(change.hypothesis)
        if change.finding is not None:
            state.findings[change.finding.id] = change.finding
        if request_id and change.new_evidence:
            state.evidence_requests.add(request_id)
        return change

    async def add_unknown(
        self, org_id: str, request_id: str, now: datetime, decide: Callable[[int], Unknown]
    ) -> Unknown:
        state = self._state(org_id)
        if request_id and request_id in state.asked_by:
            return state.unknowns[state.asked_by[request_id]]
        open_count = sum(u.status is UnknownStatus.OPEN for u in state.unknowns.values())
        unknown = decide(open_count)
        state.unknowns[unknown.id] = unknown
        if request_id:
            state.asked_by[request_id] = unknown.id
        self._keep(org_id, state)
        return unknown

    async def change_unknown(self, org_id: str, unknown_id: str, decide: Callable[[Unknown], Unknown]) -> Unknown:
        state = self.orgs.get(org_id)
        current = state.unknowns.get(unknown_id) if state else None
        if state is None or current is None:
            raise NotFound(f"no unknown {unknown_id}", reason="UNKNOWN_NOT_FOUND", metadata={"id": unknown_id})
        unknown = decide(current)
        state.unknowns[unknown_id] = unknown
        return unknown

    async def advance_week(self, org_id: str, expected_week: int | None, now: datetime) -> int:
        state = self._state(org_id)
        if expected_week is not None and expected_week != state.week_number:
            raise Conflict(
                f"the week is {state.week_number}, not {expected_week}: another call advanced it",
                reason="WEEK_MOVED",
                metadata={"week_number": str(state.week_number)},
            )
        state.week_number += 1
        self._keep(org_id, state)
        return state.week_number
