"""The deterministic rule-based extractor (the offline default): patterns, a lexicon, extractive
summaries. Pure Python, standard library only. See docs/extraction.md."""

from agent_svc.domain.rules.extractor import RuleExtractor

__all__ = ["RuleExtractor"]
