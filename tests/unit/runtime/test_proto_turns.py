from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from lore.common.v1 import turn_pb2
from lore_runtime.proto_time import from_timestamp
from lore_runtime.proto_turns import ROLE_FROM_PB, ROLE_TO_PB, tool_from_pb, tool_to_pb


@dataclass(frozen=True)
class Tool:
    tool_name: str
    intent: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    salient_fields: tuple[str, ...] = ()
    occurred_at: datetime | None = None


def test_a_tool_interaction_comes_back_as_it_went():
    tool = Tool(
        "weather",
        "forecast",
        {"city": "Oslo", "days": [{"high": 3.0}]},
        "cold",
        ("days.0.high",),
        datetime(2026, 3, 1, 12, 30, tzinfo=UTC),
    )
    assert tool_from_pb(tool_to_pb(tool), Tool) == tool


def test_unset_result_and_time_are_empty():
    assert tool_from_pb(turn_pb2.ToolInteraction(tool_name="t"), Tool) == Tool("t")


def test_roles_both_ways():
    assert ROLE_FROM_PB[ROLE_TO_PB["assistant"]] == "assistant"
    assert set(ROLE_TO_PB) == {"user", "assistant", "system", "tool"}


def test_from_timestamp_reads_a_set_field_and_none_for_an_unset_one():
    turn = turn_pb2.Turn()
    assert from_timestamp(turn, "created_at") is None
    turn.created_at.FromDatetime(datetime(2026, 3, 1, tzinfo=UTC))
    assert from_timestamp(turn, "created_at") == datetime(2026, 3, 1, tzinfo=UTC)
