"""Entities: capitalised names and technology words, and whether a word is a name."""

from __future__ import annotations

import re

from agent_svc.domain.rules.text import DAYS, MONTHS, STOPWORDS, TECH_WORDS

MAX_ENTITIES = 10
_I = re.IGNORECASE

_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9+#&.-]*(?:\s+[A-Z][A-Za-z0-9+#&-]*)*")
_TECH_ALTERNATIVES = "|".join(re.escape(w) for w in sorted(TECH_WORDS, key=len, reverse=True))
_TECH = re.compile(rf"(?<![\w+#])(?:{_TECH_ALTERNATIVES})(?![\w+#])", _I)
NOT_NAMES = frozenset(
    STOPWORDS
    | set(DAYS)
    | set(MONTHS)
    | {"decided", "user", "assistant", "mr", "mrs", "ms", "dr", "gb", "mb", "tb", "kb"}
)


def entities_in(text: str) -> tuple[str, ...]:
    """Capitalised names (not a sentence's first word unless known) and technology words, lower case."""
    found: list[str] = []
    for match in _CAPITALISED.finditer(text):
        tokens = [t.rstrip(".") for t in match.group(0).split()]
        at_start = match.start() == 0 or text[: match.start()].rstrip()[-1:] in {".", "!", "?", ":", ""}
        if at_start and tokens[0].lower() not in TECH_WORDS:
            tokens = tokens[1:]
        while tokens and tokens[0].lower() in NOT_NAMES:
            tokens = tokens[1:]
        while tokens and tokens[-1].lower() in NOT_NAMES:
            tokens = tokens[:-1]
        if tokens and len(" ".join(tokens)) > 1:
            found.append(" ".join(tokens).lower())
    found += [m.group(0).lower() for m in _TECH.finditer(text)]
    return tuple(dict.fromkeys(e.strip() for e in found if e.strip()))[:MAX_ENTITIES]


def is_name(word: str) -> bool:
    """A name is capitalised as written and no common word: "call me after 6pm" names nobody."""
    return bool(word) and word[0].isupper() and word.lower() not in NOT_NAMES
