"""``assemble``: candidates in, a token-budgeted context and the manifest of every candidate out.

1. Score (``scoring``) every candidate that is not pinned:
   ``total = w_s·similarity + w_r·recency + w_i·importance``, each component clamped to [0, 1]
   first. Pinned candidates (given context) score ``Score(0, 0, 0, 0)`` and are never dropped by
   the threshold; any other with ``total < min_score`` is BELOW_THRESHOLD. A non-pinned candidate
   repeating an earlier candidate's (source, id) is a DUPLICATE of that id: the manifest names
   items by id, so one id is placed at most once. A memory learnt only from turns the session's
   working memory holds (``in_conversation``) is a DUPLICATE of ``WORKING_MEMORY_ID``. A message
   that says nothing worth placing (``filler``: small talk, an assistant's reply with nothing to
   come back to; ``speakers``) is BELOW_THRESHOLD whatever its score. When nothing a search found
   is relevant (``relevance``: no similarity reaches ``min_relevance``, or the message names
   someone no candidate mentions and none reaches ``name_relevance``), the ranked memories,
   beliefs, threads and opinions are BELOW_THRESHOLD and a pinned MEMORIES item says so.
2. Dedupe (``dedupe``) the surviving non-pinned candidates across all sections, beliefs first, then
   newest first: same polarity and equal normalised statement, cosine of the vectors above
   ``duplicate_cosine`` or the same content words → DUPLICATE, with ``duplicate_of`` the kept
   candidate's id; the kept one ranks at least as high as the best of its duplicates, so what they
   say is placed wherever the best of them would have been. Pinned candidates are never deduped.
   Then a message whose turn a kept learnt memory of its section came from is a DUPLICATE of that
   memory unless the question needs its wording or the memory keeps too little of it
   (``relevance.facts_over_lines``); the memory ranks at least as high as the message, so it takes
   the message's place. A line of the user profile learnt from the message, or a belief about the
   user stating what the user said, stands in for it whatever share of it it keeps, unless the
   question needs its wording.
3. Order within a section: pinned first in input order, then ``lead`` ones, then the others; each
   group by rank descending (the total, or that of what it stands in for, step 2), ties by
   ``occurred_at`` descending (unknown last), then id, then source; so shuffling the ranked
   candidates never changes the result.
4. Budget (``budget``) each section: the title line and each item's rendered line (``render``) are
   charged, items kept greedily, one item longer than the whole section cut at a sentence (or word)
   boundary and marked truncated (``truncate``), and the joined section text re-counted so that
   ``section.tokens == counter.count(section.text) <= section.budget_tokens``. Then the tokens the
   sections left unused are offered, in ``SPARE_ORDER``, to each section that had to leave
   something out (unless the caller fixed its budget), which is filled again with its budget plus
   what is left of them: a section with nothing relevant gives its tokens to one that has.
   ``total_tokens`` is the sum of the sections' tokens: the blank lines between sections in
   ``text`` are not counted, so ``total_tokens <= budget_tokens`` always holds.
5. Every unavailable source gets one SOURCE_UNAVAILABLE entry: id "", its reason.
6. First session: when ``known_anything`` is False, or when it is None and no candidate comes from
   a stored source about the user (any but CALLER and ENGAGEMENT) and no source was unavailable
   (an outage is not "nothing known"), a pinned GUIDANCE item (CALLER, ``FIRST_SESSION_ID``) with
   the empty-state preamble goes first in GUIDANCE and ``first_session`` is True.
7. Manifest order: sections in their fixed order, within a section the order of step 3 (whatever
   the outcome), then the unavailable sources in the order given. Every entry carries its score
   and the tokens of its rendered line before any cut.
8. ``fingerprint`` of the kept sections, persona mode, mood and budgets (``fingerprint``).

Tokens are counted once per distinct text within a call (titles, repeated texts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from assembler_svc.domain.budget import FilledSection, Line, fill_section
from assembler_svc.domain.dedupe import find_duplicates, normalise_text, statement_of, timestamp
from assembler_svc.domain.fingerprint import fingerprint
from assembler_svc.domain.model import (
    SPARE_ORDER,
    UNSCORED,
    Assembly,
    AssemblyPolicy,
    Candidate,
    ContextSection,
    ManifestEntry,
    Outcome,
    Section,
    Source,
    TokenCounter,
    UnavailableSource,
)
from assembler_svc.domain.relevance import (
    NEAREST,
    facts_over_lines,
    nothing_found_candidate,
    nothing_relevant,
)
from assembler_svc.domain.render import clean, is_prose, join_sections, render_line
from assembler_svc.domain.scoring import below_threshold, score

FIRST_SESSION_ID = "first-session"
WORKING_MEMORY_ID = "working-memory"
FIRST_SESSION_TEXT = (
    "This is the first conversation with this user: nothing is remembered about them yet. "
    "Ask rather than assume, and say so if they refer to something earlier."
)
_NEVER = (1, 0.0)
_NOT_ABOUT_THE_USER = frozenset({Source.CALLER, Source.ENGAGEMENT})


class _CountingCache:
    """The caller's counter with counts memoised for one ``assemble`` call."""

    __slots__ = ("_counter", "_counts", "name")

    def __init__(self, counter: TokenCounter) -> None:
        self._counter = counter
        self._counts: dict[str, int] = {}
        self.name = counter.name

    def count(self, text: str) -> int:
        tokens = self._counts.get(text)
        if tokens is None:
            tokens = self._counts[text] = self._counter.count(text)
        return tokens

    def truncate(self, text: str, max_tokens: int) -> str:
        return self._counter.truncate(text, max_tokens)


