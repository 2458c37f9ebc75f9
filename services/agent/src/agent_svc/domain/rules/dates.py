"""What the rules extract is dated against the turn's own time: "next Friday" said on Tuesday
24 November 2026 becomes "next Friday (4 December 2026)". The rules themselves live in
``lore_language.dates``, shared with the assembler, which dates the messages it hands back alike.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from lore_language.dates import with_dates

from agent_svc.domain.extraction import ExtractedMemory


def dated(memory: ExtractedMemory, said_at: datetime) -> ExtractedMemory:
    """The memory with the dates its relative times meant; a commitment is about the future, so a
    bare "Friday" or "June 3" in it is the next one. Reflection and episodes date alike, so a
    commitment's thread names it exactly as its memory does."""
    future = memory.kind == "commitment"
    return dataclasses.replace(
        memory,
        content=with_dates(memory.content, said_at, future),
        deadline=with_dates(memory.deadline, said_at, future) if memory.deadline else "",
    )
