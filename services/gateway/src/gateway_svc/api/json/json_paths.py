"""A service names a bad field by its proto path (``memories[0].idempotency_key``); a REST client
wrote it in proto3 JSON (``memories[0].idempotencyKey``). The gateway answers in the client's
names, so one error names a field the same way whichever side refused it.

Only identifiers are renamed: anything in brackets (an index, a map key the client chose) is kept
as written.
"""

from __future__ import annotations

import re
from typing import Any

_BRACKETED = re.compile(r"(\[[^\]]*\])")
_SNAKE = re.compile(r"_([a-z0-9])")


def json_path(path: str) -> str:
    """``options.section_budgets[0].tokens`` → ``options.sectionBudgets[0].tokens``."""
    return "".join(
        part if part.startswith("[") else _SNAKE.sub(lambda m: m.group(1).upper(), part)
        for part in _BRACKETED.split(path)
    )


def json_named(message: str, details: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The message and ``google.rpc`` details of a service's error, with its field paths in JSON names."""
    for detail in details:
        metadata = detail.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("field"), str):
            field = metadata["field"]
            metadata["field"] = json_path(field)
            prefix = f"invalid {field}:"
            if message.startswith(prefix):
                message = f"invalid {metadata['field']}:{message[len(prefix) :]}"
            elif message.startswith(f"{field}:"):
                message = f"{metadata['field']}{message[len(field) :]}"
        for violation in detail.get("fieldViolations") or ():
            if isinstance(violation.get("field"), str):
                violation["field"] = json_path(violation["field"])
    return message, details
