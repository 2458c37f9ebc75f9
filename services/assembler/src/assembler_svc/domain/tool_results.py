"""Tool results as one compact line for the prompt, never a raw JSON dump.

    "<tool_name>: <summary or intent> (<path>: <value>; <path>: <value>)"

Only the caller's ``salient_fields`` are shown, each a dotted path into ``fields`` through nested
mappings and list indexes (``items.0.name``); missing paths are skipped. Values are compact: strings
as they are (whitespace collapsed), numbers as Python writes them (whole floats without
``.0``: a protobuf ``Struct`` makes every number a double), booleans and None lower-case,
lists as ``a, b`` and mappings as ``k=v, k=v`` in brackets, each value capped at
``MAX_VALUE_CHARS``. A whole result is usually far over the tool-results budget, and a model reads
the salient facts better than nested braces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

MAX_VALUE_CHARS = 80
_MISSING = object()


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_name: str
    intent: str = ""
    summary: str = ""
    fields: Mapping[str, object] = field(default_factory=dict)
    salient_fields: Sequence[str] = ()


def lookup(fields: Mapping[str, object], path: str) -> object:
    """The value at dotted ``path`` (mapping keys, list indexes), or ``_MISSING``."""
    value: object = fields
    for part in path.split("."):
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
            try:
                value = value[int(part)]
            except (ValueError, IndexError):
                return _MISSING
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


def _cap(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1].rstrip() + "…"


def _compact(value: object, depth: int = 0) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))  # a protobuf Struct holds every number as a double: 2.0 means 2
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return " ".join(value.split())
    if depth >= 2:
        return "…"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}={_compact(item, depth + 1)}" for key, item in value.items()) + "}"
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return "[" + ", ".join(_compact(item, depth + 1) for item in value) + "]"
    return " ".join(str(value).split())


def compact_value(value: object) -> str:
    """One value as short text, at most ``MAX_VALUE_CHARS`` characters."""
    return _cap(_compact(value))


def render_tool_result(result: ToolResult) -> str:
    head = " ".join((result.summary or result.intent).split())
    name = " ".join(result.tool_name.split())
    line = f"{name}: {head}" if head else name
    details = [
        f"{path}: {compact_value(value)}"
        for path in result.salient_fields
        if (value := lookup(result.fields, path)) is not _MISSING
    ]
    return f"{line} ({'; '.join(details)})" if details else line
