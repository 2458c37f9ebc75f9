"""Priming: "what I remember" at the start of a conversation (ARCHITECTURE.md §5, seed 001).

The parts, each already chosen by the fan-out, counts and threshold from ``PrimeLimits``
(``LORE_PRIME_*``): episodes (3, salience ≥ 0.3; with an initial message the ones closest to it
first), open threads (5), salient facts (10, by materialised salience), beliefs (searched by the
initial message when there is one, else the most confident), and the memories that share an
entity with the initial message or are close to it in meaning (cosine ≥ 0.3: an imported message
has no entities).

**With an initial message, what relates to it comes first**: the related memories, then the
beliefs found by it, then the episodes, threads and salient facts — so the budget is spent on the
message before the newest episodes. Without one, the order is episodes, threads, facts, beliefs.
Episodes say their outcomes and decisions; beliefs how sure they are (confidence, sources, last
supported). A fact a belief already states is not repeated (``statements.py``).

**Entities** are the ones memory already knows: an entity attached to a recalled memory that
the initial message names (case-insensitive, on word boundaries). A guess from capital letters
would name things nothing is remembered about; this names only what the agent can talk about.

**Formatted text**: a heading, then the parts in the order above, each a titled list; lines are
added in that order while they fit the token budget, and the manifest says which did not
(OVER_BUDGET). The joined text is re-counted at the end (BPE is not additive), dropping the last
line while it exceeds the budget. Messages say who said them and small talk is left out, as in a
context (``speakers``). Scores: episodes and facts by salience, threads by how recently
their conversation ended, beliefs by confidence, related memories by recall score.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from lore_language.dates import day_text

from assembler_svc.domain.candidates import OPEN_THREAD_IMPORTANCE, as_read_later, how_sure
from assembler_svc.domain.dedupe import same_statement
from assembler_svc.domain.gathered import Belief, EpisodeDigest, RecalledMemory, ThreadDigest
from assembler_svc.domain.model import (
    UNSCORED,
    ManifestEntry,
    Outcome,
    Score,
    Section,
    Source,
    TokenCounter,
    UnavailableSource,
)
from assembler_svc.domain.sections import is_message
from assembler_svc.domain.speakers import filler, quoted_roles, words_of

OBSERVATIONS = 5
RELATED_MIN_SIMILARITY = 0.3  # stored vectors embed the content with its day: cosines run ~0.1 lower
DEFAULT_BUDGET_TOKENS = 600
HEADING = "What I remember about this user:"
NOTHING_YET = "Nothing is remembered about this user yet: this is the first conversation."


@dataclass(frozen=True, slots=True)
class PrimeLimits:
    """Seed 001's priming counts and salience threshold (``LORE_PRIME_*`` settings)."""

    episodes: int = 3
    threads: int = 5
    facts: int = 10
    min_salience: float = 0.3
    related: int = 5

    def __post_init__(self) -> None:
        for name in ("episodes", "threads", "facts", "related"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
                raise ValueError(f"prime {name} must be an integer in [0, 100], got {value!r}")
        if not 0 <= self.min_salience <= 1:
            raise ValueError(f"prime min_salience must be in [0, 1], got {self.min_salience!r}")


@dataclass(frozen=True, slots=True)
class PrimedItem:
    source: Source
    id: str
    text: str
    score: float
    occurred_at: datetime | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Priming:
    recent_context: tuple[PrimedItem, ...]
    open_threads: tuple[PrimedItem, ...]
    salient_facts: tuple[PrimedItem, ...]
    observations: tuple[PrimedItem, ...]
    related: tuple[PrimedItem, ...]
    entities: tuple[str, ...]
    formatted_context: str
    manifest: tuple[ManifestEntry, ...]


def shared_entities(message: str, memories: Sequence[RecalledMemory]) -> tuple[str, ...]:
    """The known entities the message names, most often attached first (ties alphabetical)."""
    text = message.casefold()
    counts: dict[str, int] = {}
    for memory in memories:
        for entity in memory.entities:
            name = entity.strip().casefold()
            if name:
                counts[name] = counts.get(name, 0) + 1
    named = [name for name in counts if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)]
    return tuple(sorted(named, key=lambda name: (-counts[name], name)))


