"""When a candidate is the same claim, when a different claim wins, and revalidation verdicts."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta
from typing import Any

from observations_svc.domain import confidence
from observations_svc.domain.model import (
    CURRENT_STATUSES,
    REVALIDATION_CADENCE,
    ConfidenceComponents,
    Evidence,
    EvidenceDraft,
    Observation,
)

# Below this freshness a current belief is stale: with freshness 0.5^(age / cadence) that is
# exactly "past its revalidation date".
STALE_BELOW = 0.5

_SPACES = re.compile(r"\s+")


def normalise_claim(summary: str) -> str:
    """Case, spacing and final punctuation do not make a different claim."""
    return _SPACES.sub(" ", summary.casefold()).strip().rstrip(".!;")


def same_claim(a: str, b: str) -> bool:
    return normalise_claim(a) == normalise_claim(b)


def challenger_wins(incumbent: ConfidenceComponents, incumbent_freshness: float) -> bool:
    """With the challenger's evidence already recorded against it, the incumbent yields when its
    contradiction weight reaches its support weight, or when it is already stale. Ties go to the
    newer claim."""
    return incumbent.contradiction_weight >= incumbent.support_weight or incumbent_freshness < STALE_BELOW


def outweighed(parts: ConfidenceComponents) -> bool:
    """Invalidated: contradiction strictly outweighs support."""
    return parts.contradiction_weight > parts.support_weight


@dataclass(frozen=True, slots=True)
class Assessment:
    components: ConfidenceComponents
    confidence: float
    freshness: float
    last_supported_at: datetime | None
    revalidation_due_at: datetime
    status: str

    def measures(self) -> dict[str, Any]:
        """What the assessment sets on a belief besides its status (which a caller may keep): every
        other field, each named as the belief's."""
        return {field.name: getattr(self, field.name) for field in fields(self) if field.name != "status"}


def assess(kind: str, evidence: list[EvidenceDraft | Evidence], created_at: datetime, now: datetime) -> Assessment:
    """Confidence, freshness and the status a current belief should have now."""
    cadence: timedelta = REVALIDATION_CADENCE[kind]
    parts = confidence.components(evidence, now, cadence)  # type: ignore[arg-type]
    last_supported = max((item.observed_at for item in evidence if item.stance == "support"), default=None)
    anchor = last_supported or created_at
    freshness = confidence.decay(anchor, now, cadence)
    if outweighed(parts):
        status = "invalidated"
    elif freshness < STALE_BELOW:
        status = "stale"
    else:
        status = "active"
    return Assessment(parts, confidence.composite(parts), freshness, last_supported, anchor + cadence, status)


def after_erasure(observation: Observation, now: datetime) -> Observation:
    """A belief that lost part of its evidence to an erasure, assessed again from what is left: its
    confidence, components and freshness change in place (docs/decisions.md); a current belief takes
    the status the rest calls for (stale, or invalidated when contradiction now outweighs support),
    a superseded or invalidated one stays what it was."""
    return reassessed(observation, now, keep_status=observation.status not in CURRENT_STATUSES)


def reassessed(observation: Observation, now: datetime, *, keep_status: bool = False) -> Observation:
    """``observation`` assessed again from its evidence as of ``now``: confidence, components,
    freshness and revalidation date change; the status becomes the verdict's unless ``keep_status``."""
    verdict = assess(observation.kind, list(observation.evidence), observation.created_at, now)
    return replace(
        observation, **verdict.measures(), status=observation.status if keep_status else verdict.status, updated_at=now
    )
