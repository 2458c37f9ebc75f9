"""A secret typed alone in answer to the assistant's question for one.

"What's the wifi password?" / "Marmalade99." — the answer carries no label, so redaction, which reads
one text at a time, cannot know it is a secret; beside the question it plainly is. When the turn just
before a user's turn is the assistant asking for a password, PIN, code or key, and the user's turn is a
bare answer (one token, perhaps after "it's" or "sure,"), the token is replaced by the placeholder of
that kind before the turn is kept anywhere. A sentence ("I don't have one", "Why do you ask?") is no
bare answer and stays as said.
"""

from __future__ import annotations

import re

from lore_runtime.redaction import API_KEY, PASSWORD, Kind

# The assistant asks for one: a question (or a request) naming a secret's kind.
_ASKED_KEY = re.compile(r"\b(?:api[\s-]?key|access[\s-]?key|secret[\s-]?key|(?:access|api|auth)\s+token|token)\b", re.I)
_ASKED_PASSWORD = re.compile(
    r"\b(?:pass(?:word|code|phrase|coded?)?|pin(?:\s+(?:code|number))?|security\s+code|access\s+code|"
    r"door\s+code|alarm\s+code|gate\s+code|wi-?fi\s+(?:key|code)|login|log-in|combination)\b",
    re.I,
)
_REQUEST = re.compile(
    r"\?\s*$|^\s*(?:please\s+)?(?:tell|give|send|share|type|enter|paste)\b"
    r"|\b(?:what(?:'s|\s+is)|can\s+you\s+(?:tell|give|send|share))\b",
    re.I,
)
# What may stand before the answer's token: "it's", "sure,", "ok -", "here:".
_LEAD = re.compile(
    r"^(?:(?:sure|ok(?:ay)?|yes|yeah|yep|fine|right|here(?:\s+you\s+go)?|of\s+course)\s*[,:.!-]*\s*)?"
    r"(?:(?:it'?s|it\s+is|that'?s|that\s+is|the\s+\w+\s+is|mine'?s|mine\s+is)\s+)?",
    re.I,
)
_TOKEN = re.compile(r"""^(?P<quote>["'`]?)(?P<token>[^\s"'`]{3,128})(?P=quote)[.!]?$""")
# One-word replies that answer the question without giving the secret.
_NOT_A_SECRET = frozenset(
    {
        "no", "nope", "nah", "never", "dunno", "idk", "why", "sorry", "later", "skip", "pass", "none",
        "nothing", "forgot", "unsure", "maybe", "yes", "yeah", "yep", "sure", "ok", "okay", "thanks",
        "what", "huh", "hmm", "hm", "lol", "haha", "nevermind", "hang",
    }
)  # fmt: skip


def asked_kind(question: str) -> Kind | None:
    """The kind of secret the assistant's turn asks for, or None when it asks for none."""
    if not _REQUEST.search(question):
        return None
    if _ASKED_KEY.search(question):
        return Kind.API_KEY
    if _ASKED_PASSWORD.search(question):
        return Kind.PASSWORD
    return None


def bare_answer_start(answer: str) -> int | None:
    """Where the bare token of ``answer`` starts (after "it's", "sure," …), or None when ``answer`` is
    no bare answer (a sentence, a question, a refusal, a placeholder already): what is worth reading
    the question for."""
    text = answer.strip()
    lead = _LEAD.match(text)
    start = lead.end() if lead else 0
    bare = _TOKEN.match(text[start:])
    token = bare.group("token") if bare else ""
    if not token or token.endswith("?") or token.rstrip(".!").lower() in _NOT_A_SECRET or "[" in token:
        return None
    return start


def without_answered_secret(question: str, answer: str, kinds: frozenset[Kind]) -> str:
    """``answer`` with its bare secret replaced when ``question`` (the assistant's turn just before)
    asked for one of ``kinds``; ``answer`` unchanged otherwise."""
    kind = asked_kind(question)
    start = bare_answer_start(answer)
    if kind is None or kind not in kinds or start is None:
        return answer
    placeholder = API_KEY if kind is Kind.API_KEY else PASSWORD
    return f"{answer.strip()[:start]}{placeholder}"
