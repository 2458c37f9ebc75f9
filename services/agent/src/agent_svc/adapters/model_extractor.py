"""An ``Extractor`` that asks a language model, validates its answer and falls back to another extractor.

Each operation sends its prompt (``model_prompts``) with a JSON schema generated from the answer models
(``model_answers``), which also validate the answer. An answer that does not validate (not JSON, wrong
shape, a kind out of range, too long) is asked for once more with the validation errors; an answer whose
only faults are bad items in its lists keeps its good items (and is still asked once more, in case the
second answer is whole). A second unusable answer, or a model that is down or slow, sends the call to the
injected fallback (the rule-based extractor), so reflection always gets a result.

Reflection is hybrid: the rules read every turn too, and where they are sure (a slot they fill, a
correction) their result stands whatever the model says; the model adds the rest
(``domain/hybrid_reflection.py``). Every call records the path it took — ``model``, ``retried``,
``partial`` or ``fallback`` — for metrics.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypeVar

from agent_svc.adapters.model_answers import (
    Answer,
    EngagementAnswer,
    EpisodeAnswer,
    Parsed,
    ReflectionAnswer,
    answer_schema,
    parse_answer,
)
from agent_svc.adapters.model_prompts import (
    describe,
    engagement_prompt,
    reflect_prompt,
    retry_prompt,
    summarise_prompt,
)
from agent_svc.adapters.openai_chat import LanguageModelTimedOut, LanguageModelUnavailable
from agent_svc.domain.extraction import EngagementProposal, EpisodeDraft, Extractor, TurnReflection, Utterance
from agent_svc.domain.hybrid_reflection import merge_reflections

log = logging.getLogger(__name__)

# model: the first answer was valid; retried: the second was; partial: the best answer kept its good items
# and dropped bad ones; fallback: the rules answered alone (reason: unavailable, timeout or invalid).
ExtractionPath = Literal["model", "retried", "partial", "fallback"]
A = TypeVar("A", bound=Answer)


class ExtractionModel(Protocol):
    """What extraction needs from a model (``OpenAICompatibleLanguageModel``): JSON text following a
    schema; ``LanguageModelUnavailable`` when there is no usable answer in time."""

    async def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> str: ...


class PathRecorder(Protocol):
    def record(self, operation: str, path: ExtractionPath, reason: str = "") -> None:
        """``operation``: reflect | summarise | engagement | reply; ``reason`` on fallbacks: unavailable |
        invalid | timeout."""
        ...


class ExtractionPaths:
    """Counts of the path each call took, by operation, path and fallback reason; read for metrics."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str, str]] = Counter()

    def record(self, operation: str, path: ExtractionPath, reason: str = "") -> None:
        self.counts[(operation, path, reason)] += 1

    def count(self, *, operation: str | None = None, path: str | None = None, reason: str | None = None) -> int:
        return sum(
            n
            for (op, taken, why), n in self.counts.items()
            if (operation is None or op == operation)
            and (path is None or taken == path)
            and (reason is None or why == reason)
        )


class ModelExtractor:
    """``Extractor`` on a language model, validated, retried once, falling back to ``fallback``.

    Each model call is bounded by the model's own timeout, so the worst case is two timed calls (a bad
    answer, then a slow retry) and the fallback. ``paths`` counts which way each call went.
    """

    def __init__(self, model: ExtractionModel, fallback: Extractor, *, paths: PathRecorder | None = None) -> None:
        self._model = model
        self._fallback = fallback
        self.paths = paths if paths is not None else ExtractionPaths()

    async def reflect(self, turn: Utterance, earlier: Sequence[Utterance]) -> TurnReflection:
        system, user = reflect_prompt(turn, earlier)
        answer = await self._ask("reflect", ReflectionAnswer, system, user)
        rules = await self._fallback.reflect(turn, earlier)
        return merge_reflections(rules, answer.to_domain()) if answer is not None else rules

    async def summarise(self, turns: Sequence[Utterance]) -> EpisodeDraft:
        system, user = summarise_prompt(turns)
        answer = await self._ask("summarise", EpisodeAnswer, system, user)
        return answer.to_domain() if answer is not None else await self._fallback.summarise(turns)

    async def engagement(self, turns: Sequence[Utterance]) -> EngagementProposal:
        system, user = engagement_prompt(turns)
        ids = {turn.turn_id for turn in turns if turn.turn_id}
        answer = await self._ask("engagement", EngagementAnswer, system, user, {"turn_ids": ids})
        return answer.to_domain() if answer is not None else await self._fallback.engagement(turns)

    async def _ask(
        self, operation: str, answer_type: type[A], system: str, user: str, context: dict[str, Any] | None = None
    ) -> A | None:
        """The validated answer, or None (logged and counted) when the caller must fall back."""
        schema, name = answer_schema(answer_type), answer_type.schema_name
        first: Parsed[A] | None = None
        try:
            first = parse_answer(answer_type, await self._model.complete_json(system, user, schema, name), context)
            if first.whole:
                self.paths.record(operation, "model")
                return first.answer
            assert first.error is not None
            log.info("%s: language model answer rejected, asking once more: %s", operation, describe(first.error))
            retry = retry_prompt(user, first.error)
            second = parse_answer(answer_type, await self._model.complete_json(system, retry, schema, name), context)
        except LanguageModelUnavailable as error:
            if first is not None and first.answer is not None:
                return self._partial(operation, first)
            reason = "timeout" if isinstance(error, LanguageModelTimedOut) else "unavailable"
            return self._fall_back(operation, reason, error.message)
        if second.whole:
            self.paths.record(operation, "retried")
            return second.answer
        best = max((p for p in (first, second) if p.answer is not None), key=_kept, default=None)
        if best is not None:
            return self._partial(operation, best)
        assert second.error is not None
        return self._fall_back(operation, "invalid", f"answer rejected twice: {describe(second.error)}")

    def _partial(self, operation: str, parsed: Parsed[A]) -> A | None:
        log.warning("%s: language model answer kept without %d invalid item(s)", operation, parsed.dropped)
        self.paths.record(operation, "partial")
        return parsed.answer

    def _fall_back(self, operation: str, reason: str, detail: str) -> None:
        # The detail is a status, a timeout or validation messages: never the conversation's text.
        log.warning("%s: falling back to the rules, language model %s: %s", operation, reason, detail)
        self.paths.record(operation, "fallback", reason)


def _kept(parsed: Parsed[Any]) -> int:
    """How many list items an answer holds (the better of two partial answers keeps more)."""
    answer = parsed.answer
    return sum(len(value) for _, value in answer if isinstance(value, list)) if answer is not None else 0
