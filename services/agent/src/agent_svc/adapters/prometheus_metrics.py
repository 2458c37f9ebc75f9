"""The agent's own Prometheus metrics, on the service's registry (``lore_runtime.metrics``).

The job queue's depth is sampled from the queue table when scraped (cached a few seconds), summed
over every org: an org label would make a series per tenant. The language model's calls are counted
by the path each took as it is taken (``ModelExtractor`` records each extraction's, ``ModelReplies``
each reply's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import asyncpg
from lore_runtime.metrics import GaugeFamily, SampledGauges, Samples
from prometheus_client import CollectorRegistry, Counter

from agent_svc.adapters.pgqueuer_jobs import queue_totals

if TYPE_CHECKING:  # the model extractor (and its HTTP client) is imported only when a model is configured
    from agent_svc.adapters.model_extractor import ExtractionPath

JOBS = "lore_agent_jobs"
OLDEST_QUEUED = "lore_agent_jobs_oldest_queued_seconds"
JOB_STATUSES = ("queued", "running", "retrying", "dead")


def queue_depth(pool: asyncpg.Pool, *, max_age: float = 10.0) -> SampledGauges:
    async def sample() -> Samples:
        counts = await queue_totals(pool)
        return {
            JOBS: [((c.kind, status), getattr(c, status)) for c in counts for status in JOB_STATUSES],
            OLDEST_QUEUED: [((c.kind,), c.oldest_queued_seconds) for c in counts],
        }

    return SampledGauges(
        [
            GaugeFamily(
                JOBS, "Jobs in the queue by kind and status (queued, running, retrying, dead)", ("kind", "status")
            ),
            GaugeFamily(OLDEST_QUEUED, "Age of the oldest job waiting to run, by kind (0: none waits)", ("kind",)),
        ],
        sample,
        max_age=max_age,
    )


MODEL_CALLS = "lore_model_calls_total"


class ExtractionPathCounter:
    """The ``PathRecorder`` of the model's calls as a counter: operation reflect, summarise, engagement
    or reply; path model (first answer valid), retried (valid on the second ask), partial (good items
    kept, bad ones dropped), fallback (the rules answered, or the turn went without a reply; reason:
    unavailable, invalid or timeout)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._counter = Counter(
            MODEL_CALLS.removesuffix("_total"),
            "Language-model calls by operation, path taken and fallback reason",
            ["operation", "path", "reason"],
            registry=registry,
        )

    def record(self, operation: str, path: ExtractionPath, reason: str = "") -> None:
        self._counter.labels(operation, path, reason).inc()


class EngagementSkipCounter:
    """Reflection's engagement writes skipped because a limit was reached (``reason``: the service's,
    e.g. TOO_MANY_ACTIVE_HYPOTHESES): a full list is a logged, counted skip, never a failed job."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._counter = Counter(
            "lore_agent_engagement_skips_total",
            "Engagement writes reflection skipped because the organisation's limit was reached, by reason",
            ["reason"],
            registry=registry,
        )

    def __call__(self, reason: str) -> None:
        self._counter.labels(reason).inc()


def register(registry: CollectorRegistry, pool: asyncpg.Pool) -> ExtractionPathCounter:
    """Registers the queue gauges; returns the extraction counter for the model extractor."""
    registry.register(queue_depth(pool))
    return ExtractionPathCounter(registry)
