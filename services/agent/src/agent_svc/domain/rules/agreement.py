"""One easy reference: "yes, let's do that" right after the assistant proposed something is a
decision to do what was proposed (its last recommendation, or the "should we …?" it asked)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_svc.domain.extraction import ExtractedMemory, Utterance
from agent_svc.domain.rules.memories import IMPORTANCE, Facet, Statement, entities_in, statements
from agent_svc.domain.rules.text import tidy

_AGREE = re.compile(
    r"^(?:(?:yes|yeah|yep|ok|okay|sure|great|perfect|sounds good|agreed|deal)[\s,.!]*)*(?:let's do (?:that|it|this)|"
    r"let's go with (?:that|it|this)|do it|go (?:for|with) it|sounds good|agreed|deal)[\s.!]*$",
    re.IGNORECASE,
)
_OFFER = re.compile(
    r"^(?:should we|shall we|do you want (?:me )?to|want me to|shall i|should i|would you like (?:me )?to)\s+"
    r"(?P<x>.+?)\?",
    re.IGNORECASE,
)


def agreed_proposal(turn: Utterance, earlier: Sequence[Utterance]) -> Statement | None:
    """ "Yes, let's do that" after the assistant's last proposal → that proposal, decided."""
    if turn.role != "user" or not _AGREE.match(turn.content.strip()):
        return None
    last = next((t for t in reversed(earlier) if t.role == "assistant"), None)
    if last is None:
        return None
    proposal = next((s.proposal for s in statements(last.content, "assistant") if s.proposal), "")
    if not proposal:
        offer = _OFFER.search(last.content.strip().split("\n")[-1])
        proposal = tidy(offer.group("x")) if offer else ""
    if not proposal:
        return None
    content = f"Decided: {proposal}."
    memory = ExtractedMemory("decision", content, "user", IMPORTANCE["decision"], entities_in(proposal))
    return Statement(memory, turn.content.strip(), (Facet("", proposal, content),))
