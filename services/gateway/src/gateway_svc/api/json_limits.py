"""Limits on a JSON body checked on its text, before anything recurses into it.

``json.loads`` and protobuf's JSON parser are recursive: a body nested a thousand levels deep
exhausts Python's stack (RecursionError, a 500). The nesting is measured here without recursing,
and a body deeper than the limit is refused naming ``body``. The size limit is applied while the
body is read (``calls.read_json``), so it never reaches this module.

NUL (U+0000) is refused in every string of every request, keys included: Postgres cannot store
it, and it is never meaningful text. One rule for every text field, answered as a 400 naming the
field, where it used to be kept (memories), stripped (turns) or refused without a name (metadata).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

from lore_runtime import errors

# A depth no real request comes near (the deepest proto message is a few levels; a tool result's
# Struct gets the rest), far below where the parsers would exhaust the stack. protobuf stops at
# 100 message levels, and a Struct spends two per JSON level: past 48 JSON levels a body could pass
# this check and still be refused by protobuf, so the setting goes no higher.
DEFAULT_MAX_DEPTH = 32
HIGHEST_MAX_DEPTH = 48
NUL_RULE = "must not contain U+0000 (NUL)"

# A JSON string: its brackets are text, not nesting. Unrolled so it runs in linear time.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 / -1 as signed bytes


def depth_of(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (0 for a scalar), in C-speed passes."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    return max(accumulate(memoryview(brackets.encode("ascii").translate(_STEPS)).cast("b")))


def check_depth(text: str, limit: int) -> None:
    if depth_of(text) > limit:
        raise errors.InvalidArgument("body", f"nested deeper than {limit} levels", reason="BODY_TOO_DEEP")


def check_no_nul(document: Any, path: str = "") -> None:
    """Refuse a NUL anywhere in ``document`` (a parsed JSON value), naming the field as written."""
    if isinstance(document, str):
        if "\x00" in document:
            raise errors.InvalidArgument(path or "body", NUL_RULE)
    elif isinstance(document, dict):
        for key, value in document.items():
            if "\x00" in key:
                raise errors.InvalidArgument(path or "body", f"a key {NUL_RULE}")
            check_no_nul(value, f"{path}.{key}" if path else key)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            check_no_nul(value, f"{path}[{index}]")
