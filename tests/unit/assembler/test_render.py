from __future__ import annotations

from assembler_svc.domain.model import Candidate, Section, Source
from assembler_svc.domain.render import clean, is_prose, join_sections, render_line, section_text, title_line


def test_given_prose_is_a_paragraph_and_everything_else_a_bullet() -> None:
    persona = Candidate(Source.CALLER, "persona", Section.PERSONA, "I am Lore.", pinned=True)
    preference = Candidate(Source.MEMORY, "m1", Section.USER_PROFILE, "Prefers tea.")
    guidance = Candidate(Source.CALLER, "g", Section.GUIDANCE, "Be brief.", pinned=True)
    assert is_prose(persona)
    assert not is_prose(preference)
    assert not is_prose(guidance)
    assert render_line("I am Lore.", prose=True) == "I am Lore."
    assert render_line("Prefers tea.", prose=False) == "- Prefers tea."


def test_clean_keeps_prose_lines_and_flattens_bullets() -> None:
    assert clean("  Line one  \n\n\tLine   two ", prose=True) == "Line one\nLine two"
    assert clean("  a\n- b\tc ", prose=False) == "a - b c"


def test_section_and_prompt_layout() -> None:
    assert title_line(Section.MEMORIES) == "## What I remember"
    text = section_text(Section.MEMORIES, ["- a", "- b"])
    assert text == "## What I remember\n- a\n- b"
    assert join_sections([text, "## Guidance\n- c"]) == text + "\n\n## Guidance\n- c"
