"""Spoken memory control: what a request to forget archives and invalidates.

``forget_in_turn`` serves a user's turn that asks to forget (domain/forget_requests.py recognises
it); ``forget_about`` serves the same request made as a call (ForgetAbout, ``POST
/v1/memories:forget``). Both act on the user's own records only: memories whose user is the
scope's user (never an org-shared or team memory, which have none) and beliefs scoped to that
user (never the org's shared ones).

What is forgotten, for a request naming something ("my address"): the user's memories (message
memories included) that match it, found by the memory service's hybrid search and kept only when
the match is good (a content word of the request in the memory's text with some closeness of
meaning, or a very close meaning alone: forgetting the wrong thing is worse than forgetting
nothing); the message memories of the turns those came from (they said it too); and the user's
current beliefs whose evidence cites one of them, or that match the request as well. For a request
pointing back ("scratch that"): the memories drawn from the user's turn it points at and the
beliefs citing that turn or them. Memories become ARCHIVED and beliefs INVALIDATED, both with the
reason (the forgetting turn's id) recorded. Idempotent: an archived memory is not found again, an
invalidated belief is not current.

The user's episodes that hold what was forgotten (their summary, decisions or threads say it, or
their session holds a turn it was learnt from) are made again from their session's remaining
turns, or deleted when nothing is left (usecases/episodes.py ``forget_in_episodes``); a daily
digest that tells it is rewritten without those lines (archived when none is left). The
working-memory summaries of the user's active sessions are rewritten without it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from lore_runtime.clock import Clock
from lore_runtime.errors import InvalidArgument

from agent_svc.domain.forget_requests import (
    AMBIGUOUS,
    FORGOTTEN,
    NOTHING_MATCHED,
    ForgetOutcome,
    ForgetRequest,
    ForgottenItem,
    antecedent_position,
    content_words,
    digest_without,
    summary_without,
    topic_words,
)
from agent_svc.domain.transcript import Scope, Turn, bounded_id, normalise_content
from agent_svc.usecases.episodes import EpisodeServices, Forgotten, forget_in_episodes
from agent_svc.usecases.forget_ports import Forgetting, FoundBelief, FoundMemory, Reason
from agent_svc.usecases.transcript_ports import Transcript

SEARCHED = 30  # memories and beliefs read per search
# Precision thresholds (dense cosine of the packaged model, docs/decisions.md): a match names a topic
# word of the request (domain/forget_requests.py topic_words) and is at least NAMED_CLOSENESS close,
# or is CLOSE in meaning alone. The packaged model puts "my address" only 0.22 from "I live at 14
# Juniper Road" and 0.12 from "I'm allergic to peanuts": closeness alone cannot choose, words do.
NAMED_CLOSENESS = 0.1
CLOSE = 0.8
# The type of a forgotten item that is a turn not yet reflected: nothing of it was written yet.
PENDING_TURN = "turn"
# A daily digest tells a day's episodes: it is rewritten without what was forgotten, like they are,
# and archived only when nothing else is left in it.
DIGEST = "daily_digest"


MAX_ABOUT = 500
SESSIONS_REWRITTEN = 50  # the user's newest active sessions whose working-memory summary is rewritten


@dataclass(frozen=True, slots=True)
class ForgetServices:
    forgetting: Forgetting
    # The user's episodes that hold what was forgotten are made again without it (or deleted).
    episodes: EpisodeServices | None = None


async def forget_on_request(
    org_id: str,
    scope: Scope,
    about: str,
    request_id: str,
    *,
    services: ForgetServices,
    transcript: Transcript,
    clock: Clock,
) -> ForgetOutcome:
    """ForgetAbout: the request as a call. ``scope.user_id`` is required (a user's own records only);
    the reason recorded is ``request:<request_id>`` (``request:`` alone without one)."""
    if not scope.user_id:
        raise InvalidArgument("scope.user_id", "name the user whose memories are forgotten")
    if len(about) > MAX_ABOUT:  # the text as sent, as the API document counts it
        raise InvalidArgument("about", f"at most {MAX_ABOUT} characters")
    about = normalise_content(about, "about")
    if not content_words(about):
        raise InvalidArgument("about", "name what to forget (a word that is not only a pronoun or a stop word)")
    request_id = bounded_id(request_id, "request_id")
    user = Scope(user_id=scope.user_id, agent_id=scope.agent_id)
    active = await transcript.list(org_id, user, "active", SESSIONS_REWRITTEN, None)
    reason = Reason(f"request:{request_id}", "", clock.now())
    sessions = [session.id for session in active]
    return await forget_about(user, about, reason, services, sessions=sessions, org_id=org_id)


async def forget_about(
    scope: Scope,
    about: str,
    reason: Reason,
    services: ForgetServices,
    sessions: Sequence[str] = (),
    *,
    org_id: str = "",
) -> ForgetOutcome:
    """Forget what the user's records say about ``about``; ``sessions``: whose working-memory
    summaries are rewritten without it; with ``org_id``, the user's episodes too."""
    words = topic_words(about)
    query = " ".join([about, *sorted(words - content_words(about))])
    found = await services.forgetting.search_memories(scope, query, SEARCHED)
    chosen = [memory for memory in found if _own(scope, memory) and _matches(words, memory.text, memory.similarity)]
    chosen += await _their_messages(scope, chosen, services)
    beliefs = await services.forgetting.search_beliefs(scope, query, SEARCHED)
    cited = _cited(chosen)
    picked = [b for b in beliefs if _own(scope, b) and (b.source_ids & cited or _matches(words, b.text, b.similarity))]
    digests = [memory for memory in chosen if memory.kind == DIGEST]
    chosen = [memory for memory in chosen if memory.kind != DIGEST]
    forgotten = await _forget(chosen, picked, reason, services)
    await _rewrite_digests(digests, [item.text for item in forgotten], words, reason, services)
    for session_id in sessions:
        await _rewrite_summary(session_id, [item.text for item in forgotten], words, services)
    if org_id and services.episodes is not None:
        turn_ids = frozenset(turn_id for memory in chosen for turn_id in memory.turn_ids)
        gone = Forgotten(reason.by, turn_ids, tuple(item.text for item in forgotten), words)
        await forget_in_episodes(org_id, scope.user_id, gone, services.episodes)
    return ForgetOutcome(FORGOTTEN if forgotten else NOTHING_MATCHED, tuple(forgotten))


async def forget_in_turn(
    scope: Scope,
    turn: Turn,
    request: ForgetRequest,
    earlier: Sequence[Turn],
    services: ForgetServices,
    *,
    org_id: str = "",
    reflected_through: int | None = None,
) -> ForgetOutcome:
    """The request ``turn`` makes; ``earlier``: the session's turns before it (the last two at least).
    With ``org_id``, a request naming something is taken out of the user's episodes too; one pointing
    back never needs to be: what it points at is in this session, which has no episode yet (its
    episode is made without it). ``reflected_through``: the session's reflection watermark, when
    known; a turn pointed at beyond it has nothing written yet, and reflection, which runs in order,
    forgets what it learns from that turn when it reaches this request: the answer names the turn."""
    reason = Reason(turn.id, turn.session_id, turn.created_at)
    if not request.points_back:
        return await forget_about(scope, request.about, reason, services, sessions=(turn.session_id,), org_id=org_id)
    if content_words(request.said_before):
        # "My code is 4417, don't remember that": the turn itself is never stored, nothing else goes.
        return ForgetOutcome(FORGOTTEN)
    position = antecedent_position(earlier)
    if position is None:
        return ForgetOutcome(AMBIGUOUS)
    said = earlier[position]
    found = await services.forgetting.search_memories(scope, said.content, SEARCHED)
    chosen = [memory for memory in found if _own(scope, memory) and said.id in memory.turn_ids]
    beliefs = await services.forgetting.search_beliefs(scope, said.content, SEARCHED)
    cited = _cited(chosen) | {said.id}
    picked = [belief for belief in beliefs if _own(scope, belief) and belief.source_ids & cited]
    forgotten = await _forget(chosen, picked, reason, services)
    await _rewrite_summary(turn.session_id, [said.content, *(item.text for item in forgotten)], frozenset(), services)
    if not forgotten and reflected_through is not None and said.sequence > reflected_through:
        forgotten = [ForgottenItem(said.id, PENDING_TURN, said.content)]
    return ForgetOutcome(FORGOTTEN if forgotten else NOTHING_MATCHED, tuple(forgotten))


def _own(scope: Scope, record: FoundMemory | FoundBelief) -> bool:
    """Only the user's own: never the org's shared records or a team's (they name no user)."""
    return bool(scope.user_id) and record.user_id == scope.user_id


def _matches(words: frozenset[str], text: str, similarity: float) -> bool:
    if similarity >= CLOSE:
        return True
    return bool(words & content_words(text)) and similarity >= NAMED_CLOSENESS


def _cited(memories: Sequence[FoundMemory]) -> set[str]:
    return {memory.id for memory in memories} | {turn_id for memory in memories for turn_id in memory.turn_ids}


async def _their_messages(scope: Scope, chosen: Sequence[FoundMemory], services: ForgetServices) -> list[FoundMemory]:
    """The message memories of the turns the chosen memories were drawn from (the turn said it too)."""
    have = {memory.id for memory in chosen}
    turns = {turn_id for memory in chosen if memory.kind != "message" for turn_id in memory.turn_ids}
    more: list[FoundMemory] = []
    for memory in chosen:
        if memory.kind == "message" or not turns:
            continue
        for other in await services.forgetting.search_memories(scope, memory.text, SEARCHED):
            if (
                other.kind == "message"
                and other.id not in have
                and _own(scope, other)
                and set(other.turn_ids) & set(memory.turn_ids)
            ):
                have.add(other.id)
                more.append(other)
    return more


async def _forget(
    memories: Sequence[FoundMemory], beliefs: Sequence[FoundBelief], reason: Reason, services: ForgetServices
) -> list[ForgottenItem]:
    forgotten: list[ForgottenItem] = []
    for memory in {memory.id: memory for memory in memories}.values():
        if await services.forgetting.archive(memory.id, reason):
            forgotten.append(ForgottenItem(memory.id, memory.kind, memory.text))
    for belief in {belief.id: belief for belief in beliefs}.values():
        digest = hashlib.sha256(chr(0).join((reason.by, belief.id)).encode()).hexdigest()[:40]
        request_id = f"forget:{digest}"
        if await services.forgetting.invalidate(belief.id, reason, request_id):
            forgotten.append(ForgottenItem(belief.id, "belief", belief.text))
    return forgotten


async def _rewrite_digests(
    digests: Sequence[FoundMemory],
    texts: Sequence[str],
    words: frozenset[str],
    reason: Reason,
    services: ForgetServices,
) -> None:
    for digest in {memory.id: memory for memory in digests}.values():
        told = digest_without(digest.text, texts, words)
        if not told:
            await services.forgetting.archive(digest.id, reason)
        elif told != digest.text.strip():
            await services.forgetting.rewrite(digest.id, told, reason)


async def _rewrite_summary(
    session_id: str, texts: Sequence[str], words: frozenset[str], services: ForgetServices
) -> None:
    if not session_id:
        return
    summary = await services.forgetting.summary(session_id)
    rewritten = summary_without(summary, texts, words)
    if rewritten != summary.strip():
        await services.forgetting.rewrite_summary(session_id, rewritten)
