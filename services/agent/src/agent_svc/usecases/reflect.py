"""Reflection, the durable post-turn job: what the conversation said becomes long-term memory,
beliefs with evidence, engagement hypotheses and the working memory's summary, plan and mood.

Beliefs carry the session's scope (its user and team; the agent as ever): a user's belief reaches
only that user's contexts. Engagement (hypotheses, unknowns: one state per org) is proposed only
for the sessions of an agent listed in ``engagement_agents`` (``LORE_ENGAGEMENT_AGENTS``); for
any other agent the extractor is not even asked for it and nothing of engagement is written.

One job reflects a session *through* a sequence: under the session's lock it reads the turns
after the session's watermark, in order, and moves the watermark after each one. So turns are
reflected in the order they were said (a later "actually I prefer coffee" supersedes the
earlier belief, never the reverse), a job queued for a turn already covered does nothing, and
a job that crashed half-way resumes at the first turn it had not finished. Each live turn is
appended to working memory before it is reflected (working memory keeps a turn once): a turn that
could not reach working memory when it was said (Redis stalled or down) reaches it as soon as
working memory answers again, and until then the job fails and is retried with its backoff. So
every live turn reflection has passed is in working memory. Every write carries
an id derived from the turn (memory keys, observation and engagement request ids; a hypothesis
or unknown is keyed by its normalised statement): a turn reflected again after a crash creates
nothing twice.

Erasure's fence: before each turn it reflects, the job asks whether the session's subject is being
erased, and stops there when it is (the erasure waits for a job that was already reflecting a turn,
then sweeps what it wrote, and deletes the session with its jobs). A write the memory or
observations service refuses with their own fence (``SUBJECT_ERASING``) stops it the same way: the
job ends rather than failing and being retried against a session the sweep deletes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lore_runtime.errors import Conflict

from agent_svc.domain.extraction import Extractor, TurnReflection, Utterance
from agent_svc.domain.forget_requests import (
    ForgetRequest,
    forget_request,
    summary_without,
    topic_words,
    without_forgotten,
)
from agent_svc.domain.transcript import Session, Turn
from agent_svc.domain.turn_loop import REFLECTED_ROLES
from agent_svc.usecases.engage import engage
from agent_svc.usecases.erasure_ports import SUBJECT_ERASING, ErasureFence
from agent_svc.usecases.forget import ForgetServices, forget_in_turn
from agent_svc.usecases.memory_ports import Memories, MemoryWrite
from agent_svc.usecases.reflection_ports import Engagement, Evidence, Observations
from agent_svc.usecases.transcript_ports import Transcript
from agent_svc.usecases.turn_loop_ports import EmotionPoint, TurnLoopStore, WorkingMemory

BATCH = 50  # turns read per page
WINDOW = 8  # earlier turns the extractor reads with each turn
EMOTIONS_KEPT = 5


def _ignore(reason: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class ReflectionServices:
    transcript: Transcript
    results: TurnLoopStore
    extractor: Extractor
    memories: Memories
    observations: Observations
    engagement: Engagement
    working_memory: WorkingMemory
    engagement_agents: frozenset[str] = frozenset()
    # Told the reason of each engagement write skipped at a limit (a metric in production).
    engagement_skipped: Callable[[str], None] = _ignore
    fence: ErasureFence | None = None
    # Spoken memory control: a turn asking to forget is not learnt from, and what it names is forgotten.
    forget: ForgetServices | None = None

    def engages(self, session: Session) -> bool:
        """Whether reflection writes engagement state for this session (its agent is listed)."""
        return bool(session.scope.agent_id) and session.scope.agent_id in self.engagement_agents


async def reflect_through(org_id: str, session_id: str, through: int, services: ReflectionServices) -> int:
    """Reflect the session's turns up to ``through``; returns how many turns this run read."""
    async with services.results.session_lock(session_id):
        # Read under the lock: the session (gone when erased since the job was queued) with its
        # watermark, how far reflection has read it.
        session = await services.transcript.get(org_id, session_id)
        if session is None:
            return 0
        done = session.reflected_through
        if done >= through:
            return 0
        # The (at most) WINDOW turns said before the first one this run reflects come with the
        # first page, in one read.
        earlier = min(WINDOW, done)
        first = await services.transcript.turns(org_id, session_id, earlier + BATCH, done - earlier)
        window = [turn for turn in first if turn.sequence <= done]
        ahead: list[Turn] | None = [turn for turn in first if turn.sequence > done]
        read, last, emotions = 0, None, []
        while done < through:
            if ahead is None:
                ahead = await services.transcript.turns(org_id, session_id, BATCH, done)
            page, ahead = [turn for turn in ahead if turn.sequence <= through], None
            if not page:
                break
            for turn in page:
                if services.fence is not None and await services.fence.erasing(org_id, session.scope):
                    return read  # the subject is being erased: nothing more is written for it
                if turn.source == "live":
                    # A no-op when the turn path put it there; the turn's way in when the working memory
                    # could not be reached then (a Redis stall): until it can, the job fails and is retried.
                    await services.working_memory.append_turn(session_id, turn, None)
                if turn.role in REFLECTED_ROLES:
                    try:
                        last = await reflect_turn(session, turn, window, services)
                    except Conflict as refused:
                        if refused.reason != SUBJECT_ERASING:
                            raise
                        return read  # a service's own fence: the erasure that set it sweeps the rest
                    if last.emotion is not None and turn.role == "user":
                        emotions.append(
                            EmotionPoint(
                                last.emotion.label,
                                last.emotion.valence,
                                last.emotion.intensity,
                                turn.id,
                                turn.created_at,
                            )
                        )
                window = [*window, turn][-WINDOW:]
                await services.results.mark_reflected(org_id, session_id, turn.sequence)
                done, read = turn.sequence, read + 1
        if last is not None:
            await services.working_memory.reflect(session_id, last.summary, last.plan, emotions[-EMOTIONS_KEPT:])
    return read


