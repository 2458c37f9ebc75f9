"""The answers a language model gives for extraction: their pydantic models, the JSON schemas sent with
the prompts (generated from the same models, so what is asked for and what is accepted cannot drift),
and the parsing that turns a model's text into a validated answer.

Parsing is forgiving about the wrapping and strict about the content: reasoning (``<think>...</think>``),
markdown fences and prose around the JSON object are cut away; then the object is validated strictly.
One bad item in a list (a memory with an unknown kind, evidence naming a turn never shown) is dropped
and the good ones kept, counted in ``Parsed.dropped``; anything else wrong fails the answer as a whole.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from agent_svc.domain.extraction import (
    CLAIM_KINDS,
    MEMORY_KINDS,
    OWNERS,
    SUBJECT_TYPES,
    THREAD_STATUSES,
    ActionItem,
    Emotion,
    EngagementProposal,
    EpisodeDraft,
    EvidenceLine,
    ExtractedClaim,
    ExtractedMemory,
    HypothesisProposal,
    Outcome,
    Plan,
    Thread,
    TurnReflection,
    UserState,
)

# Closed vocabularies the domain names only in comments.
OUTCOME_TYPES = ("decision", "resolution", "learning")
CONFIDENCE_LEVELS = ("", "low", "medium", "high")

# Bounds on an answer: a model that rambles is asked again rather than trusted.
MAX_MEMORIES = 10
MAX_CLAIMS = 10
MAX_ENTITIES = 10
MAX_EPISODE_ITEMS = 12  # topics, entities, outcomes, threads, decisions, action items, questions
MAX_HYPOTHESES = 8
MAX_EVIDENCE = 8
MAX_UNKNOWNS = 8
ROLLING_SUMMARY_CHARS = 600
EPISODE_SUMMARY_CHARS = 2000

Record = TypeVar("Record")
A = TypeVar("A", bound="Answer")


def _text(max_length: int, min_length: int = 0) -> Any:
    return Annotated[str, Field(min_length=min_length or None, max_length=max_length)]


Sentence = _text(500, 1)
Short = _text(120)
Name = _text(80, 1)
Slot = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_:.\-]*$")]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class Answer(BaseModel):
    # Strict: no "0.5" for 0.5, no unknown keys; every field required, as strict structured outputs want.
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, str_strip_whitespace=True)
    schema_name: ClassVar[str] = ""  # response_format.json_schema.name of a top-level answer

    def mirrored(self, record_type: type[Record]) -> Record:
        """The domain record whose fields this answer mirrors by name (lists become tuples): the
        answer's fields and the record's cannot drift apart unnoticed."""
        return record_type(**{name: tuple(value) if isinstance(value, list) else value for name, value in self})


class MemoryAnswer(Answer):
    kind: Literal[MEMORY_KINDS]
    content: Sentence = Field(description="Stands alone, third person: 'The user is vegetarian.'")
    speaker: Literal[OWNERS]
    importance: Unit
    entities: list[Name] = Field(max_length=MAX_ENTITIES, description="Names and technologies, lower case.")
    owner: Literal[("", *OWNERS)] = Field(description="Commitments: who promised; else empty.")
    deadline: Short = Field(description="Commitments: by when, as said ('Friday'); else empty.")


class ClaimAnswer(Answer):
    kind: Literal[CLAIM_KINDS]
    subject_type: Literal[SUBJECT_TYPES]
    subject_id: Short = Field(description="Empty for the user or the agent; the project's or tool's name.")
    slot: Slot = Field(description="The attribute, lower case: diet, home_city, employer, database, family:daughter.")
    summary: Sentence
    excerpt: Sentence = Field(description="The speaker's exact words.")
    contradicts: bool = Field(description="True when the turn denies the slot's current value.")


class EmotionAnswer(Answer):
    label: Name
    valence: Annotated[float, Field(ge=-1.0, le=1.0)]
    intensity: Unit


class PlanAnswer(Answer):
    goal: Sentence
    progress: _text(500)
    next_step: _text(500)


class ReflectionAnswer(Answer):
    schema_name: ClassVar[str] = "turn_reflection"
    memories: list[MemoryAnswer] = Field(max_length=MAX_MEMORIES)
    claims: list[ClaimAnswer] = Field(max_length=MAX_CLAIMS)
    emotion: EmotionAnswer | None
    plan: PlanAnswer | None
    summary: _text(ROLLING_SUMMARY_CHARS)

    def to_domain(self) -> TurnReflection:
        return TurnReflection(
            memories=tuple(m.mirrored(ExtractedMemory) for m in self.memories),
            claims=tuple(c.mirrored(ExtractedClaim) for c in self.claims),
            emotion=self.emotion.mirrored(Emotion) if self.emotion else None,
            plan=self.plan.mirrored(Plan) if self.plan else None,
            summary=self.summary,
        )


class OutcomeAnswer(Answer):
    type: Literal[OUTCOME_TYPES]
    content: Sentence


class ThreadAnswer(Answer):
    topic: Sentence
    status: Literal[THREAD_STATUSES]
    context: _text(500)


class ActionItemAnswer(Answer):
    owner: Literal[OWNERS]
    task: Sentence
    deadline: Short


class UserStateAnswer(Answer):
    mood: _text(40)
    confidence: Literal[CONFIDENCE_LEVELS]
    focus: Short


class EpisodeAnswer(Answer):
    schema_name: ClassVar[str] = "episode"
    summary: _text(EPISODE_SUMMARY_CHARS, 1)
    key_topics: list[Name] = Field(max_length=MAX_EPISODE_ITEMS)
    entities: list[Name] = Field(max_length=MAX_EPISODE_ITEMS)
    user_state: UserStateAnswer
    outcomes: list[OutcomeAnswer] = Field(max_length=MAX_EPISODE_ITEMS)
    open_threads: list[ThreadAnswer] = Field(max_length=MAX_EPISODE_ITEMS)
    decisions: list[Sentence] = Field(max_length=MAX_EPISODE_ITEMS)
    action_items: list[ActionItemAnswer] = Field(max_length=MAX_EPISODE_ITEMS)
    next_session_questions: list[Sentence] = Field(max_length=MAX_EPISODE_ITEMS)
    importance: Unit

    def to_domain(self) -> EpisodeDraft:
        return EpisodeDraft(
            summary=self.summary,
            key_topics=tuple(self.key_topics),
            entities=tuple(self.entities),
            user_state=self.user_state.mirrored(UserState),
            outcomes=tuple(o.mirrored(Outcome) for o in self.outcomes),
            open_threads=tuple(t.mirrored(Thread) for t in self.open_threads),
            decisions=tuple(self.decisions),
            action_items=tuple(a.mirrored(ActionItem) for a in self.action_items),
            next_session_questions=tuple(self.next_session_questions),
            importance=self.importance,
        )


class EvidenceAnswer(Answer):
    statement: Sentence
    supports: bool
    turn_id: Short = Field(description="The id in brackets before the turn it comes from; empty if none.")

    @field_validator("turn_id")
    @classmethod
    def _names_a_turn(cls, value: str, info: ValidationInfo) -> str:
        # The model may only point at turns it was shown (the value is not echoed: errors reach the logs).
        known = (info.context or {}).get("turn_ids")
        if value and known is not None and value not in known:
            raise ValueError("turn_id must be one of the ids shown in brackets, or empty")
        return value


class HypothesisAnswer(Answer):
    statement: Sentence
    evidence: list[EvidenceAnswer] = Field(max_length=MAX_EVIDENCE)


class EngagementAnswer(Answer):
    schema_name: ClassVar[str] = "engagement"
    hypotheses: list[HypothesisAnswer] = Field(max_length=MAX_HYPOTHESES)
    unknowns: list[Sentence] = Field(max_length=MAX_UNKNOWNS)

    def to_domain(self) -> EngagementProposal:
        return EngagementProposal(
            hypotheses=tuple(
                HypothesisProposal(h.statement, tuple(e.mirrored(EvidenceLine) for e in h.evidence))
                for h in self.hypotheses
            ),
            unknowns=tuple(self.unknowns),
        )


@functools.cache
def answer_schema(answer_type: type[Answer]) -> dict[str, Any]:
    """The JSON schema sent with the prompt, generated from the model that validates the answer."""
    return answer_type.model_json_schema()


# --- parsing a model's text ---------------------------------------------------------------------------------------

_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)


def json_text(text: str) -> str:
    """The JSON object in a model's text: inside a markdown fence when there is one, else from its first
    ``{`` to its last ``}`` (a model that says "Here is the JSON:" first). Reasoning is cut by the client."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    text = text.strip()
    if not text.startswith("{"):
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            text = text[start : end + 1]
    return text


