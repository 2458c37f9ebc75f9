"""Turns → engagement proposals: hypotheses from hedged causal statements, unknowns from open questions.

The proposal says what the turns suggest, from either speaker; what reflection may write of it (a
hypothesis only from the agent's own conclusion, a user's line only as evidence) is decided in
``agent_svc.domain.engagement``.

"I suspect the churn comes from pricing" proposes *the churn comes from pricing* with the turn as a
supporting line; a later "it's not the pricing" adds a contradicting line to the hypothesis whose
words it shares. "We don't know why …", "no idea whether …", "I wonder if …" become unknowns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_svc.domain.extraction import EngagementProposal, EvidenceLine, HypothesisProposal, Utterance
from agent_svc.domain.rules.text import MAX_SENTENCE_CHARS, content_words, sentences, tidy

MAX_TURNS = 400
MAX_HYPOTHESES = 10
MAX_UNKNOWNS = 10
_I = re.IGNORECASE
_HUNCH = re.compile(
    r"^(?:(?:well|so|hmm|honestly),?\s+)?(?:i suspect|i bet|my (?:working )?(?:hunch|guess|theory|suspicion|hypothesis)"
    r" is|i have a hunch|i think|i guess|maybe|perhaps|probably|possibly|it might be that|it could be that|"
    r"the evidence suggests|it looks like)(?: that)?,?\s+(?P<x>.+)",
    _I,
)
_STRONG = re.compile(r"^(?:(?:well|so|hmm|honestly),?\s+)?(?:i suspect|i bet|my (?:working )?(?:hunch|guess|theory|"
                     r"suspicion|hypothesis)|i have a hunch|the evidence suggests)", _I)  # fmt: skip
_CAUSAL = re.compile(r"\b(?:caused by|comes from|come from|due to|because|driven by|result of|stems from|"
                     r"the reason|responsible for|behind|is why|leads to|causes|causing)\b", _I)  # fmt: skip
_DENIAL = re.compile(
    r"\b(?:it's not|it is not|it isn't|isn't|is not|wasn't|was not|not caused by|ruled out|rule out|"
    r"has nothing to do with|not the (?:cause|reason|problem|issue))\b",
    _I,
)
_UNKNOWN = re.compile(
    r"\b(?:we don't know|we do not know|i don't know|nobody knows|no one knows|no idea|not sure|unclear|i wonder|"
    r"we're not sure|it's unclear|open question is)(?:\s+yet)?\s*,?\s*"
    r"(?P<wh>why|whether|if|how|what|when|where|who|which)\s+(?P<x>.+)",
    _I,
)


def _statement(text: str) -> str:
    text = tidy(text)
    return (text[:1].upper() + text[1:] + ".") if text else ""


def build_engagement(turns: Sequence[Utterance]) -> EngagementProposal:
    hypotheses: dict[str, list[EvidenceLine]] = {}
    unknowns: list[str] = []
    for turn in turns[:MAX_TURNS]:
        if turn.role not in ("user", "assistant") or not isinstance(turn.content, str):
            continue
        for sentence in sentences(turn.content):
            text = " ".join(sentence.clean.split())
            if len(text) > MAX_SENTENCE_CHARS or (sentence.is_question and not _UNKNOWN.search(text)):
                continue
            line = " ".join(sentence.text.split())
            unknown = _UNKNOWN.search(text)
            if unknown:
                wh = "whether" if unknown.group("wh").lower() == "if" else unknown.group("wh").lower()
                phrase = _statement(f"{wh} {unknown.group('x')}").rstrip(".")
                if phrase and phrase not in unknowns:
                    unknowns.append(phrase)
                continue
            hunch = _HUNCH.match(text)
            if hunch and (_CAUSAL.search(text) or _STRONG.match(text)) and not _DENIAL.search(hunch.group("x")):
                statement = _statement(hunch.group("x"))
                if (statement and len(hypotheses) < MAX_HYPOTHESES) or statement in hypotheses:
                    hypotheses.setdefault(statement, []).append(EvidenceLine(line, True, turn.turn_id))
                continue
            if _DENIAL.search(text):
                denied = set(content_words(text))
                for statement, lines in hypotheses.items():
                    if denied & set(content_words(statement)) - {"cause", "reason", "problem", "issue"}:
                        lines.append(EvidenceLine(line, False, turn.turn_id))
                        break
    return EngagementProposal(
        hypotheses=tuple(HypothesisProposal(s, tuple(lines)) for s, lines in hypotheses.items()),
        unknowns=tuple(unknowns[:MAX_UNKNOWNS]),
    )
