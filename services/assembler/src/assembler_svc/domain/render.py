"""How items and sections look in the prompt: plain Markdown a model reads well.

    ## What I remember
    - The user's sister is called Ana.
    - They moved to Porto in May.

A section is its title line followed by one line per item, joined by newlines; sections are joined
by a blank line. Given prose (pinned persona, user profile text, working summary) is placed as a
plain paragraph, its own line breaks kept and blank lines dropped; everything else (including
recalled preferences in the user profile section) is one ``- `` bullet with its whitespace
collapsed, so an item can never break the list. An item's tokens are those of its rendered line.
"""

from __future__ import annotations

from collections.abc import Iterable

from assembler_svc.domain.model import SECTION_TITLES, Candidate, Section, Source

BULLET = "- "
SECTION_SEPARATOR = "\n\n"
PROSE_SECTIONS = frozenset({Section.PERSONA, Section.USER_PROFILE, Section.WORKING_SUMMARY})
# Prose is what was given as text: by the caller or the session's working memory (a learnt profile
# line, pinned too, is still a bullet).
PROSE_SOURCES = frozenset({Source.CALLER, Source.WORKING_MEMORY})


def is_prose(candidate: Candidate) -> bool:
    return candidate.pinned and candidate.section in PROSE_SECTIONS and candidate.source in PROSE_SOURCES


def clean(text: str, prose: bool) -> str:
    """The item's text as placed: prose keeps its line breaks, a bullet is a single line."""
    if prose:
        return "\n".join(stripped for line in text.splitlines() if (stripped := " ".join(line.split())))
    return " ".join(text.split())


def render_line(text: str, prose: bool) -> str:
    """The line (or paragraph) for an already cleaned text."""
    return text if prose else BULLET + text


def title_line(section: Section) -> str:
    return f"## {SECTION_TITLES[section]}"


def section_text(section: Section, lines: Iterable[str]) -> str:
    return "\n".join([title_line(section), *lines])


def join_sections(texts: Iterable[str]) -> str:
    return SECTION_SEPARATOR.join(texts)
