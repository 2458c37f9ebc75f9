"""The one rule for request text (lore_runtime.text_rules) and its walk of request messages
(lore_runtime.request_text)."""

from __future__ import annotations

import pytest
from google.protobuf import struct_pb2
from hypothesis import given
from hypothesis import strategies as st
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2 as pb
from lore_runtime import errors
from lore_runtime.request_text import check_message, message_problem
from lore_runtime.text_rules import (
    ID_CHARACTERS_RULE,
    MAX_ID_CHARS,
    MAX_TEXT_CHARS,
    NUL_RULE,
    SURROGATE_RULE,
    check_id,
    check_text,
    id_problem,
    is_id_name,
    json_problem,
    text_problem,
)

# The bidi embeddings, overrides and isolates, the marks, zero-width characters, BOM, separators.
BIDI_AND_FORMAT = list(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u200b\u200d\ufeff\u2028\u2029"
)
CONTROLS = ["\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\x9f"]


def test_text_refuses_unpaired_surrogates_and_nul_and_keeps_the_rest():
    assert text_problem("\ud800") == SURROGATE_RULE
    assert text_problem("a\udfffb") == SURROGATE_RULE
    assert text_problem("a\x00b") == NUL_RULE
    for fine in ("", "plain", "line one\nline two\ttab", "emoji 😀 and \u202e bidi in text", "\U0001f600"):
        assert text_problem(fine) is None, fine


def test_text_is_at_most_the_default_or_the_fields_limit():
    assert text_problem("a" * MAX_TEXT_CHARS) is None
    assert text_problem("a" * (MAX_TEXT_CHARS + 1)) == f"at most {MAX_TEXT_CHARS} characters"
    assert text_problem("abcd", max_chars=3) == "at most 3 characters"


@pytest.mark.parametrize("char", BIDI_AND_FORMAT + CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_an_id_refuses_control_format_and_bidi_characters(char):
    assert id_problem(f"user{char}42") == ID_CHARACTERS_RULE
    assert text_problem(f"user{char}42") is None, "text may hold them: only ids may not"


def test_an_id_keeps_the_every_string_rule_and_its_own_length():
    assert id_problem("u\x00") == NUL_RULE
    assert id_problem("u\ud800") == SURROGATE_RULE
    assert id_problem("u" * MAX_ID_CHARS) is None
    assert id_problem("u" * (MAX_ID_CHARS + 1)) == f"at most {MAX_ID_CHARS} characters"
    for fine in ("u-42", "noor@example.com", "chat-41/turn-3", "Zoë Müller", "用户-7", "a b", "org:x"):
        assert id_problem(fine) is None, fine


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp")), max_size=MAX_ID_CHARS))
def test_any_id_of_allowed_characters_within_the_limit_is_accepted(value):
    assert id_problem(value) is None


@given(st.text(), st.sampled_from(BIDI_AND_FORMAT + CONTROLS + ["\x00"]), st.text())
def test_any_id_holding_a_refused_character_is_refused(before, char, after):
    assert id_problem(before + char + after) is not None


def test_the_checks_raise_invalid_argument_naming_the_field_and_the_rule():
    with pytest.raises(errors.InvalidArgument) as refused:
        check_id("alice\u202e", "scope.user_id")
    assert refused.value.message == f"invalid scope.user_id: {ID_CHARACTERS_RULE}"
    assert refused.value.metadata["field"] == "scope.user_id"
    with pytest.raises(errors.InvalidArgument, match=r"invalid entities\[0\]: at most 3 characters"):
        check_text("abcd", "entities[0]", 3)
    assert check_id("u-1", "user_id") == "u-1"


def test_id_fields_are_named_as_ids_in_proto_and_json():
    for name in ("id", "user_id", "userId", "memory_ids", "turnIds", "request_id", "idempotency_key", "idempotencyKey"):
        assert is_id_name(name), name
    for name in ("content", "identity", "ideas", "kind", "valid_at", "idle", "paid"):
        assert not is_id_name(name), name


def test_a_json_document_names_the_first_bad_string_or_key_by_its_path():
    document = {"memories": [{"content": "fine"}, {"memoryType": "\ud800", "metadata": {"k": "v"}}]}
    assert json_problem(document) == ("memories[1].memoryType", SURROGATE_RULE)
    assert json_problem({"a": {"\ud800": "v"}}) == ("a", f"a key {SURROGATE_RULE}")
    assert json_problem({"\x00": 1}) == ("body", f"a key {NUL_RULE}")
    assert json_problem({"q": ["ok", "x\x00"]}) == ("q[1]", NUL_RULE)
    assert json_problem("\ud800") == ("body", SURROGATE_RULE)
    assert json_problem({"a": "😀", "b": [1, 2.5, None, True], "c": {"d": "\u202e"}}) is None


def test_the_first_bad_string_in_document_order_is_named():
    document = {"a": ["ok", {"b": "\x00"}], "c": "\x00"}
    assert json_problem(document) == ("a[1].b", NUL_RULE)


def test_a_request_message_names_its_bad_id_and_text_by_proto_path():
    bad_id = pb.RememberRequest(
        memories=[pb.MemoryInput(content="ok"), pb.MemoryInput(content="ok", scope=scope_pb2.Scope(user_id="a\nb"))]
    )
    assert message_problem(bad_id) == ("memories[1].scope.user_id", ID_CHARACTERS_RULE)
    long_key = pb.RememberRequest(memories=[pb.MemoryInput(content="ok", idempotency_key="k" * 5_000)])
    assert message_problem(long_key) == ("memories[0].idempotency_key", f"at most {MAX_ID_CHARS} characters")
    nul_value = pb.RememberRequest(memories=[pb.MemoryInput(content="ok", metadata={"k": "v\x00"})])
    assert message_problem(nul_value) == ("memories[0].metadata[k]", NUL_RULE)
    newline_in_text = pb.RememberRequest(memories=[pb.MemoryInput(content="two\nlines", entities=["e\u202e"])])
    assert message_problem(newline_in_text) is None, "text and entities are text: bidi and newlines are theirs"
    with pytest.raises(errors.InvalidArgument, match=r"memories\[1\]\.scope\.user_id"):
        check_message(bad_id)


def test_a_structs_strings_are_walked_with_their_keys():
    result = struct_pb2.Struct()
    result.update({"rows": [{"name": "fine"}, {"name": "x\x00"}]})
    assert message_problem(result, "result") == ("result[rows][1][name]", NUL_RULE)
    keyed = struct_pb2.Struct()
    keyed.update({"a\x00": 1})
    assert message_problem(keyed, "result") == ("result", f"a key {NUL_RULE}")
