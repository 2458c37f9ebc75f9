"""lore.common.v1 turn messages <-> plain values, for every service that speaks them.

The agent service writes turns and tool interactions (to its callers and to working memory), the
memory service reads and writes them; each keeps its own domain classes. So ``tool_to_pb`` reads
any object with a ToolInteraction's fields, and ``tool_from_pb`` builds whichever class it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf import json_format, struct_pb2
from lore.common.v1 import turn_pb2

from lore_runtime.proto_time import from_timestamp, to_timestamp

# A turn's role by name (as the services' domains spell it) and back.
ROLE_TO_PB: dict[str, int] = {
    "user": turn_pb2.TURN_ROLE_USER,
    "assistant": turn_pb2.TURN_ROLE_ASSISTANT,
    "system": turn_pb2.TURN_ROLE_SYSTEM,
    "tool": turn_pb2.TURN_ROLE_TOOL,
}
ROLE_FROM_PB: dict[int, str] = {value: name for name, value in ROLE_TO_PB.items()}

T = TypeVar("T")


def tool_from_pb(message: turn_pb2.ToolInteraction, make: Callable[..., T], field: str = "tool_interaction") -> T:
    """``make`` (a service's tool interaction class) called with the message's fields; an unset
    result is an empty dict, an unset time None. ``field``: the message's path, for errors."""
    return make(
        tool_name=message.tool_name,
        intent=message.intent,
        result=json_format.MessageToDict(message.result) if message.HasField("result") else {},
        summary=message.summary,
        salient_fields=tuple(message.salient_fields),
        occurred_at=from_timestamp(message, "occurred_at", f"{field}.occurred_at"),
    )


def tool_to_pb(tool: Any) -> turn_pb2.ToolInteraction:
    """The inverse of tool_from_pb: ``tool`` is any object with a ToolInteraction's fields (tool_name, intent,
    result, summary, salient_fields, occurred_at), as the agent's ToolInteraction and memory's ToolResult are."""
    result = struct_pb2.Struct()
    result.update(dict(tool.result))
    message = turn_pb2.ToolInteraction(
        tool_name=tool.tool_name,
        intent=tool.intent,
        result=result,
        summary=tool.summary,
        salient_fields=list(tool.salient_fields),
    )
    if tool.occurred_at is not None:
        message.occurred_at.CopyFrom(to_timestamp(tool.occurred_at))
    return message