async def reflect_turn(
    session: Session, turn: Turn, earlier: Sequence[Turn], services: ReflectionServices
) -> TurnReflection:
    # What a later turn asked to forget, and the asking, are no part of what the summary is made of.
    kept = [t for t in without_forgotten([*earlier, turn]) if t is not turn]
    request = forget_request(turn.content) if turn.role == "user" else None
    found = await services.extractor.reflect(_utterance(turn), [_utterance(t) for t in kept])
    if request is not None:
        return await _forget(session, turn, request, earlier, found, services)
    # One Remember call per turn (the memory service embeds the batch at once): the message itself
    # when it came live (an import indexed its own), what was found in it, its tool results.
    message = [MemoryWrite.message(turn)] if turn.source == "live" else []
    findings = [
        MemoryWrite(
            key=_key("reflect", turn.id, memory.kind, memory.content),
            kind=memory.kind,
            content=memory.content,
            importance=memory.importance,
            valid_at=turn.created_at,
            turn_ids=(turn.id,),
            entities=memory.entities,
            metadata={"speaker": memory.speaker, **({"deadline": memory.deadline} if memory.deadline else {})},
        )
        for memory in found.memories
    ]
    tools = [
        MemoryWrite(
            key=_key("tool", turn.id, tool.tool_name, str(index)),
            kind="tool_interaction",
            content=f"{tool.tool_name}: {tool.summary or tool.intent}".strip(": "),
            importance=0.5,
            valid_at=tool.occurred_at or turn.created_at,
            turn_ids=(turn.id,),
            metadata={"tool_name": tool.tool_name},
        )
        for index, tool in enumerate(turn.tool_interactions)
    ]
    writes = message + findings + tools
    ids = await services.memories.remember(session.scope, session.id, writes) if writes else []
    evidence = Evidence(turn.id, tuple(ids), turn.created_at)
    for claim in found.claims:
        request_id = _key("observe", turn.id, claim.kind, claim.subject_id, claim.slot)
        replaced = await services.observations.observe(session.scope, claim, evidence, request_id)
        # A correction ("not vegetarian any more") superseded the slot's belief: the memories that said
        # the old value leave contexts with it (history keeps them).
        if replaced:
            await services.memories.supersede([memory_id for memory_id in replaced if memory_id not in ids])
    if services.engages(session):
        # Both sides: the agent's conclusions form hypotheses, the user's lines add evidence
        # (usecases/engage.py); a full list is a logged skip, never a failed job.
        proposal = await services.extractor.engagement([_utterance(turn)])
        await engage(turn, proposal, services.engagement, services.engagement_skipped)
    return found


async def _forget(
    session: Session,
    turn: Turn,
    request: ForgetRequest,
    earlier: Sequence[Turn],
    found: TurnReflection,
    services: ReflectionServices,
) -> TurnReflection:
    """A request to forget: no message memory and nothing learnt from it; what it names is forgotten
    (again: ProcessTurn did it, but memories of the turn before may have been written since)."""
    if services.forget is not None:
        await forget_in_turn(session.scope, turn, request, earlier, services.forget, org_id=session.org_id)
    gone = [turn.content] + [t.content for t in earlier if t not in without_forgotten([*earlier, turn])]
    return TurnReflection(summary=summary_without(found.summary, gone, topic_words(request.about)))


def _utterance(turn: Turn) -> Utterance:
    return Utterance(turn.role, turn.content, turn.id, turn.created_at)


def _key(*parts: str) -> str:
    """A stable id for what reflection writes: readable prefix, hashed rest (ids are bounded)."""
    return f"{parts[0]}:{hashlib.sha256(chr(0).join(parts[1:]).encode()).hexdigest()[:40]}"
