"""Turn roles as a REST client may write them: the enum's name (``TURN_ROLE_ASSISTANT``) or, as
``lore turns import`` files do, the short form (``assistant``, any case). The short forms are
spelled out here, before the body is parsed, so every other rule of the field stays protobuf's."""

from __future__ import annotations

from typing import Any

from gateway_svc.api.openapi import tool_names

SHORT_ROLES = frozenset({"user", "assistant", "system", "tool"})


def _expand(turn: Any) -> None:
    if isinstance(turn, dict) and isinstance(role := turn.get("role"), str) and role.lower() in SHORT_ROLES:
        turn["role"] = f"TURN_ROLE_{role.upper()}"


def in_turn(document: dict[str, Any]) -> None:
    """A ProcessTurn body: ``turn.role``; its tool interactions and context options too (``tool_names``)."""
    _expand(document.get("turn"))
    tool_names.in_tools(document.get("turn"), "toolInteractions", "turn")
    tool_names.in_options(document, "contextOptions")


def in_turns(document: dict[str, Any]) -> None:
    """An ImportTurns body: ``turns[i].role``, and each turn's tool interactions (``tool_names``)."""
    turns = document.get("turns")
    for index, turn in enumerate(turns if isinstance(turns, list) else ()):
        _expand(turn)
        tool_names.in_tools(turn, "toolInteractions", f"turns[{index}]")
