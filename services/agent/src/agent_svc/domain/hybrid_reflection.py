"""A turn's reflection from the rules and from a language model, merged: where the rules are sure their
result stands, whatever the model says, and the model adds what the rules cannot reach.

The rules are sure of the slots they fill (a diet, a home city, an employer: a claim on a named slot)
and of a correction on such a slot (``contradicts``); a request to forget is decided before either
extractor is read (``forget_requests``). So a model's claim on a slot the rules filled for this turn is
dropped with the memory restating it, every rule claim and memory is kept, and a model's memory is added
unless it says what a rule memory says already. The model's emotion, plan and summary are taken when it
gives them (the rules read little of either), the rules' otherwise.
"""

from __future__ import annotations

import re

from agent_svc.domain.extraction import ExtractedClaim, TurnReflection

_NOT_WORD = re.compile(r"[^0-9a-z]+")


def _slot(claim: ExtractedClaim) -> tuple[str, str, str]:
    return claim.subject_type, claim.subject_id.strip().lower(), claim.slot


def _said(text: str) -> str:
    return _NOT_WORD.sub(" ", text.lower()).strip()


def merge_reflections(rules: TurnReflection, model: TurnReflection) -> TurnReflection:
    """``rules`` with what ``model`` adds: claims on other slots, memories saying something else."""
    sure = {_slot(claim) for claim in rules.claims}
    overruled = [claim for claim in model.claims if _slot(claim) in sure]
    # What a rule memory says already, and what the model said of a slot the rules filled.
    said = {_said(memory.content) for memory in rules.memories}
    said |= {_said(text) for claim in overruled for text in (claim.summary, claim.excerpt)}
    added_claims = tuple(claim for claim in model.claims if _slot(claim) not in sure)
    added_memories = []
    for memory in model.memories:
        key = _said(memory.content)
        if key and key not in said:
            said.add(key)
            added_memories.append(memory)
    return TurnReflection(
        memories=(*rules.memories, *added_memories),
        claims=(*rules.claims, *added_claims),
        emotion=model.emotion or rules.emotion,
        plan=model.plan or rules.plan,
        summary=model.summary or rules.summary,
    )
