"""Anatomical confidence (docs/observations.md): six components and a composite in [0, 1].

composite = clamp(balance · (BASE + COUNT_SHARE·count_factor + DIVERSITY_SHARE·diversity
                             + RECENCY_SHARE·recency) + balance · boost, 0, 1)
where balance = support / (support + contradiction) (0 without support),
count_factor = 1 − exp(−distinct supporting sources / COUNT_SCALE) (diminishing returns),
diversity = distinct supporting source types / 4, recency = 0.5^(age of newest support / cadence),
boost = OPERATOR_BOOST when an operator confirmed it. Each term only grows with support and
balance only falls with contradiction, so more support never lowers it and contradiction never
raises it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timedelta

from observations_svc.domain.model import SOURCE_TYPES, ConfidenceComponents, EvidenceDraft

BASE = 0.4
COUNT_SHARE = 0.3
DIVERSITY_SHARE = 0.1
RECENCY_SHARE = 0.2
COUNT_SCALE = 3.0
OPERATOR_BOOST = 0.15
# Weight of an operator's confirmation (the "boost when an operator confirms" of §4).
OPERATOR_WEIGHT = 2.0


def components(evidence: Iterable[EvidenceDraft], now: datetime, cadence: timedelta) -> ConfidenceComponents:
    support = [item for item in evidence if item.stance in ("support", "contradict")]
    supporting = [item for item in support if item.stance == "support"]
    contradicting = [item for item in support if item.stance == "contradict"]
    newest = max((item.observed_at for item in supporting), default=None)
    return ConfidenceComponents(
        source_count=len({(item.source_type, item.source_id) for item in supporting}),
        source_diversity=len({item.source_type for item in supporting}) / len(SOURCE_TYPES),
        support_weight=sum(item.weight for item in supporting),
        contradiction_weight=sum(item.weight for item in contradicting),
        recency_weight=decay(newest, now, cadence) if newest else 0.0,
        operator_confirmed_boost=OPERATOR_BOOST if any(item.operator_confirmed for item in supporting) else 0.0,
    )


def decay(since: datetime, now: datetime, cadence: timedelta) -> float:
    """0.5 per cadence elapsed; 1 for anything not in the past."""
    age = max((now - since) / cadence, 0.0)
    return 0.5**age


def composite(parts: ConfidenceComponents) -> float:
    total = parts.support_weight + parts.contradiction_weight
    balance = parts.support_weight / total if total > 0 else 0.0
    count_factor = 1.0 - math.exp(-parts.source_count / COUNT_SCALE)
    strength = (
        BASE
        + COUNT_SHARE * count_factor
        + DIVERSITY_SHARE * parts.source_diversity
        + RECENCY_SHARE * parts.recency_weight
        + parts.operator_confirmed_boost
    )
    return min(1.0, max(0.0, balance * strength))
