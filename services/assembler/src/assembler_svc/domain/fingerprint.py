"""A short, stable description of an assembled context, compared turn to turn.

    "<16 hex>;persona=<mode>;mood=<mood>;sections=<kept section names>"

The 16 hex digits are the start of a sha256 over a canonical JSON serialisation of the kept
sections (kind and the kept items' source and id, in order), persona mode, mood and the budgets:
stable across processes and versions of Python (never ``hash``). The readable tail is what
``consistency_flags`` compares: the persona mode and the mood are lower-cased and every character
outside ``[a-z0-9_-]`` is percent-escaped (UTF-8), so ``;``, ``=`` and ``,`` cannot break parsing.
The session stores the previous turn's fingerprint and the next turn flags what changed.

The whole string stays within ``MAX_CHARS`` (the memory service keeps at most 256 characters of
it): each escaped label keeps the whole characters that fit in ``LABEL_CHARS``. The digest covers the
full labels, so two long labels differing only past the cut still differ in the digest.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from assembler_svc.domain.model import ConsistencyFlag, ContextSection, Section

DIGEST_CHARS = 16
MAX_CHARS = 256  # the memory service's limit on a working memory's context_fingerprint
LABEL_CHARS = 48  # 16 + 2 × (9 + 48) + 10 + 96 (every section named) = 236 <= MAX_CHARS
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_DIGEST = re.compile(r"[0-9a-f]{16}")


@dataclass(frozen=True, slots=True)
class FingerprintParts:
    digest: str
    persona: str
    mood: str
    sections: tuple[Section, ...]


def escape(value: str, limit: int | None = None) -> str:
    """``value`` lower-cased, anything outside ``[a-z0-9_-]`` percent-escaped; with ``limit``, only
    the whole characters whose escapes fit in that many characters."""
    out: list[str] = []
    used = 0
    for char in value.strip().lower():
        piece = char if char in _SAFE else "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
        if limit is not None and used + len(piece) > limit:
            break
        out.append(piece)
        used += len(piece)
    return "".join(out)


def fingerprint(
    sections: Sequence[ContextSection], persona_mode: str, mood: str, budgets: Mapping[Section, int]
) -> str:
    persona, feeling = escape(persona_mode), escape(mood)
    canonical = json.dumps(
        {
            "sections": [
                [int(section.section), [[int(item.source), item.id] for item in section.items]] for section in sections
            ],
            "persona": persona,
            "mood": feeling,
            "budgets": sorted([int(kind), int(tokens)] for kind, tokens in budgets.items()),
        },
        separators=(",", ":"),
        ensure_ascii=True,
    )
    digest = hashlib.sha256(canonical.encode("ascii")).hexdigest()[:DIGEST_CHARS]
    names = ",".join(section.section.name.lower() for section in sections)
    labels = escape(persona_mode, LABEL_CHARS), escape(mood, LABEL_CHARS)
    return f"{digest};persona={labels[0]};mood={labels[1]};sections={names}"


def parse_fingerprint(value: str) -> FingerprintParts | None:
    """The parts of a fingerprint; None for "" or anything not made by ``fingerprint``."""
    parts = value.split(";") if value else []
    if len(parts) != 4 or not _DIGEST.fullmatch(parts[0]):
        return None
    fields: dict[str, str] = {}
    for part, key in zip(parts[1:], ("persona", "mood", "sections"), strict=True):
        name, sep, raw = part.partition("=")
        if name != key or not sep:
            return None
        fields[key] = raw
    try:
        sections = tuple(Section[name.upper()] for name in fields["sections"].split(",") if name)
    except KeyError:
        return None
    return FingerprintParts(parts[0], unquote(fields["persona"]), unquote(fields["mood"]), sections)


def consistency_flags(previous: str, current: str) -> tuple[ConsistencyFlag, ...]:
    """One flag per aspect ("mood", then "persona") whose value changed since the previous turn.
    Nothing to compare (no or unparsable previous fingerprint, a value empty on either side) is
    not a change: no flag."""
    before, now = parse_fingerprint(previous), parse_fingerprint(current)
    if before is None or now is None:
        return ()
    flags: list[ConsistencyFlag] = []
    if before.mood and now.mood and before.mood != now.mood:
        flags.append(
            ConsistencyFlag(
                "mood",
                before.mood,
                now.mood,
                f"The user's mood changed from {before.mood} to {now.mood} since the last turn: "
                "acknowledge it rather than continuing in the previous tone.",
            )
        )
    if before.persona and now.persona and before.persona != now.persona:
        flags.append(
            ConsistencyFlag(
                "persona",
                before.persona,
                now.persona,
                f"The persona mode changed from {before.persona} to {now.persona} since the last turn: "
                "change the voice deliberately, not by drift.",
            )
        )
    return tuple(flags)
