"""The services' own metrics on a service registry: the agent's extraction-path counter, fed by the
real model extractor as it takes each path."""

from __future__ import annotations

from agent_svc.adapters.model_extractor import ModelExtractor
from agent_svc.adapters.openai_chat import LanguageModelUnavailable
from agent_svc.adapters.prometheus_metrics import EngagementSkipCounter, ExtractionPathCounter
from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules import RuleExtractor
from lore_runtime.metrics import ServiceMetrics


class ScriptedModel:
    """Answers ``complete_json`` from a script: a string is the answer, an exception is raised."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)

    async def complete_json(self, system: str, user: str, schema: dict, schema_name: str) -> str:
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _count(metrics: ServiceMetrics, operation: str, path: str, reason: str = "") -> float:
    labels = {"operation": operation, "path": path, "reason": reason}
    return metrics.registry.get_sample_value("lore_model_calls_total", labels) or 0.0


async def test_each_extraction_path_is_counted_by_operation_path_and_reason():
    metrics = ServiceMetrics()
    paths = ExtractionPathCounter(metrics.registry)
    turns = [Utterance("user", "We suspect churn comes from pricing.", "t1")]
    valid = '{"hypotheses": [], "unknowns": []}'
    script = ScriptedModel(
        valid,  # engagement: model
        "{}",  # engagement: rejected, asked again ...
        valid,  # ... and valid: retried
        "{}",  # engagement: rejected twice: fallback (invalid)
        "not json",
        LanguageModelUnavailable("timed out"),  # reflect: fallback (unavailable)
    )
    extractor = ModelExtractor(script, fallback=RuleExtractor(), paths=paths)
    for _ in range(3):
        await extractor.engagement(turns)
    await extractor.reflect(turns[0], [])

    assert _count(metrics, "engagement", "model") == 1
    assert _count(metrics, "engagement", "retried") == 1
    assert _count(metrics, "engagement", "fallback", "invalid") == 1
    assert _count(metrics, "reflect", "fallback", "unavailable") == 1
    assert script.answers == []


def test_engagement_skips_are_counted_by_reason():
    metrics = ServiceMetrics()
    skipped = EngagementSkipCounter(metrics.registry)

    skipped("TOO_MANY_ACTIVE_HYPOTHESES")
    skipped("TOO_MANY_ACTIVE_HYPOTHESES")
    skipped("TOO_MANY_OPEN_UNKNOWNS")

    def count(reason: str) -> float:
        return metrics.registry.get_sample_value("lore_agent_engagement_skips_total", {"reason": reason}) or 0.0

    assert (count("TOO_MANY_ACTIVE_HYPOTHESES"), count("TOO_MANY_OPEN_UNKNOWNS")) == (2, 1)
