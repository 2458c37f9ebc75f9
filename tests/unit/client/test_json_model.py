"""``JsonModel``: what a field's type hint and metadata make of the JSON (the models themselves are
checked against the proto messages in tests/contracts/test_client_models.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from lore_client.json_model import Json, JsonModel, read_with


@dataclass(frozen=True, slots=True, kw_only=True)
class Part(JsonModel):
    name: str


def _shouted(document: Json, json_name: str) -> str:
    return str(document.get(json_name, "")).upper()


@dataclass(frozen=True, slots=True, kw_only=True)
class Whole(JsonModel):
    display_name: str
    size_bytes: int
    ratio: float
    enabled: bool
    seen_at: datetime | None
    part: Part
    parts: tuple[Part, ...]
    labels: dict[str, str]
    counts: dict[str, int]
    notes: tuple[Json, ...]
    code: str = field(metadata=read_with(_shouted))


def test_fields_are_read_under_their_json_names_as_their_types_say() -> None:
    whole = Whole.from_json(
        {
            "displayName": "d",
            "sizeBytes": "12",
            "ratio": 1,
            "enabled": True,
            "seenAt": "2026-03-04T05:06:07.123456789Z",
            "part": {"name": "p"},
            "parts": [{"name": "a"}, {"name": "b"}],
            "labels": {"k": "v"},
            "counts": {"memories": "3"},
            "notes": [{"x": 1}],
            "code": "abc",
            "fieldOfANewerGateway": 1,
        }
    )

    assert whole == Whole(
        display_name="d",
        size_bytes=12,
        ratio=1.0,
        enabled=True,
        seen_at=datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC),
        part=Part(name="p"),
        parts=(Part(name="a"), Part(name="b")),
        labels={"k": "v"},
        counts={"memories": 3},
        notes=({"x": 1},),
        code="ABC",
    )


def test_absent_fields_read_as_the_proto3_defaults() -> None:
    assert Whole.from_json(None) == Whole(
        display_name="",
        size_bytes=0,
        ratio=0.0,
        enabled=False,
        seen_at=None,
        part=Part(name=""),
        parts=(),
        labels={},
        counts={},
        notes=(),
        code="",
    )


def test_a_type_no_rule_reads_fails_naming_the_field() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class Odd(JsonModel):
        when: set[str]

    with pytest.raises(TypeError, match=r"Odd\.when: no JSON reader"):
        Odd.from_json({})
