"""What reflection needs beyond the transcript, memory and working memory: the observations
service's Observe (a claim with its evidence) and the org's engagement state. The extractor it
reads turns with is a port of the domain (domain/extraction.py's Extractor)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from agent_svc.domain.engagement import ActiveHypothesis, EngagementView
from agent_svc.domain.extraction import ExtractedClaim
from agent_svc.domain.transcript import Scope


@dataclass(frozen=True, slots=True)
class Evidence:
    turn_id: str
    memory_ids: tuple[str, ...]
    observed_at: datetime


class Observations(Protocol):
    async def observe(self, scope: Scope, claim: ExtractedClaim, evidence: Evidence, request_id: str) -> list[str]:
        """Observations.Observe: the claim, with the turn and the memories as evidence. Returns, when the
        claim superseded the slot's earlier belief, the memories that were that belief's evidence."""
        ...


class Engagement(Protocol):
    """The org's engagement state (observations EngagementService). A full list or a closed
    hypothesis raises the service's error (QuotaExceeded, FailedPrecondition)."""

    async def state(self) -> EngagementView:
        """The active hypotheses and the open unknowns' questions."""
        ...

    async def form(self, statement: str, request_id: str) -> ActiveHypothesis:
        """Form a hypothesis without evidence; a replayed request id returns the one it formed."""
        ...

    async def add_evidence(
        self, hypothesis_id: str, statement: str, supports: bool, source: str, request_id: str
    ) -> ActiveHypothesis:
        """One evidence line (a replayed request id adds nothing); the hypothesis as it now stands."""
        ...

    async def promote(self, hypothesis_id: str, source: str) -> None: ...

    async def archive(self, hypothesis_id: str, note: str) -> None: ...

    async def add_unknown(self, question: str, why_it_matters: str, request_id: str) -> None: ...
