"""``RuleExtractor``: the default ``Extractor``, deterministic and offline (no model, no I/O).

``reflect`` extracts from the given turn only: the patterns' memories and claims, then what else
the user told about themselves (``disclosure``: memories only, never a belief); ``earlier``
serves the rolling summary, the plan's goal and one easy case of reference: "yes, let's do that"
right after the assistant proposed something becomes a decision to do what was proposed.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_svc.domain.extraction import (
    EngagementProposal,
    EpisodeDraft,
    TurnReflection,
    Utterance,
)
from agent_svc.domain.rules.agreement import agreed_proposal
from agent_svc.domain.rules.claims import claims_from
from agent_svc.domain.rules.dates import dated
from agent_svc.domain.rules.disclosure import disclosures
from agent_svc.domain.rules.emotion import detect_emotion
from agent_svc.domain.rules.engagement import build_engagement
from agent_svc.domain.rules.episode import build_episode
from agent_svc.domain.rules.memories import statements
from agent_svc.domain.rules.plan import extract_plan
from agent_svc.domain.rules.summary import ROLLING_SUMMARY_CHARS, summarise


class RuleExtractor:
    """Reads conversations with patterns and a lexicon; same input, same output."""

    async def reflect(self, turn: Utterance, earlier: Sequence[Utterance]) -> TurnReflection:
        found = statements(turn.content, turn.role) if isinstance(turn.content, str) else []
        agreed = agreed_proposal(turn, earlier) if not found else None
        if agreed:
            found = [agreed]
        window = [(t.role, t.content) for t in [*earlier, turn] if t.role in ("user", "assistant")]
        told = (
            disclosures(turn.content, turn.role, tuple(s.excerpt for s in found))
            if isinstance(turn.content, str)
            else []
        )
        memories = (*(s.memory for s in found), *told)
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
