"""What the engagement use cases need from the outside world (implemented in adapters/).

Every mutation is a read-decide-write on one row, so the store runs the domain's decision
inside its own transaction with that row locked: ``decide`` is a pure function from the
current state (or a count) to the new one, and may raise to write nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from observations_svc.domain.engagement import (
    Engagement,
    EngagementDigest,
    Finding,
    Hypothesis,
    HypothesisChange,
    Unknown,
)
from observations_svc.domain.restore import EngagementRow


@dataclass(frozen=True, slots=True)
class RestoreCounts:
    hypotheses: int
    unknowns: int
    skipped: int


class EngagementStore(Protocol):
    """The per-org engagement state; every method is confined to ``org_id``."""

    async def read(self, org_id: str) -> Engagement:
        """The org's state (``FIRST_SESSION`` when it has none). Writes nothing."""
        ...

    async def digest(self, org_id: str) -> EngagementDigest:
        """Exactly ``digest_of(await read(org_id))``, read without the lines, revisions and closed
        records the digest leaves out (GetEngagement's ENGAGEMENT_VIEW_DIGEST). Writes nothing."""
        ...

    async def form_hypothesis(
        self, org_id: str, request_id: str, now: datetime, decide: Callable[[int], Hypothesis]
    ) -> Hypothesis:
        """Create the org's state on its first write (at ``now``), then insert ``decide(active hypothesis
        count)``, serialised per org. A replayed non-empty ``request_id`` returns the hypothesis it formed
        and calls nothing."""
        ...

    async def change_hypothesis(
        self,
        org_id: str,
        hypothesis_id: str,
        decide: Callable[[Hypothesis], HypothesisChange],
        *,
        request_id: str = "",
    ) -> HypothesisChange:
        """Lock the hypothesis, persist ``decide(it)``. NotFound when the org has no such hypothesis.
        A replayed non-empty ``request_id`` (of an evidence line) returns the current state unchanged."""
        ...

    async def add_unknown(
        self, org_id: str, request_id: str, now: datetime, decide: Callable[[int], Unknown]
    ) -> Unknown:
        """Insert ``decide(open unknown count)``, serialised per org; replays as ``form_hypothesis``."""
        ...

    async def change_unknown(self, org_id: str, unknown_id: str, decide: Callable[[Unknown], Unknown]) -> Unknown:
        """Lock the unknown, persist ``decide(it)``. NotFound when the org has no such unknown."""
        ...

    async def advance_week(self, org_id: str, expected_week: int | None, now: datetime) -> int:
        """Add one to the week atomically (concurrent calls all count) and return it. With
        ``expected_week``, Conflict unless the week is that one when the row is locked."""
        ...


class EngagementArchive(Protocol):
    """An org's whole engagement state, for ``lore org export`` / ``import`` (GetEngagement's view is bounded)."""

    async def export_row(self, org_id: str) -> EngagementRow | None:
        """The org's engagement row, or None when it has no engagement state."""
        ...

    async def export_hypotheses(
        self, org_id: str, after: tuple[datetime, str] | None, limit: int
    ) -> list[tuple[Hypothesis, Finding | None]]:
        """Up to ``limit`` hypotheses of any status, with evidence, revisions and their finding,
        ordered by (created_at, id) strictly after ``after``."""
        ...

    async def export_unknowns(self, org_id: str, after: tuple[datetime, str] | None, limit: int) -> list[Unknown]:
        """Up to ``limit`` unknowns, open or resolved, ordered by (created_at, id) strictly after ``after``."""
        ...

    async def restore(
        self,
        org_id: str,
        row: EngagementRow | None,
        hypotheses: Sequence[tuple[Hypothesis, Finding | None]],
        unknowns: Sequence[Unknown],
    ) -> RestoreCounts:
        """In one transaction: create the org's row from ``row`` when it has none, then insert each
        hypothesis (with its evidence lines, revisions and finding) and unknown exactly as given,
        skipping those whose id the org already holds. InvalidArgument("engagement") when the org has
        no row and none is given; AlreadyExists when an id is another org's (nothing is written)."""
        ...
