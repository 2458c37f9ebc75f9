"""The transcript's text rules and its deterministic ids."""

import uuid

import pytest
from agent_svc.domain.transcript import (
    MAX_CONTENT_CHARS,
    normalise_content,
    session_id_for,
    turn_id_for,
    validate_metadata,
)
from lore_runtime.errors import InvalidArgument


def test_content_is_nfc_without_control_characters_and_trimmed() -> None:
    decomposed = "Cafe\u0301\x00 menu\u200b\r\n\tline two\x1b  "
    assert normalise_content(decomposed) == "Café menu\n\tline two"


@pytest.mark.parametrize(
    "text",
    # the length is the text's as sent: a trailing newline past the limit is not trimmed away first
    ["", "   ", "\x00\x01", "x" * (MAX_CONTENT_CHARS + 1), "x" * MAX_CONTENT_CHARS + "\n"],
)
def test_empty_or_oversized_content_is_refused(text: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        normalise_content(text)
    assert refused.value.field == "turn.content"


def test_ids_repeat_for_a_retried_request_and_differ_otherwise() -> None:
    assert session_id_for("org-a", "r-1") == session_id_for("org-a", "r-1")
    assert session_id_for("org-a", "r-1") != session_id_for("org-b", "r-1")
    assert session_id_for("org-a", "") != session_id_for("org-a", "")
    session = str(uuid.uuid4())
    assert turn_id_for(session, "k") == turn_id_for(session, "k") != turn_id_for(session, "k2")


def test_metadata_is_bounded() -> None:
    assert validate_metadata({"channel": "web"}) == {"channel": "web"}
    with pytest.raises(InvalidArgument):
        validate_metadata({f"k{i}": "v" for i in range(33)})
    with pytest.raises(InvalidArgument):
        validate_metadata({"k": "v" * 513})


def test_a_speaker_is_one_trimmed_line_of_at_most_100_characters_and_prefixes_the_words_kept_in_memory() -> None:
    from datetime import UTC, datetime

    from agent_svc.domain.transcript import Turn, speaker_name

    assert speaker_name("  Noor ", "turn.speaker") == "Noor" and speaker_name("", "turn.speaker") == ""
    for bad in ("N" * 101, "Noor\nSmith", "Noor\u2028Smith"):
        with pytest.raises(InvalidArgument) as refused:
            speaker_name(bad, "turns[2].speaker")
        assert refused.value.field == "turns[2].speaker"
    said = Turn("t", "s", 1, "user", "I adopted a greyhound.", datetime(2026, 3, 1, tzinfo=UTC), speaker="Noor")
    assert said.said_by_name() == "Noor: I adopted a greyhound."
    assert Turn("t", "s", 1, "user", "Hi.", datetime(2026, 3, 1, tzinfo=UTC)).said_by_name() == "Hi."
