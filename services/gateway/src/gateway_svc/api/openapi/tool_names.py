"""Assemble options have one rule wherever a request holds them: AssembleContext's ``options`` and
ProcessTurn's ``contextOptions`` (which the agent hands to the assembler as sent, and answers
without a context when the assembler refuses them) are held here to the rules the OpenAPI states on
``AssembleOptions`` and ``SectionBudget`` (``rules.SCHEMA_RULES``, the one source of both), so a
broken one is a 400 naming the field on either route. A tool interaction has one rule too, the
agent's for a turn's (``SCHEMA_RULES["ToolInteraction"]``), wherever a request holds one: in a
turn, an imported turn, or the tool results of assemble options (the assembler and ImportTurns
would take more). Checked on the decoded JSON, before the body is parsed; every other rule stays
protobuf's and the services'."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from lore_runtime import errors

from gateway_svc.api.openapi.rules import SCHEMA_RULES


def in_options(document: dict[str, Any], options: str) -> None:
    """The assemble options at ``document[options]``."""
    found = document.get(options)
    if not isinstance(found, dict):
        return
    _check(found, SCHEMA_RULES["AssembleOptions"], options)
    budgets = found.get("sectionBudgets")
    for index, budget in enumerate(budgets if isinstance(budgets, list) else ()):
        if isinstance(budget, dict):
            _check(budget, SCHEMA_RULES["SectionBudget"], f"{options}.sectionBudgets[{index}]")
    in_tools(found, "toolResults", options)


def in_tools(holder: Any, name: str, where: str) -> None:
    """The tool interactions at ``holder[name]`` (a turn's, or the tool results of assemble options)."""
    tools = holder.get(name) if isinstance(holder, dict) else None
    for index, tool in enumerate(tools if isinstance(tools, list) else ()):
        if isinstance(tool, dict):
            _check(tool, SCHEMA_RULES["ToolInteraction"], f"{where}.{name}[{index}]")


def _check(values: dict[str, Any], rules: dict[str, dict[str, Any]], where: str) -> None:
    """``values`` against the keywords of ``rules`` (field -> JSON Schema keywords; ``name[]`` for
    each item of a list); a value of the wrong type is left to the parser."""
    for field, rule in rules.items():
        name = field.removesuffix("[]")
        value = values.get(name)
        if rule.get("required") and value in (None, ""):
            raise errors.InvalidArgument(f"{where}.{name}", "is required")
        items = value if field.endswith("[]") and isinstance(value, list) else [value]
        for index, item in enumerate(items):
            at = f"{where}.{name}" + (f"[{index}]" if field.endswith("[]") else "")
            problem = _problem(rule, item)
            if problem is not None:
                raise errors.InvalidArgument(at, problem)


def _problem(rule: dict[str, Any], value: Any) -> str | None:
    if isinstance(value, str):
        if len(value) > rule.get("maxLength", len(value)):
            return f"at most {rule['maxLength']} characters"
        if "pattern" in rule and not ecma_pattern(rule["pattern"]).search(value):
            return f"must match {rule['pattern']}"
        if "not" in rule and value == rule["not"].get("const"):
            return f"must not be {value}"
    elif isinstance(value, list) and len(value) > rule.get("maxItems", len(value)):
        return f"at most {rule['maxItems']} items"
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if not rule.get("minimum", value) <= value <= rule.get("maximum", value):
            return f"must be between {rule['minimum']} and {rule['maximum']}"
    return None


@cache
def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` read as JSON Schema reads it (ECMA-262, no flags): ``$`` is the end of the text,
    where Python's ``$`` also matches before a final newline ("mode\\n" would pass ``^[a-z]+$``)."""
    translated: list[str] = []
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            translated.append(r"\Z")
            continue
        translated.append(char)
    return re.compile("".join(translated))
