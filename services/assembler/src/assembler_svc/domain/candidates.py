"""Turn what the fan-out gathered into context candidates: which section each goes to, what its
text says, and which numbers stand for similarity, recency and importance.

- Caller inputs (persona, user profile, tool results, expressed opinions) and the session's
  working memory (summary, plan, pending slots, mood, last tool result) and the engagement
  (week, active hypotheses, open unknowns) are *given* context: pinned, never scored.
- Recalled memories: similarity = dense cosine to the message, recency = current salience,
  importance as stored; the section follows the memory type (``sections.py``); the text ends
  with the day the memory was true, so the model can reason about time, and a message's relative
  times carry the date they meant ("yesterday (7 May 2023)"). A memory learnt only from
  turns the session's working memory holds is marked ``in_conversation``.
- Episodes: their summary; similarity = the summary's cosine to the message (the episodes found by
  it; 0 for the recent ones listed besides), recency = current (decayed) salience — so last month's
  relevant conversation clears the threshold, and the newest ones still come when salient.
- Open threads: recency = ``1 / (1 + weeks since their conversation ended)``, importance 0.6:
  a thread from this week scores ≈ 0.48 and one from two months ago ≈ 0.21, under the default
  threshold — unresolved threads fade instead of crowding the prompt forever.
- Beliefs: similarity from the observation search, recency = freshness, importance = confidence.
  Seed 004: each says how sure it is — "(confidence 0.82, 3 sources, last 2026-11-20)" — and the
  user's own beliefs (about the scope's user) lead the user-profile section.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime

from lore_language.dates import day_text, with_dates

from assembler_svc.domain.gathered import (
    Belief,
    EngagementDigest,
    EpisodeDigest,
    RecalledMemory,
    SessionState,
    ThreadDigest,
)
from assembler_svc.domain.model import Candidate, Section, Source
from assembler_svc.domain.sections import is_message, section_for_memory_type, section_for_observation_kind
from assembler_svc.domain.speakers import attributed, filler, quoted_roles, words_of
from assembler_svc.domain.tool_results import ToolResult, render_tool_result

OPEN_THREAD_IMPORTANCE = 0.6
FINDINGS = 5
ORIENTATION = (
    "Week 1 of the engagement, and nothing is recorded yet: open with orientation. Ask what the "
    "organisation wants to change, who decides, and what has been tried; frame tightly and hold back "
    "recommendations until there is evidence."
)
CALIBRATE = "Let this shape the answer; do not recite it."
# Seed 000: a low week biases toward orientation, a high one toward synthesis.
ORIENTING_WEEKS = 2
COLLECTING_WEEKS = 4


def week_focus(week: int) -> str:
    if week <= ORIENTING_WEEKS:
        return "still orienting — favour orientation questions and tight framings."
    if week <= COLLECTING_WEEKS:
        return "testing hypotheses — look for evidence for and against the working ones."
    return "synthesis — favour synthesis and recommendation, and say plainly what remains uncertain."


def caller_candidates(
    *,
    persona: str = "",
    user_profile: str = "",
    tool_results: Sequence[ToolResult] = (),
    opinions: Sequence[str] = (),
) -> list[Candidate]:
    found: list[Candidate] = []
    if persona.strip():
        found.append(_pinned(Source.CALLER, "persona", Section.PERSONA, persona))
    if user_profile.strip():
        found.append(_pinned(Source.CALLER, "user-profile", Section.USER_PROFILE, user_profile))
    for index, result in enumerate(tool_results):
        found.append(_pinned(Source.CALLER, f"tool-result-{index}", Section.TOOL_RESULTS, render_tool_result(result)))
    for index, opinion in enumerate(opinions):
        if opinion.strip():
            found.append(_pinned(Source.CALLER, f"opinion-{index}", Section.OPINIONS, opinion))
    return found


def session_candidates(state: SessionState) -> list[Candidate]:
    found: list[Candidate] = []
    if state.summary.strip():
        found.append(_pinned(Source.WORKING_MEMORY, "summary", Section.WORKING_SUMMARY, state.summary))
    if state.plan.strip():
        found.append(_pinned(Source.WORKING_MEMORY, "plan", Section.WORKING_SUMMARY, state.plan))
    for index, pending in enumerate(state.pending):
        found.append(_pinned(Source.WORKING_MEMORY, f"pending-{index}", Section.WORKING_SUMMARY, pending))
    if state.mood:
        found.append(_pinned(Source.WORKING_MEMORY, "mood", Section.GUIDANCE, mood_guidance(state)))
    if state.last_tool_result is not None:
        text = render_tool_result(state.last_tool_result)
        found.append(_pinned(Source.WORKING_MEMORY, "last-tool-result", Section.TOOL_RESULTS, text))
    return found


def mood_guidance(state: SessionState) -> str:
    tone = "calm and concrete" if state.mood_valence < -0.2 else "in the same register"
    return f"The user seems {state.mood} right now: answer {tone}."


def engagement_candidates(engagement: EngagementDigest) -> list[Candidate]:
    """Seed 000: the engagement calibrates the answer — a first session opens with orientation, a low
    week favours orientation and tight framings, a high one synthesis — and is never recited."""
    if engagement.first_session:
        return [_pinned(Source.ENGAGEMENT, "orientation", Section.GUIDANCE, ORIENTATION)]
    week = f"Week {engagement.week_number} of the engagement: {week_focus(engagement.week_number)} {CALIBRATE}"
    found = [_pinned(Source.ENGAGEMENT, "week", Section.GUIDANCE, week)]
    for finding in engagement.findings[:FINDINGS]:
        source = f" (source: {finding.source.strip()})" if finding.source.strip() else ""
        found.append(_pinned(Source.ENGAGEMENT, finding.id, Section.GUIDANCE, f"Finding: {finding.statement}{source}"))
    for hypothesis in sorted(engagement.hypotheses, key=lambda h: (-h.confidence, h.id)):
        text = f"Working hypothesis (confidence {hypothesis.confidence:.2f}): {hypothesis.statement}"
        found.append(_pinned(Source.ENGAGEMENT, hypothesis.id, Section.GUIDANCE, text))
    for unknown in engagement.unknowns:
        why = f" It matters because {_sentence_body(unknown.why_it_matters)}." if unknown.why_it_matters else ""
        found.append(
            _pinned(Source.ENGAGEMENT, unknown.id, Section.GUIDANCE, f"Open question: {unknown.question}{why}")
        )
    return found


def memory_candidates(
    memories: Iterable[RecalledMemory], conversation: Collection[str] = frozenset()
) -> list[Candidate]:
    """``conversation``: the transcript ids of the turns the session's working memory holds. A
    message says who said it and is ``filler`` when it says nothing worth placing (``speakers``)."""
    memories = list(memories)
    names = {memory.speaker for memory in memories if memory.speaker}
    found = []
    for memory in memories:
        quotes = is_message(memory.memory_type)
        words = words_of(memory.content, memory.speaker) if quotes else memory.content.strip()
        found.append(
            Candidate(
                source=Source.MEMORY,
                id=memory.id,
                section=section_for_memory_type(memory.memory_type),
                text=f"{as_read_later(memory)}{_on_day(memory.valid_at)}",
                similarity=memory.similarity,
                recency=memory.salience,
                importance=memory.importance,
                vector=memory.vector,
                occurred_at=memory.valid_at,
                statement=words,
                in_conversation=bool(memory.turn_ids) and all(turn in conversation for turn in memory.turn_ids),
                turn_ids=memory.turn_ids,
                quotes=quotes,
                filler=quotes and filler(words, memory.role, memory.speaker, names),
                by_user=quotes and memory.role == "user",
            )
        )
    return found


def as_read_later(memory: RecalledMemory) -> str:
    """A memory's text as placed. A message says who said it ("Noor said: …", "The user said: …",
    "You said: …"; ``speakers``) and carries the date each relative time in it meant ("yesterday
    (7 May 2023)"): read months later, "yesterday" would mislead. A message's valid-at is when it was
    said; what reflection extracts was dated when it was written (the same rules, ``lore_language``)."""
    if not is_message(memory.memory_type):
        return memory.content.strip()
    words = words_of(memory.content, memory.speaker)
    if memory.valid_at is not None:
        words = with_dates(words, memory.valid_at)
    return attributed(words, memory.role, memory.speaker)


def episode_candidates(episodes: Iterable[EpisodeDigest]) -> list[Candidate]:
    return [
        Candidate(
            source=Source.EPISODE,
            id=episode.id,
            section=Section.MEMORIES,
            text=f"Earlier conversation{_on_day(episode.ended_at, 'ended')}: {quoted_roles(episode.summary.strip())}",
            statement=episode.summary.strip(),
            similarity=episode.similarity,
            recency=episode.salience,
            importance=episode.importance,
            occurred_at=episode.ended_at,
        )
        for episode in episodes
    ]


def merge_episodes(searched: Sequence[EpisodeDigest], recent: Sequence[EpisodeDigest]) -> list[EpisodeDigest]:
    """The episodes found by the message, then the recent ones not among them: one candidate per
    episode, with its similarity when it was searched."""
    seen = {episode.id for episode in searched}
    return [*searched, *(episode for episode in recent if episode.id not in seen)]


def thread_candidates(threads: Iterable[ThreadDigest], now: datetime) -> list[Candidate]:
    found = []
    for thread in threads:
        weeks = max(0.0, (now - thread.ended_at).total_seconds() / 604800) if thread.ended_at else 4.0
        context = f" ({thread.context.strip()})" if thread.context.strip() else ""
        found.append(
            Candidate(
                source=Source.OPEN_THREAD,
                id=f"{thread.episode_id}/{thread.topic}",
                section=Section.MEMORIES,
                text=f"Still open from an earlier conversation: {thread.topic.strip()}{context}",
                recency=1.0 / (1.0 + weeks),
                importance=OPEN_THREAD_IMPORTANCE,
                occurred_at=thread.ended_at,
            )
        )
    return found


def belief_candidates(beliefs: Iterable[Belief]) -> list[Candidate]:
    return [
        Candidate(
            source=Source.OBSERVATION,
            id=belief.id,
            section=Section.USER_PROFILE if belief.about_user else section_for_observation_kind(belief.kind),
            text=f"{belief.summary.strip().rstrip('.')} ({how_sure(belief)}).",
            similarity=belief.similarity,
            recency=belief.freshness,
            importance=belief.confidence,
            occurred_at=belief.updated_at,
            vector=belief.vector,
            statement=belief.summary.strip(),
            lead=belief.about_user,
        )
        for belief in beliefs
    ]


def how_sure(belief: Belief) -> str:
    """ "confidence 0.82, 3 sources, last 2026-11-20": what seed 004 asks a belief to carry."""
    parts = [f"confidence {belief.confidence:.2f}"]
    if belief.sources > 0:
        parts.append(f"{belief.sources} source{'s' if belief.sources != 1 else ''}")
    last = belief.last_supported_at or belief.updated_at
    if last is not None:
        parts.append(f"last {last:%Y-%m-%d}")
    return ", ".join(parts)


def _pinned(source: Source, id_: str, section: Section, text: str) -> Candidate:
    return Candidate(source=source, id=id_, section=section, text=text.strip(), pinned=True)


def _on_day(moment: datetime | None, verb: str = "") -> str:
    if moment is None:
        return ""
    day = day_text(moment)
    return f" {verb} on {day}" if verb else f" (on {day})"


def _sentence_body(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[:1].isupper() and not text[:2].isupper() else text