def related_memories(
    memories: Sequence[RecalledMemory], entities: Sequence[str], exclude: set[str], limit: int = 5
) -> list[RecalledMemory]:
    """The recalled memories sharing an entity with the message, then the ones close to it in
    meaning (cosine ≥ ``RELATED_MIN_SIMILARITY``: imported messages carry no entities), in
    recall's order, at most ``limit``."""
    wanted = set(entities)
    candidates = [memory for memory in memories if memory.id not in exclude]
    sharing = [m for m in candidates if wanted.intersection(entity.casefold() for entity in m.entities)]
    shared_ids = {m.id for m in sharing}
    close = [m for m in candidates if m.id not in shared_ids and m.similarity >= RELATED_MIN_SIMILARITY]
    return [*sharing, *close][:limit]


def worth_placing(memories: Sequence[RecalledMemory]) -> list[RecalledMemory]:
    """``memories`` without the messages that say nothing worth placing (``speakers.filler``)."""
    names = {memory.speaker for memory in memories if memory.speaker}
    return [
        m
        for m in memories
        if not is_message(m.memory_type) or not filler(words_of(m.content, m.speaker), m.role, m.speaker, names)
    ]


def not_believed(memories: Sequence[RecalledMemory], beliefs: Sequence[Belief]) -> list[RecalledMemory]:
    """``memories`` without those a belief already states (``dedupe.same_statement``)."""
    return [m for m in memories if not any(same_statement(m.content, b.summary) for b in beliefs)]


def prime(
    *,
    episodes: Sequence[EpisodeDigest],
    threads: Sequence[ThreadDigest],
    facts: Sequence[RecalledMemory],
    beliefs: Sequence[Belief],
    recalled: Sequence[RecalledMemory] = (),
    initial_message: str = "",
    unavailable: Sequence[UnavailableSource] = (),
    counter: TokenCounter,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    now: datetime,
    limits: PrimeLimits = PrimeLimits(),
) -> Priming:
    entities = shared_entities(initial_message, recalled) if initial_message else ()
    facts = not_believed(facts, beliefs)[: limits.facts]
    related = related_memories(
        not_believed(worth_placing(recalled), beliefs), entities, {fact.id for fact in facts}, limits.related
    )
    if initial_message:  # the ones closest to the message first, then the salient recent ones
        episodes = sorted(episodes, key=lambda e: (-_episode_rank(e), e.id))
    named = {
        "episodes": ("Recent conversations", Section.MEMORIES, [_episode(e) for e in episodes[: limits.episodes]]),
        "threads": ("Open threads", Section.GUIDANCE, [_thread(t, now) for t in threads[: limits.threads]]),
        "facts": ("What I know", Section.MEMORIES, [_memory(m, m.salience) for m in facts]),
        "related": ("Related to this message", Section.MEMORIES, [_memory(m, m.similarity) for m in related]),
        "beliefs": ("What I believe", Section.OBSERVATIONS, [_belief(b) for b in beliefs]),
    }
    order = ("related", "beliefs", "episodes", "threads", "facts") if initial_message else tuple(named)
    formatted, manifest = _format([named[name] for name in order], unavailable, counter, budget_tokens)
    items = {name: tuple(item for item, _ in scored) for name, (_, _, scored) in named.items()}
    return Priming(
        recent_context=items["episodes"],
        open_threads=items["threads"],
        salient_facts=items["facts"],
        related=items["related"],
        observations=items["beliefs"],
        entities=entities,
        formatted_context=formatted,
        manifest=manifest,
    )


