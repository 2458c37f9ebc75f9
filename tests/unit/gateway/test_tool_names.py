"""The gateway holds assemble options and tool interactions to the OpenAPI's patterns as JSON
Schema reads them: ``$`` is the end of the text, not "before a final newline" as in Python."""

import pytest
from gateway_svc.api.openapi.tool_names import ecma_pattern, in_options
from lore_runtime import errors


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("^[a-z]+$", "mode", True),
        ("^[a-z]+$", "mode\n", False),
        ("^$|^[a-z]+\\.[a-z]+$", "", True),
        ("^$|^[a-z]+\\.[a-z]+$", "a.b\n", False),
        ("^[$]+$", "$$", True),  # a dollar inside a class is a character
        ("^\\$x$", "$x", True),  # an escaped dollar is a character
    ],
)
def test_a_pattern_is_read_as_json_schema_reads_it(pattern: str, value: str, matches: bool) -> None:
    assert bool(ecma_pattern(pattern).search(value)) is matches


def test_a_persona_mode_ending_in_a_newline_is_refused_naming_the_field() -> None:
    with pytest.raises(errors.InvalidArgument) as refused:
        in_options({"options": {"personaMode": "mode\n"}}, "options")
    assert refused.value.field == "options.personaMode"
    in_options({"options": {"personaMode": "mode"}}, "options")  # the same word without it passes
