"""Reflection's engagement step for one turn of a listed agent's session (docs/engagement.md,
"What reflection writes"): the extractor's proposal, filtered by the hygiene rules of
``agent_svc.domain.engagement``, becomes evidence on the matching hypothesis, a new hypothesis
only for the agent's own conclusion, a promotion or archive by the documented rule, and unknowns
only for the agent's open questions.

A full list (the org's active hypotheses or open unknowns at their limit, a hypothesis's evidence
at its limit) or a hypothesis closed meanwhile is a logged skip: the rest of the turn's reflection
goes on and the job completes. A service that cannot be reached still fails the job (it retries).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable

from lore_runtime.errors import FailedPrecondition, QuotaExceeded

from agent_svc.domain import engagement as rules
from agent_svc.domain.extraction import EngagementProposal, HypothesisProposal
from agent_svc.domain.transcript import Turn
from agent_svc.usecases.reflection_ports import Engagement

log = logging.getLogger(__name__)

MAX_NOTE = 900
WHY_IT_MATTERS = "The agent raised it in conversation and it is not yet answered."


async def engage(
    turn: Turn, proposal: EngagementProposal, engagement: Engagement, skipped: Callable[[str], None] = lambda _: None
) -> None:
    """``skipped`` is told the reason of each write skipped because a limit is reached."""
    hypotheses = [h for h in proposal.hypotheses if _lines(h, turn)]
    unknowns = [q for q in proposal.unknowns if rules.may_add_unknown(turn.role)]
    if not hypotheses and not unknowns:
        return
    view = await engagement.state()
    for hypothesis in hypotheses:
        await _skipping(_hypothesis(turn, hypothesis, view, engagement), turn, "hypothesis", skipped)
    for question in unknowns:
        if rules.knows_unknown(question, view):
            continue
        request_id = _key("engage-u", rules.normalise(question))
        await _skipping(engagement.add_unknown(question, WHY_IT_MATTERS, request_id), turn, "unknown", skipped)


async def _hypothesis(
    turn: Turn, proposal: HypothesisProposal, view: rules.EngagementView, engagement: Engagement
) -> None:
    lines = _lines(proposal, turn)
    current = rules.match(proposal.statement, view.hypotheses)
    if current is None:
        if not rules.may_form([turn.role for line in lines if line.supports]):
            return  # a user's hunch alone forms nothing
        if rules.states_precise_figure(proposal.statement):
            log.info(
                "engagement: no hypothesis formed from turn %s: it states a precise figure without a source", turn.id
            )
            return
        # The request id is the statement's: concurrent sessions forming it get one hypothesis, and a
        # statement already promoted or archived is not formed again (the replay returns it closed).
        current = await engagement.form(proposal.statement, _key("engage-h", rules.normalise(proposal.statement)))
        if not current.active:
            return
    source = f"{turn.role}, {turn.created_at:%Y-%m-%d}, turn:{turn.id}"
    for index, line in enumerate(lines):
        if not rules.counts_as_evidence(turn.role, current):
            continue
        request_id = _key("engage-e", turn.id, current.id, str(index))
        current = await engagement.add_evidence(current.id, line.statement, line.supports, source, request_id)
    if rules.should_promote(current):
        await engagement.promote(current.id, source)
    elif rules.should_archive(current):
        last = next((line.statement for line in reversed(lines) if not line.supports), "")
        note = f"Disconfirmed in conversation: {last}" if last else "Disconfirmed in conversation."
        await engagement.archive(current.id, note[:MAX_NOTE])


async def _skipping(call: Awaitable[None], turn: Turn, what: str, skipped: Callable[[str], None]) -> None:
    """A full list or a closed hypothesis skips this write, logged; it never fails the job."""
    try:
        await call
    except QuotaExceeded as error:
        skipped(error.reason)
        log.warning(
            "engagement: %s from turn %s skipped, a limit is reached (%s): %s", what, turn.id, error.reason, error
        )
    except FailedPrecondition as error:
        log.info("engagement: %s from turn %s skipped (%s): %s", what, turn.id, error.reason, error)


def _lines(proposal: HypothesisProposal, turn: Turn):
    """The proposal's evidence said in this turn (reflection asks about one turn at a time)."""
    return [line for line in proposal.evidence if line.turn_id in ("", turn.id)]


def _key(*parts: str) -> str:
    return f"{parts[0]}:{hashlib.sha256(chr(0).join(parts[1:]).encode()).hexdigest()[:40]}"
