"""``RuleExtractor``: the default ``Extractor``, deterministic and offline (no model, no I/O).

``reflect`` extracts from the given turn only: the patterns' memories and claims, then what else
the user told about themselves (``disclosure``: memories only, never a belief), or a short answer
to the assistant's question about the user (``answers``); ``earlier`` serves the rolling summary,
the plan's goal, whom a leading "he" or "she" stands for (``references``) and one easy case of
reference: "yes, let's do that" right after the assistant proposed something becomes a decision
to do what was proposed. A memory that still leans on a pronoun or demonstrative is not kept, nor
is small talk (``substance``: feelings, resolve, cheers, promises about the chat itself) or a joke
said flat, words passed on and the assistant's make-believe (``figurative``). A sentence taken back
("…, jk"), someone else's words, a supposition or a question without its mark is read as unsaid
before any pattern (``figurative.unmeant``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from agent_svc.domain.extraction import (
    EngagementProposal,
    EpisodeDraft,
    ExtractedMemory,
    TurnReflection,
    Utterance,
)
from agent_svc.domain.rules.agreement import agreed_proposal
from agent_svc.domain.rules.answers import answered_question
from agent_svc.domain.rules.claims import claims_from
from agent_svc.domain.rules.dates import dated
from agent_svc.domain.rules.disclosure import disclosures
from agent_svc.domain.rules.emotion import detect_emotion
from agent_svc.domain.rules.engagement import build_engagement
from agent_svc.domain.rules.episode import build_episode
from agent_svc.domain.rules.figurative import in_jest, meant, unmeant
from agent_svc.domain.rules.kinds import KindReader
from agent_svc.domain.rules.memories import object_quoted_away, statements
from agent_svc.domain.rules.plan import extract_plan
from agent_svc.domain.rules.references import standing_part, stands_alone
from agent_svc.domain.rules.substance import worth_keeping
from agent_svc.domain.rules.summary import ROLLING_SUMMARY_CHARS, summarise


class RuleExtractor:
    """Reads conversations with patterns and a lexicon; same input, same output. With ``kinds``
    (the packaged embedding model behind it), a second reader finds the first-person facts the
    patterns missed in a long line or in words no pattern knows (``kinds.py``)."""

    def __init__(self, kinds: KindReader | None = None) -> None:
        self._kinds = kinds

    async def reflect(self, turn: Utterance, earlier: Sequence[Utterance]) -> TurnReflection:
        last = earlier[-1] if earlier and isinstance(earlier[-1].content, str) else None
        before, before_role = (last.content, last.role) if last else ("", "user")
        # A sentence taken back, someone else's words, a supposition or a question without its mark
        # ("I'm a secret agent, jk", "my brother keeps saying …", "in another life …") is read as unsaid.
        said = unmeant(turn.content) if isinstance(turn.content, str) else turn.content
        found = statements(said, turn.role, before, before_role) if isinstance(said, str) else []
        agreed = agreed_proposal(turn, earlier) if not found else None
        if agreed:
            found = [agreed]
        window = [(t.role, t.content) for t in [*earlier, turn] if t.role in ("user", "assistant")]
        told = disclosures(said, turn.role, tuple(s.excerpt for s in found)) if isinstance(said, str) else []
        if self._kinds is not None and turn.role == "user" and isinstance(said, str):
            # What the patterns found but cannot keep (it leans on "it") is read again by meaning.
            kept = [s for s in found if stands_alone(s.memory.content)]
            written = tuple(c for m in told if (c := standing_part(m.content)) and stands_alone(c))
            found += await self._kinds.read(said, kept, written)
        answer = answered_question(turn, earlier) if not found and not told else None
        # A fact that leans on "it", "they", "this" … it does not name cannot be read alone later, and
        # small talk ("The user is so grateful.", "Decided: keep going.") tells a later one nothing.
        found = [
            meant(s)
            for s in found
            if stands_alone(s.memory.content) and worth_keeping(s.memory) and not _lost_object(s.memory, said)
        ]
        told = [dataclasses.replace(m, content=kept) for m in told if (kept := standing_part(m.content))]
        # A joke said flat ("I'm basically a professional napper") is kept as nobody's fact.
        memories = tuple(
            m
            for m in (*(s.memory for s in found), *told, answer)
            if m and stands_alone(m.content) and worth_keeping(m) and not in_jest(m) and not _lost_object(m, said)
        )
        if turn.said_at is not None:
            memories = tuple(dated(memory, turn.said_at) for memory in memories)
        return TurnReflection(
            memories=memories,
            claims=claims_from(found),
            emotion=detect_emotion(turn.content, turn.role),
            plan=extract_plan((turn.role, turn.content), window[:-1]) if turn.role in ("user", "assistant") else None,
            summary=summarise(window, ROLLING_SUMMARY_CHARS),
        )

    async def summarise(self, turns: Sequence[Utterance]) -> EpisodeDraft:
        return build_episode(turns)

    async def engagement(self, turns: Sequence[Utterance]) -> EngagementProposal:
        return build_engagement(turns)


def _lost_object(memory: ExtractedMemory, said: object) -> bool:
    return isinstance(said, str) and object_quoted_away(memory.content, said)
