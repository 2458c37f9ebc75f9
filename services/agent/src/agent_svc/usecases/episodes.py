"""Session boundaries and episodes: a session ends when asked (EndSession) or after a period of
silence (the idle scan); either way the episode extraction job is queued in the same
transaction as the end, and the job turns the whole conversation into an episode.

An episode's times are its turns' times (an imported conversation from 2022 ends in 2022, not when
EndSession was called). With an ``embedder`` (the default, rule-based mode) its summary is the
sentences that best cover the conversation (domain/rules/central.py) told in the third person
(domain/rules/narration.py), with the speakers' names when the turns carry them, instead of the
extractor's; without one (a language model is configured) it is the model's, and the model's
fallback is the rule extractor's, told alike (domain/rules/episode.py)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

import numpy as np
from lore_runtime.clock import Clock

from agent_svc.domain.extraction import EpisodeDraft, Extractor, Utterance
from agent_svc.domain.forget_requests import content_words, without_forgotten
from agent_svc.domain.jobs import episode_job
from agent_svc.domain.open_threads import open_business
from agent_svc.domain.rules.central import conversation_sentences, pick_summary
from agent_svc.domain.rules.episode import with_summary
from agent_svc.domain.rules.narration import speaker_names, tellable
from agent_svc.domain.rules.summary import MAX_TOLD, narrate_summary, topics_of
from agent_svc.domain.transcript import Turn
from agent_svc.domain.turn_loop import REFLECTED_ROLES
from agent_svc.usecases.episode_ports import Episodes
from agent_svc.usecases.erasure_ports import ErasureFence
from agent_svc.usecases.memory_ports import Memories
from agent_svc.usecases.threads import close_answered_threads
from agent_svc.usecases.transcript_ports import Transcript
from agent_svc.usecases.turn_loop_ports import TurnLoopStore

PAGE = 500
# The extractor reads at most this many turns (the most recent) of a very long conversation.
MAX_EPISODE_TURNS = 2_000
IDLE_SCAN_LIMIT = 500
EPISODES_FORGOTTEN = 500  # the user's newest episodes a request to forget reads
# What the chosen sentences may hold as said; told in the third person they grow by the names.
PICKED_CHARS = 450


class TextEmbedder(Protocol):
    """lore_embeddings.Embedder as far as episodes need it: texts in, unit rows out."""

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class EpisodeServices:
    transcript: Transcript
    extractor: Extractor
    episodes: Episodes
    embedder: TextEmbedder | None = None  # None: the extractor's own summary (a language model's)
    memories: Memories | None = None  # completes the commitments behind threads a later session closes
    fence: ErasureFence | None = None  # an erasure of the session's subject under way: nothing is written


async def extract_episode(org_id: str, session_id: str, services: EpisodeServices) -> str:
    """The episode of an ended session (its id), or "" when there is nothing to remember."""
    session = await services.transcript.get(org_id, session_id)
    if session is None or session.status != "ended" or session.ended_at is None:
        return ""
    # What the user asked to forget is no part of the episode.
    turns = without_forgotten(await _session_turns(org_id, session_id, services))
    if not turns:
        return ""
    started_at = min(turn.created_at for turn in turns)
    ended_at = max(turn.created_at for turn in turns)
    turns = turns[-MAX_EPISODE_TURNS:]
    if (draft := await _draft(turns, services)) is None:
        return ""  # nothing said worth an episode (a greeting): the job is done
    if services.fence is not None and await services.fence.erasing(org_id, session.scope):
        return ""  # the erasure deletes the session with this job
    episode_id = await services.episodes.create(session, draft, len(turns), started_at, ended_at)
    await close_answered_threads(session, turns, services.episodes, episode_id, services.memories)  # what it answered
    return episode_id


async def _draft(turns: Sequence[Turn], services: EpisodeServices) -> EpisodeDraft | None:
    """What an episode of ``turns`` says, or None when they gave nothing to remember."""
    draft = await services.extractor.summarise([Utterance(t.role, t.content, t.id, t.created_at) for t in turns])
    draft = open_business(draft)  # threads only for open questions, requests and closable plans
    if services.embedder is not None:
        draft = await _told(draft, turns, services.embedder)
    return with_summary(draft)


async def _session_turns(org_id: str, session_id: str, services: EpisodeServices) -> list[Turn]:
    """The session's reflected turns; none for an episode whose conversation is no session of the
    agent's (a client may write episodes under any conversation id: it has no transcript here)."""
    try:
        uuid.UUID(session_id)
    except ValueError:
        return []
    turns, after = [], 0
    while page := await services.transcript.turns(org_id, session_id, PAGE, after):
        turns += [turn for turn in page if turn.role in REFLECTED_ROLES]
        after = page[-1].sequence
    return turns


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What a request to forget took away: the turns it was said in, the texts forgotten, the topic
    words the request named (domain/forget_requests.py), and the request (``by``: the forgetting
    turn's id, or ``request:<id>``)."""

    by: str
    turn_ids: frozenset[str] = frozenset()
    texts: tuple[str, ...] = ()
    words: frozenset[str] = frozenset()

    def said_in(self, text: str) -> bool:
        """Whether ``text`` says what was forgotten: a topic word, or half the words of a forgotten text."""
        words = content_words(text)
        if self.words & words:
            return True
        return any(gone and len(gone & words) * 2 >= len(gone) for gone in map(content_words, self.texts))


async def forget_in_episodes(org_id: str, user_id: str, forgotten: Forgotten, services: EpisodeServices) -> int:
    """Rewrite the user's episodes that hold what was forgotten (their summary says it, or their
    session holds a forgotten turn): made again from the session's remaining turns, or deleted when
    nothing is left to remember. Idempotent: a rewritten episode no longer says it, and making it
    again from the same turns gives the same episode. Returns how many episodes changed."""
    if not user_id:
        return 0
    sessions = set()
    for turn_id in sorted(forgotten.turn_ids):
        turn = await services.transcript.turn(org_id, turn_id)
        if turn is not None:
            sessions.add(turn.session_id)
    changed = 0
    for episode in await services.episodes.of_user(user_id, EPISODES_FORGOTTEN):
        if episode.conversation_id not in sessions and not forgotten.said_in(episode.says):
            continue
        turns = await _session_turns(org_id, episode.conversation_id, services)
        kept = [
            turn
            for turn in without_forgotten(turns)
            if turn.id not in forgotten.turn_ids and not forgotten.said_in(turn.content)
        ][-MAX_EPISODE_TURNS:]
        draft = await _draft(kept, services) if kept else None
        if draft is None:
            changed += await services.episodes.delete(episode.id)
            continue
        threads = tuple(
            dataclasses.replace(thread, status="resolved") if thread.topic in episode.resolved else thread
            for thread in draft.open_threads
        )  # a thread closed since stays closed
        await services.episodes.rewrite(
            episode.id, dataclasses.replace(draft, open_threads=threads), len(kept), forgotten.by
        )
        changed += 1
    return changed


async def _told(draft: EpisodeDraft, turns: Sequence[Turn], embedder: TextEmbedder) -> EpisodeDraft:
    """The draft with the summary told from the turns (the speakers by the names they carry)."""
    names = speaker_names([(turn.role, turn.content, turn.speaker) for turn in turns])
    summary = await summarise_conversation(
        [(turn.role, turn.content) for turn in turns],
        embedder,
        names=names,
        decided=draft.decisions,
        # What was left open is not written into the summary: a summary is written once, and a
        # thread answered later would read as open for ever. Open threads are shown live instead.
    )
    return dataclasses.replace(draft, summary=summary or draft.summary)


async def summarise_conversation(
    turns: Sequence[tuple[str, str]],
    embedder: TextEmbedder,
    *,
    names: Mapping[str, str] | None = None,
    decided: Sequence[str] = (),
    still_open: Sequence[str] = (),
) -> str:
    """The summary of (role, text) turns ("" when nothing may be told): the sentences that best cover
    the conversation (filler set aside; one embedding batch of at most MAX_SENTENCES sentences),
    told in the third person with the speakers' ``names`` (else "the user" and "the assistant"),
    with what was ``decided`` and what is ``still_open``."""
    said = [
        dataclasses.replace(sentence, quotable=tellable(sentence.text, sentence.text.rstrip().endswith("?")))
        for sentence in conversation_sentences(turns)
    ]
    if not any(sentence.quotable for sentence in said):
        return ""
    vectors = await embedder.embed([sentence.text for sentence in said])
    picked = pick_summary(vectors, said, budget=PICKED_CHARS, max_sentences=MAX_TOLD)
    return narrate_summary(
        [(said[i].role, said[i].text) for i in picked],
        names or {},
        topics=topics_of([s.text for s in said if s.quotable]),
        decided=decided,
        still_open=still_open,
    )


async def end_idle_sessions(
    idle_after: timedelta, *, transcript: Transcript, results: TurnLoopStore, clock: Clock
) -> dict[str, int]:
    """End every session silent for ``idle_after`` (each in its own org's transaction), queueing
    its episode; for the scheduled scan, which runs as a system principal."""
    now = clock.now()
    ended = 0
    for org_id, session_id in await results.idle_sessions(now - idle_after, IDLE_SCAN_LIMIT):
        session = await transcript.end(
            org_id, session_id, "idle", now, then=lambda s, org=org_id: [episode_job(org, s.id)]
        )
        ended += session is not None
    return {"ended": ended}
