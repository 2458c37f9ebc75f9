from __future__ import annotations

import subprocess
import sys

from assembler_svc.domain.fingerprint import (
    LABEL_CHARS,
    MAX_CHARS,
    FingerprintParts,
    consistency_flags,
    escape,
    fingerprint,
    parse_fingerprint,
)
from assembler_svc.domain.model import DEFAULT_BUDGETS, ContextItem, ContextSection, Section, Source, with_budgets
from hypothesis import given, settings
from hypothesis import strategies as st


def sections(*ids: str) -> list[ContextSection]:
    items = tuple(ContextItem(Source.MEMORY, key, key, 1, False) for key in ids)
    return [
        ContextSection(Section.PERSONA, "Persona", (ContextItem(Source.CALLER, "persona", "p", 1, False),), "", 1, 300),
        ContextSection(Section.MEMORIES, "What I remember", items, "", 1, 150),
    ]


def test_format_and_parse_round_trip() -> None:
    value = fingerprint(sections("m1"), "Coach", "calm", DEFAULT_BUDGETS)
    digest, rest = value.split(";", 1)
    assert len(digest) == 16
    assert rest == "persona=coach;mood=calm;sections=persona,memories"
    assert parse_fingerprint(value) == FingerprintParts(digest, "coach", "calm", (Section.PERSONA, Section.MEMORIES))


def test_the_digest_follows_kept_ids_and_budgets_but_is_stable() -> None:
    base = fingerprint(sections("m1", "m2"), "coach", "calm", DEFAULT_BUDGETS)
    assert base == fingerprint(sections("m1", "m2"), "coach", "calm", dict(DEFAULT_BUDGETS))
    assert base != fingerprint(sections("m2", "m1"), "coach", "calm", DEFAULT_BUDGETS)
    assert base != fingerprint(sections("m1"), "coach", "calm", DEFAULT_BUDGETS)
    assert base != fingerprint(sections("m1", "m2"), "coach", "calm", with_budgets({Section.MEMORIES: 10}))


def test_the_digest_is_the_same_in_another_process() -> None:
    code = (
        "from assembler_svc.domain.fingerprint import fingerprint;"
        "from assembler_svc.domain.model import DEFAULT_BUDGETS;"
        "from tests.unit.assembler.test_fingerprint import sections;"
        "print(fingerprint(sections('m1', 'm2'), 'coach', 'calm', DEFAULT_BUDGETS))"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "123"}
    )
    assert other.stdout.strip() == fingerprint(sections("m1", "m2"), "coach", "calm", DEFAULT_BUDGETS)


def test_values_are_lower_cased_and_escaped() -> None:
    assert escape(" Very Calm; =,% ") == "very%20calm%3B%20%3D%2C%25"
    assert escape("Ünïcode") == "%C3%BCn%C3%AFcode"
    value = fingerprint([], "a;b=c", "Ça va", DEFAULT_BUDGETS)
    parts = parse_fingerprint(value)
    assert parts is not None
    assert (parts.persona, parts.mood, parts.sections) == ("a;b=c", "ça va", ())


def test_garbage_does_not_parse() -> None:
    for value in [
        "",
        "x",
        "0123456789abcdef",
        "0123456789abcdeg;persona=;mood=;sections=",
        "0123456789abcdef;a=;b=;c=",
    ]:
        assert parse_fingerprint(value) is None
    assert parse_fingerprint("0123456789abcdef;persona=;mood=;sections=nope") is None


@settings(max_examples=60, deadline=None)
@given(persona=st.text(max_size=20), mood=st.text(max_size=20))
def test_any_persona_and_mood_round_trip(persona: str, mood: str) -> None:
    """Exactly when the escaped label fits LABEL_CHARS; as a prefix (never a broken character) beyond."""
    parts = parse_fingerprint(fingerprint([], persona, mood, DEFAULT_BUDGETS))
    assert parts is not None
    for parsed, original in ((parts.persona, persona), (parts.mood, mood)):
        label = original.strip().lower()
        assert parsed == label if len(escape(label)) <= LABEL_CHARS else label.startswith(parsed)


def test_a_mood_change_is_flagged_with_guidance() -> None:
    before = fingerprint(sections("m1"), "coach", "calm", DEFAULT_BUDGETS)
    after = fingerprint(sections("m2"), "coach", "frustrated", DEFAULT_BUDGETS)
    (flag,) = consistency_flags(before, after)
    assert (flag.aspect, flag.previous, flag.current) == ("mood", "calm", "frustrated")
    assert flag.message == (
        "The user's mood changed from calm to frustrated since the last turn: "
        "acknowledge it rather than continuing in the previous tone."
    )


def test_a_persona_change_is_flagged_after_the_mood() -> None:
    before = fingerprint([], "coach", "calm", DEFAULT_BUDGETS)
    after = fingerprint([], "tutor", "sad", DEFAULT_BUDGETS)
    assert [flag.aspect for flag in consistency_flags(before, after)] == ["mood", "persona"]


def test_nothing_to_compare_is_no_flag() -> None:
    current = fingerprint([], "coach", "calm", DEFAULT_BUDGETS)
    assert consistency_flags("", current) == ()
    assert consistency_flags("garbage", current) == ()
    assert consistency_flags(current, "") == ()
    assert consistency_flags(fingerprint([], "", "", DEFAULT_BUDGETS), current) == ()
    assert consistency_flags(current, fingerprint([], "coach", "", DEFAULT_BUDGETS)) == ()
    assert consistency_flags(current, fingerprint(sections("m9"), "coach", "calm", DEFAULT_BUDGETS)) == ()


def test_a_fingerprint_fits_the_memory_services_limit_whatever_the_labels() -> None:
    every_section = [ContextSection(kind, "t", (), "x", 1, 10) for kind in Section]
    long = fingerprint(every_section, "a" * 64, "é" * 64, DEFAULT_BUDGETS)
    other = fingerprint(every_section, "a" * 64, "é" * 63 + "è", DEFAULT_BUDGETS)

    assert len(long) <= MAX_CHARS and len(other) <= MAX_CHARS
    parts = parse_fingerprint(long)
    assert parts is not None and parts.mood and set(parts.mood) == {"é"}
    assert long.split(";")[0] != other.split(";")[0], "the digest still tells the full labels apart"
