from __future__ import annotations

import pytest
from assembler_svc.domain.model import Section
from assembler_svc.domain.sections import section_for_memory_type, section_for_observation_kind


@pytest.mark.parametrize(
    ("name", "section"),
    [
        ("preference", Section.USER_PROFILE),
        ("commitment", Section.OPINIONS),
        ("opinion", Section.OPINIONS),
        ("fact", Section.MEMORIES),
        ("message", Section.MEMORIES),
        ("session_summary", Section.MEMORIES),
        ("MEMORY_TYPE_PREFERENCE", Section.USER_PROFILE),
        ("something_new", Section.MEMORIES),
    ],
)
def test_memory_types_route_to_their_section(name: str, section: Section) -> None:
    assert section_for_memory_type(name) is section


@pytest.mark.parametrize(
    ("kind", "section"),
    [
        ("operator_preference", Section.USER_PROFILE),
        ("relationship_fact", Section.USER_PROFILE),
        ("project_state", Section.OBSERVATIONS),
        ("OBSERVATION_KIND_RELATIONSHIP_FACT", Section.USER_PROFILE),
        ("", Section.OBSERVATIONS),
    ],
)
def test_observation_kinds_route_to_their_section(kind: str, section: Section) -> None:
    assert section_for_observation_kind(kind) is section