def is_first_session(
    candidates: Sequence[Candidate], unavailable: Sequence[UnavailableSource], known_anything: bool | None
) -> bool:
    if known_anything is not None:
        return not known_anything
    # The org's engagement state says nothing about this user.
    return not unavailable and all(candidate.source in _NOT_ABOUT_THE_USER for candidate in candidates)


def first_session_candidate() -> Candidate:
    return Candidate(Source.CALLER, FIRST_SESSION_ID, Section.GUIDANCE, FIRST_SESSION_TEXT, pinned=True)


def _rank_key(candidate: Candidate, total: float) -> tuple[int, float, int, float, str, int]:
    when = candidate.occurred_at
    moment = _NEVER if when is None else (0, -timestamp(when))
    return (0 if candidate.lead else 1, -total, *moment, candidate.id, int(candidate.source))


def _used(filled: FilledSection) -> int:
    return filled.section.tokens if filled.section is not None else 0


def _left_out(filled: FilledSection) -> bool:
    return any(placement.outcome is Outcome.OVER_BUDGET or placement.truncated for placement in filled.placements)


def _with_budget(filled: FilledSection, budget: int) -> FilledSection:
    """``filled`` reporting ``budget`` (its own plus the spare it used) as its section's budget."""
    if filled.section is None:
        return filled
    return FilledSection(dataclasses.replace(filled.section, budget_tokens=budget), filled.placements)


