"""The assembler's vocabulary: candidates in, sections and a manifest out.

Enum values equal the proto numbers (``lore.common.v1``) so ``api/assembler_convert.py`` maps them with
``Section(pb_value)`` and ``int(section)``; ``Section``'s order is also the sections' fixed order in
the prompt.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Protocol


class Section(enum.IntEnum):
    PERSONA = 1
    USER_PROFILE = 2
    WORKING_SUMMARY = 3
    GUIDANCE = 4
    TOOL_RESULTS = 5
    MEMORIES = 6
    OBSERVATIONS = 7
    OPINIONS = 8


class Source(enum.IntEnum):
    WORKING_MEMORY = 1
    MEMORY = 2
    EPISODE = 3
    OPEN_THREAD = 4
    OBSERVATION = 5
    ENGAGEMENT = 6
    CALLER = 7


class Outcome(enum.IntEnum):
    KEPT = 1
    BELOW_THRESHOLD = 2
    DUPLICATE = 3
    OVER_BUDGET = 4
    SOURCE_UNAVAILABLE = 5


# ARCHITECTURE.md §5: 1400 tokens in all.
DEFAULT_BUDGETS: Mapping[Section, int] = MappingProxyType(
    {
        Section.PERSONA: 300,
        Section.USER_PROFILE: 100,
        Section.WORKING_SUMMARY: 150,
        Section.GUIDANCE: 150,
        Section.TOOL_RESULTS: 400,
        Section.MEMORIES: 150,
        Section.OBSERVATIONS: 100,
        Section.OPINIONS: 50,
    }
)

SECTION_TITLES: Mapping[Section, str] = MappingProxyType(
    {
        Section.PERSONA: "Persona",
        Section.USER_PROFILE: "User profile",
        Section.WORKING_SUMMARY: "This conversation so far",
        Section.GUIDANCE: "Guidance",
        Section.TOOL_RESULTS: "Tool results",
        Section.MEMORIES: "What I remember",
        Section.OBSERVATIONS: "What I believe",
        Section.OPINIONS: "What I have said",
    }
)


class TokenCounter(Protocol):
    """The tokenizer port: the domain never imports a tokenizer library."""

    name: str

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """A prefix of ``text`` with at most ``max_tokens`` tokens."""
        ...


@dataclass(frozen=True, slots=True)
class Candidate:
    """One piece of text that may go into the context.

    ``pinned`` marks given context (persona, profile text, working summary, guidance, tool results,
    caller opinions): it is not scored, never below threshold, never deduped, and placed before the
    section's ranked items in the order given. ``vector`` (any sequence of floats) serves only
    near-duplicate removal; ``occurred_at`` decides which of two duplicates is the newest.
    ``statement`` is what the item states without what the context adds to ``text`` (a memory's
    day, a belief's confidence): duplicates are compared on it ("" → ``text``). ``lead`` items go
    before the section's other ranked ones (the user's beliefs in the user profile, seed 004).
    ``in_conversation`` marks a memory learnt only from turns the session's working memory holds:
    the caller has them already, so it is a DUPLICATE of working memory. ``turn_ids`` are the
    transcript turns a memory was learnt from (a message: its own turn), ``quotes`` marks a message
    as said (a fact learnt from the same turn is placed instead, ``relevance``), ``filler`` one that
    says nothing worth placing (``speakers``): BELOW_THRESHOLD whatever its score. ``by_user`` marks
    a message the user said (its turn's role), whose words a belief about the user may state.
    """

    source: Source
    id: str
    section: Section
    text: str
    similarity: float = 0.0
    recency: float = 0.0
    importance: float = 0.0
    pinned: bool = False
    vector: tuple[float, ...] | None = None
    occurred_at: datetime | None = None
    statement: str = ""
    lead: bool = False
    in_conversation: bool = False
    turn_ids: tuple[str, ...] = ()
    quotes: bool = False
    filler: bool = False
    by_user: bool = False


@dataclass(frozen=True, slots=True)
class UnavailableSource:
    """A source the fan-out could not read this turn: reported, never fatal."""

    source: Source
    section: Section
    reason: str


def _check_weight(name: str, value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")


@dataclass(frozen=True, slots=True)
class Weights:
    """Used as given (not normalised): the defaults sum to 1 so ``min_score`` is on the same scale."""

    similarity: float = 0.4
    recency: float = 0.3
    importance: float = 0.3

    def __post_init__(self) -> None:
        for name in ("similarity", "recency", "importance"):
            _check_weight(f"weights.{name}", getattr(self, name))
        if self.similarity + self.recency + self.importance <= 0:
            raise ValueError("at least one weight must be positive")


def with_budgets(overrides: Mapping[Section | int, int] | None = None) -> Mapping[Section, int]:
    """``DEFAULT_BUDGETS`` with ``overrides`` merged on top (keys may be proto section numbers)."""
    merged = dict(DEFAULT_BUDGETS)
    for key, tokens in (overrides or {}).items():
        merged[Section(key)] = tokens
    return MappingProxyType(merged)


# Nothing relevant was found when no searched candidate is this similar to the message, or when the
# message names someone no candidate mentions and none is NAME_RELEVANCE similar (both chosen on the
# tuning conversations of bench/context_quality.py, docs/assembler.md).
MIN_RELEVANCE = 0.22
NAME_RELEVANCE = 0.6

# Where tokens a section leaves unused go first (``pipeline``): what was recalled for this message
# before what the caller gave.
SPARE_ORDER: tuple[Section, ...] = (
    Section.USER_PROFILE,
    Section.MEMORIES,
    Section.OBSERVATIONS,
    Section.OPINIONS,
    Section.WORKING_SUMMARY,
    Section.GUIDANCE,
    Section.TOOL_RESULTS,
    Section.PERSONA,
)


@dataclass(frozen=True, slots=True)
class AssemblyPolicy:
    """How one assembly scores, dedupes and budgets. ``budgets`` is normalised on construction: keys
    become ``Section``s and a section missing from it keeps its default budget, so a partial mapping
    is an override, never a silent 0. ``fixed`` sections (the ones a caller set) keep exactly their
    budget; every other may take the tokens other sections left unused (``share_spare``).
    ``min_relevance``: when no searched candidate is at least this similar to the message, nothing
    relevant was found and the context says so instead of placing the nearest ones (``relevance``;
    0 turns it off). ``name_relevance``: when the message names someone no candidate mentions, the
    similarity a candidate needs for the context to place anything (0: names are not checked)."""

    weights: Weights = field(default_factory=Weights)
    min_score: float = 0.3
    duplicate_cosine: float = 0.85
    budgets: Mapping[Section, int] = field(default_factory=lambda: DEFAULT_BUDGETS)
    fixed: frozenset[Section] = frozenset()
    share_spare: bool = True
    min_relevance: float = MIN_RELEVANCE
    name_relevance: float = NAME_RELEVANCE

    def __post_init__(self) -> None:
        if not (isinstance(self.min_score, int | float) and 0 <= self.min_score <= 1):
            raise ValueError(f"min_score must be between 0 and 1, got {self.min_score!r}")
        if not (isinstance(self.min_relevance, int | float) and 0 <= self.min_relevance <= 1):
            raise ValueError(f"min_relevance must be between 0 and 1, got {self.min_relevance!r}")
        if not (isinstance(self.name_relevance, int | float) and 0 <= self.name_relevance <= 1):
            raise ValueError(f"name_relevance must be between 0 and 1, got {self.name_relevance!r}")
        if not (isinstance(self.duplicate_cosine, int | float) and 0 < self.duplicate_cosine <= 1):
            raise ValueError(f"duplicate_cosine must be in (0, 1], got {self.duplicate_cosine!r}")
        budgets = with_budgets(self.budgets)
        for section, tokens in budgets.items():
            if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
                raise ValueError(f"the budget of {section.name} must be a non-negative integer, got {tokens!r}")
        object.__setattr__(self, "budgets", budgets)
        object.__setattr__(self, "fixed", frozenset(Section(section) for section in self.fixed))

    def with_budgets(self, overrides: Mapping[Section | int, int]) -> AssemblyPolicy:
        """This policy with ``overrides`` merged onto its budgets; the overridden sections are fixed."""
        merged = dict(self.budgets)
        merged.update({Section(key): tokens for key, tokens in overrides.items()})
        fixed = self.fixed | {Section(key) for key in overrides}
        return dataclasses.replace(self, budgets=merged, fixed=fixed)

    def may_take_spare(self, section: Section) -> bool:
        return self.share_spare and section not in self.fixed and self.budgets[section] > 0

    @property
    def budget_tokens(self) -> int:
        return sum(self.budgets.values())


@dataclass(frozen=True, slots=True)
class Score:
    """The components as they counted (each clamped to [0, 1]) and their weighted total."""

    similarity: float
    recency: float
    importance: float
    total: float


UNSCORED = Score(0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class ContextItem:
    """``text`` is the item's text as placed (whitespace-normalised, maybe cut); ``tokens`` counts
    its rendered line (with the bullet)."""

    source: Source
    id: str
    text: str
    tokens: int
    truncated: bool


@dataclass(frozen=True, slots=True)
class ContextSection:
    """``text`` is the section as it appears in the prompt, title line included; ``tokens`` is the
    counter's count of exactly that text."""

    section: Section
    title: str
    items: tuple[ContextItem, ...]
    text: str
    tokens: int
    budget_tokens: int


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    source: Source
    id: str
    section: Section
    score: Score
    tokens: int
    outcome: Outcome
    duplicate_of: str = ""
    truncated: bool = False
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ConsistencyFlag:
    aspect: str
    previous: str
    current: str
    message: str


@dataclass(frozen=True, slots=True)
class Assembly:
    """The result of ``pipeline.assemble``. ``total_tokens`` is the sum of the sections' tokens: the
    blank lines joining sections in ``text`` are not counted (a few tokens at most)."""

    sections: tuple[ContextSection, ...]
    manifest: tuple[ManifestEntry, ...]
    text: str
    total_tokens: int
    budget_tokens: int
    fingerprint: str
    first_session: bool