@dataclass(frozen=True, slots=True)
class Parsed(Generic[A]):
    """A parse: the answer (None when unusable), how many list items were dropped to keep it, and the
    validation error that made it incomplete or unusable (None when it was valid as given)."""

    answer: A | None
    dropped: int = 0
    error: ValidationError | None = None

    @property
    def whole(self) -> bool:
        return self.answer is not None and self.error is None


def parse_answer(answer_type: type[A], text: str, context: dict[str, Any] | None = None) -> Parsed[A]:
    """``text`` as a validated ``answer_type``, keeping the good items of a list that holds bad ones."""
    candidate = json_text(text)
    try:
        return Parsed(answer_type.model_validate_json(candidate, context=context))
    except ValidationError as error:
        first = error
    bad_items = _bad_items(first)
    if not bad_items:
        return Parsed(None, error=first)
    try:
        data = json.loads(candidate)
    except ValueError:
        return Parsed(None, error=first)
    dropped = sum(_drop(data, path) for path in sorted(bad_items, reverse=True))
    try:
        answer = answer_type.model_validate_json(json.dumps(data), context=context)
    except ValidationError:
        return Parsed(None, error=first)
    return Parsed(answer, dropped, first)


def _bad_items(error: ValidationError) -> set[tuple[Any, ...]]:
    """The list items an error lies in (the innermost list on its path); empty when any error lies
    outside every list item (a missing field, a wrong type at the top, invalid JSON, a list too long)."""
    paths = set()
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        loc = tuple(item["loc"])
        indexes = [position for position, part in enumerate(loc) if isinstance(part, int)]
        if not indexes or item["type"].startswith("json_"):
            return set()
        paths.add(loc[: indexes[-1] + 1])
    return paths


def _drop(data: Any, path: tuple[Any, ...]) -> int:
    """Removes the item at ``path`` (keys and list indexes); 1 when it was there."""
    node = data
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return 0
    if isinstance(node, list) and isinstance(path[-1], int) and 0 <= path[-1] < len(node):
        del node[path[-1]]
        return 1
    return 0