def _format(
    parts: Sequence[tuple[str, Section, list[tuple[PrimedItem, Score]]]],
    unavailable: Sequence[UnavailableSource],
    counter: TokenCounter,
    budget: int,
) -> tuple[str, tuple[ManifestEntry, ...]]:
    missing = tuple(_unavailable(source) for source in unavailable)
    if not any(scored for _, _, scored in parts):
        quiet = unavailable or counter.count(NOTHING_YET) > budget
        return ("" if quiet else NOTHING_YET), missing
    kept: dict[int, list[str]] = {}
    placed: list[tuple[int, int]] = []  # (part, manifest index) of each kept line, in placing order
    entries: list[ManifestEntry] = []
    used = counter.count(HEADING)
    for part, (title, section, scored) in enumerate(parts):
        for item, score in scored:
            line = f"- {item.text}"
            tokens = counter.count(line)
            # each line costs its tokens and a line break; a part's first line also pays for its title
            charge = tokens + 1 + (0 if part in kept else counter.count(f"{title}:") + 1)
            entry = ManifestEntry(item.source, item.id, section, score, tokens, Outcome.KEPT)
            if used + charge <= budget:
                kept.setdefault(part, []).append(line)
                placed.append((part, len(entries)))
                used += charge
            else:
                entry = _over_budget(entry)
            entries.append(entry)
    text = _render(parts, kept)
    while placed and counter.count(text) > budget:
        part, index = placed.pop()
        kept[part].pop()
        if not kept[part]:
            del kept[part]
        entries[index] = _over_budget(entries[index])
        text = _render(parts, kept)
    return (text if placed else ""), tuple(entries) + missing


def _render(parts: Sequence[tuple[str, Section, list[tuple[PrimedItem, Score]]]], kept: dict[int, list[str]]) -> str:
    lines = [HEADING]
    for part in sorted(kept):
        lines += [f"{parts[part][0]}:", *kept[part]]
    return "\n".join(lines)


def _over_budget(entry: ManifestEntry) -> ManifestEntry:
    return ManifestEntry(entry.source, entry.id, entry.section, entry.score, entry.tokens, Outcome.OVER_BUDGET)


def _unavailable(source: UnavailableSource) -> ManifestEntry:
    return ManifestEntry(
        source.source, "", source.section, UNSCORED, 0, Outcome.SOURCE_UNAVAILABLE, reason=source.reason
    )


def _episode(episode: EpisodeDigest) -> tuple[PrimedItem, Score]:
    when = f"(ended {day_text(episode.ended_at)}) " if episode.ended_at else ""
    outcomes = f" Outcomes: {'; '.join(episode.outcomes)}." if episode.outcomes else ""
    item = PrimedItem(
        Source.EPISODE,
        episode.id,
        f"{when}{quoted_roles(episode.summary.strip())}{outcomes}",
        episode.salience,
        episode.ended_at,
        {"conversation_id": episode.conversation_id} if episode.conversation_id else {},
    )
    return item, Score(episode.similarity, episode.salience, episode.importance, episode.salience)


def _episode_rank(episode: EpisodeDigest) -> float:
    """A context's score with the default weights: similarity, salience, importance."""
    return 0.4 * episode.similarity + 0.3 * episode.salience + 0.3 * episode.importance


def _thread(thread: ThreadDigest, now: datetime) -> tuple[PrimedItem, Score]:
    weeks = max(0.0, (now - thread.ended_at).total_seconds() / 604800) if thread.ended_at else 4.0
    recency = 1.0 / (1.0 + weeks)
    context = f" ({thread.context.strip()})" if thread.context.strip() else ""
    item = PrimedItem(
        Source.OPEN_THREAD,
        f"{thread.episode_id}/{thread.topic}",
        f"{thread.topic.strip()}{context}",
        recency,
        thread.ended_at,
        {"episode_id": thread.episode_id, "conversation_id": thread.conversation_id},
    )
    return item, Score(0.0, recency, OPEN_THREAD_IMPORTANCE, recency)


def _memory(memory: RecalledMemory, score: float) -> tuple[PrimedItem, Score]:
    when = f" (on {day_text(memory.valid_at)})" if memory.valid_at else ""
    item = PrimedItem(
        Source.MEMORY, memory.id, f"{as_read_later(memory)}{when}", score, memory.valid_at, dict(memory.metadata)
    )
    return item, Score(memory.similarity, memory.salience, memory.importance, score)


def _belief(belief: Belief) -> tuple[PrimedItem, Score]:
    item = PrimedItem(
        Source.OBSERVATION,
        belief.id,
        f"{belief.summary.strip().rstrip('.')} ({how_sure(belief)}).",
        belief.confidence,
        belief.updated_at,
        {"kind": belief.kind},
    )
    return item, Score(belief.similarity, belief.freshness, belief.confidence, belief.confidence)
