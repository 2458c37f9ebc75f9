"""lore_client's framework integrations stay optional, and a LangGraph item maps to a Lore memory
and back (``integrations.store_items``: namespaces to scopes, values through metadata, filters)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import pytest
from lore_client.integrations import store_items as s
from lore_client.models import Memory

FRAMEWORKS = ("langgraph", "langchain_core", "agents", "openai", "mcp")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)


def test_importing_the_client_imports_no_framework():
    ran = _python(
        "import sys, lore_client, lore_client.integrations\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r}))"
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [("langgraph_store", "langgraph", "langgraph"), ("openai_agents", "agents", "openai-agents")],
)
def test_an_integration_without_its_extra_names_the_extra_to_install(module, blocked, extra):
    ran = _python(f"import sys; sys.modules[{blocked!r}] = None\nimport lore_client.integrations.{module}")
    assert ran.returncode == 1
    assert f"ImportError: lore_client.integrations.{module} needs" in ran.stderr
    assert f'pip install "lore-client[{extra}]"' in ran.stderr


@pytest.mark.parametrize(
    ("path", "scope", "used"),
    [
        (("users", "u-1", "memories"), {"userId": "u-1"}, 2),
        (("users", "u-1", "agents", "aria", "notes"), {"userId": "u-1", "agentId": "aria"}, 4),
        (("teams", "t-9"), {"teamId": "t-9"}, 2),
        (("users", "u-1", "users", "u-2"), {"userId": "u-1"}, 2),  # a kind counts once; the rest are labels
        (("users", "u-1", "agents"), {"userId": "u-1"}, 2),  # a kind without an id is a label
        (("users", "*", "prefs"), {}, 0),  # a wildcard is no id
        (("memories", "u-1"), {}, 0),
        ((), {}, 0),
    ],
)
def test_the_leading_kind_and_id_pairs_name_the_scope(path, scope, used):
    assert s.scope_of(path) == (scope, used)


def test_a_namespace_naming_no_scope_is_refused_with_the_form_to_use():
    with pytest.raises(s.UnmappableNamespace, match=r"start it with \('users', <user id>\)"):
        s.scope_of_namespace(("memories", "u-1"))


def test_the_key_is_deterministic_and_tells_namespaces_apart():
    key = s.idempotency_key(("users", "u-1"), "a")
    assert key == s.idempotency_key(("users", "u-1"), "a") and key.startswith("langgraph:") and len(key) <= 256
    assert key != s.idempotency_key(("users", "u-1", "a"), "")
    assert key != s.idempotency_key(("users", "u-2"), "a")


def _memory(content: str, metadata: dict[str, str]) -> Memory:
    return Memory.from_json(
        {"id": "m-1", "content": content, "metadata": metadata, "createdAt": "2026-01-02T03:04:05Z"}
    )


def test_a_value_comes_back_exactly_through_metadata_pieces():
    value = {"text": "Ana keeps bees. " * 200, "n": 3, "nested": {"ok": True, "list": [1, "two", None]}, "é": "ü"}
    content, metadata = s.encode(("users", "u-1", "notes"), "bees", value, lambda v: [v["text"]])

    assert content == value["text"] and len(metadata) > 3
    assert all(len(piece) <= s.METADATA_VALUE_CHARS for piece in metadata.values())
    item = s.decode(_memory(content, metadata))
    assert item.value == value and item.namespace == ("users", "u-1", "notes") and item.key == "bees"
    assert item.updated_at == item.created_at


def test_without_indexed_text_the_content_is_the_value_as_json():
    content, _ = s.encode(("users", "u-1"), "k", {"count": 3}, lambda v: [])
    assert content == '{"count": 3}'


def test_another_memory_of_the_scope_is_not_an_item():
    assert s.decode(_memory("Ana keeps bees.", {"channel": "chat"})) is None
    assert s.decode(_memory("x", {s.NAMESPACE_KEY: "users.u-1", s.KEY_KEY: "k", "langgraph.value.0": "[1]"})) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["not", "a", "mapping"], "value: a store value is a mapping"),
        ({"when": object()}, "value: must be JSON-serialisable"),
        ({"text": "x" * 40_000}, "a Lore memory keeps at most 29,696"),
    ],
)
def test_a_value_lore_cannot_hold_is_refused_naming_the_limit(value, message):
    with pytest.raises(ValueError, match=message):
        s.encode(("users", "u-1"), "k", value, lambda v: [])


def test_indexed_text_beyond_a_memorys_content_is_refused():
    with pytest.raises(ValueError, match="indexed text has 16,001 characters"):
        s.encode(("users", "u-1"), "k", {"text": "y" * 16_001}, lambda v: [v["text"]])


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ({"kind": "food"}, True),
        ({"kind": "drink"}, False),
        ({"rank": {"$gte": 3, "$lt": 4}}, True),
        ({"rank": {"$gt": 3}}, False),
        ({"missing": {"$gt": 1}}, False),
        ({"kind": {"$ne": "drink"}, "rank": {"$eq": 3}}, True),
        ({"since": {"year": 2023}}, True),
        ({"tags": ["plants"]}, True),
        ({"tags": ["plants", "grains"]}, False),
        (None, True),
    ],
)
def test_filters_compare_as_langgraph_defines_them(conditions, expected):
    value = {"kind": "food", "rank": 3, "since": {"year": 2023}, "tags": ["plants"]}
    assert s.matches_filter(value, conditions) is expected


def test_an_unknown_filter_operator_is_named():
    with pytest.raises(ValueError, match=r"unsupported operator '\$in'"):
        s.matches_filter({"rank": 1}, {"rank": {"$in": [1]}})


def test_namespace_conditions_match_at_either_end_with_wildcards():
    namespace = ("users", "u-1", "agents", "aria", "notes")
    assert s.matches_path(namespace, "prefix", ("users", "*", "agents"))
    assert s.matches_path(namespace, "suffix", ("aria", "notes"))
    assert not s.matches_path(namespace, "suffix", ("aria",))
    assert not s.matches_path(("users",), "prefix", ("users", "u-1"))


def test_the_items_own_entry_keeps_index_expiry_and_update_time():
    entry = s.item_entry(indexed=False, ttl=1.5, now=1_000.0, updated=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    content, metadata = s.encode(("users", "u-1"), "k", {"n": 1}, lambda v: [])
    item = s.decode(_memory(content, metadata | {s.ITEM_KEY: entry}))
    assert item.indexed is False and item.ttl == 1.5 and item.expires == 1_090.0
    assert item.updated_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert item.expired(1_089.9) is False and item.expired(1_090.0) is True
    assert s.item_entry(indexed=True, ttl=None, now=1_000.0) is None  # nothing to keep: no entry
    plain = s.decode(_memory(content, metadata))
    assert plain.indexed is True and plain.expires is None and plain.expired(1e12) is False
    assert s.decode(_memory(content, metadata | {s.ITEM_KEY: "[1, 2]"})) is None  # not this store's entry