def assemble(
    candidates: Sequence[Candidate],
    *,
    policy: AssemblyPolicy,
    counter: TokenCounter,
    unavailable: Sequence[UnavailableSource] = (),
    persona_mode: str = "",
    mood: str = "",
    known_anything: bool | None = None,
    message: str = "",
    known_names: Collection[str] = (),
) -> Assembly:
    """The context for one turn; see the module docstring for every rule. ``message``: the turn's,
    which a message's wording may be needed for and whose names must be known (``relevance``);
    ``known_names``: names the scope knows besides what the candidates say (the user's own, the
    speakers and entities of what was recalled)."""
    cached = _CountingCache(counter)
    first_session = is_first_session(candidates, unavailable, known_anything)
    items = [first_session_candidate(), *candidates] if first_session else list(candidates)
    far = ""
    if not first_session:
        far = nothing_relevant(
            candidates,
            unavailable,
            policy.min_relevance,
            message=message,
            known_names=known_names,
            name_relevance=policy.name_relevance,
        )
    nothing = bool(far)
    if nothing:
        items.append(nothing_found_candidate())

    # 1. score, threshold, repeated ids
    scores = [score(candidate, policy.weights) for candidate in items]
    outcome: dict[int, Outcome] = {}
    duplicate_of: dict[int, str] = {}
    reasons: dict[int, str] = {}
    seen: set[tuple[Source, str]] = set()
    survivors: list[int] = []
    for index, candidate in enumerate(items):
        if candidate.pinned:
            continue
        key = (candidate.source, candidate.id)
        if key in seen:
            outcome[index], duplicate_of[index] = Outcome.DUPLICATE, candidate.id
            reasons[index] = "the same source and id appeared earlier"
            continue
        seen.add(key)
        if candidate.in_conversation:
            outcome[index], duplicate_of[index] = Outcome.DUPLICATE, WORKING_MEMORY_ID
            reasons[index] = "learnt from this conversation's recent turns, which the caller holds"
        elif candidate.filler:
            outcome[index] = Outcome.BELOW_THRESHOLD
            reasons[index] = "small talk: says nothing to come back to"
        elif nothing and candidate.section in NEAREST:
            outcome[index] = Outcome.BELOW_THRESHOLD
            reasons[index] = far
        elif below_threshold(candidate, scores[index], policy.min_score):
            outcome[index] = Outcome.BELOW_THRESHOLD
            reasons[index] = f"score {scores[index].total:.3f} below {policy.min_score:.3f}"
        else:
            survivors.append(index)

    # Every candidate's text as placed, its rendered line and that line's tokens (the manifest
    # reports them for dropped candidates too).
    lines: list[Line] = []
    for candidate in items:
        prose = is_prose(candidate)
        text = clean(candidate.text, prose)
        line = render_line(text, prose)
        lines.append(Line(candidate, text, line, cached.count(line), prose))

    # 2. near-duplicates across sections
    totals = [scores[i].total for i in survivors]
    keys = [normalise_text(statement_of(items[i])) for i in survivors]
    found = find_duplicates([items[i] for i in survivors], totals, policy.duplicate_cosine, keys)
    # What is kept for others stands where the best of them would have: it ranks at least as high.
    ranks = {index: value.total for index, value in enumerate(scores)}
    for position, kept in found.items():
        index = survivors[position]
        outcome[index], duplicate_of[index] = Outcome.DUPLICATE, items[survivors[kept]].id
        ranks[survivors[kept]] = max(ranks[survivors[kept]], ranks[index])
    placeable = {index: items[index] for index in survivors if index not in outcome}
    shown = {index: c for index, c in enumerate(items) if c.pinned and c.section is Section.USER_PROFILE}
    for index, fact in facts_over_lines(placeable, message, shown).items():
        outcome[index], duplicate_of[index] = Outcome.DUPLICATE, items[fact].id
        reasons[index] = "a fact learnt from this message is placed instead"
        ranks[fact] = max(ranks[fact], ranks[index])

    # 3. order within each section
    pinned: dict[Section, list[int]] = {section: [] for section in Section}
    ranked: dict[Section, list[int]] = {section: [] for section in Section}
    for index, candidate in enumerate(items):
        (pinned if candidate.pinned else ranked)[candidate.section].append(index)

    # 4. budgets, each section, then the unused tokens to the sections that ran out
    orders = {
        section: pinned[section] + sorted(ranked[section], key=lambda i: _rank_key(items[i], ranks[i]))
        for section in Section
    }
    eligible = {section: [index for index in orders[section] if index not in outcome] for section in Section}
    budgets = dict(policy.budgets)
    filled = {
        section: fill_section(section, [lines[i] for i in eligible[section]], budgets[section], cached)
        for section in Section
    }
    spare = sum(budgets[section] - _used(filled[section]) for section in Section)
    for section in SPARE_ORDER:
        if spare <= 0 or not policy.may_take_spare(section) or not _left_out(filled[section]):
            continue
        before = _used(filled[section])
        grown = fill_section(section, [lines[i] for i in eligible[section]], budgets[section] + spare, cached)
        spare -= _used(grown) - before
        budgets[section] += _used(grown) - before
        filled[section] = _with_budget(grown, budgets[section])

    # 7. the manifest, sections in the fixed order
    sections: list[ContextSection] = []
    manifest: list[ManifestEntry] = []
    for section in Section:
        order = orders[section]
        budget = budgets[section]
        placements = dict(zip(eligible[section], filled[section].placements, strict=True))
        if filled[section].section is not None:
            sections.append(filled[section].section)
        for index in order:
            candidate = items[index]
            placement = placements.get(index)
            result = placement.outcome if placement is not None else outcome[index]
            reason = reasons.get(index, "")
            if result is Outcome.OVER_BUDGET:
                reason = f"section budget {budget} tokens" if budget > 0 else "section disabled (budget 0)"
            manifest.append(
                ManifestEntry(
                    source=candidate.source,
                    id=candidate.id,
                    section=section,
                    score=scores[index],
                    tokens=lines[index].tokens,
                    outcome=result,
                    duplicate_of=duplicate_of.get(index, ""),
                    truncated=placement is not None and placement.truncated,
                    reason=reason,
                )
            )

    # 5. unavailable sources
    manifest.extend(
        ManifestEntry(
            source=gap.source,
            id="",
            section=gap.section,
            score=UNSCORED,
            tokens=0,
            outcome=Outcome.SOURCE_UNAVAILABLE,
            reason=gap.reason,
        )
        for gap in unavailable
    )

    kept_sections = tuple(sections)
    return Assembly(
        sections=kept_sections,
        manifest=tuple(manifest),
        text=join_sections(section.text for section in kept_sections),
        total_tokens=sum(section.tokens for section in kept_sections),
        budget_tokens=policy.budget_tokens,
        fingerprint=fingerprint(kept_sections, persona_mode, mood, policy.budgets),
        first_session=first_session,
    )
