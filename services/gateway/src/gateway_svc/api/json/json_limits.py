"""Limits on a JSON body checked on its text, before anything recurses into it.

``json.loads`` and protobuf's JSON parser are recursive: a body nested a thousand levels deep
exhausts Python's stack (RecursionError, a 500). The nesting is measured here without recursing,
and a body deeper than the limit is refused naming ``body``. The size limit is applied while the
body is read (``calls.read_json``), so it never reaches this module.

What a string may hold (no NUL, no unpaired surrogate, keys included) is ``lore_runtime.text_rules``,
applied to the parsed document by ``proto_json``.
"""

from __future__ import annotations

import re
from itertools import accumulate

from lore_runtime import errors

# A depth no real request comes near (the deepest proto message is a few levels; a tool result's
# Struct gets the rest), far below where the parsers would exhaust the stack. protobuf stops at
# 100 message levels, and a Struct spends two per JSON level: past 48 JSON levels a body could pass
# this check and still be refused by protobuf, so the setting goes no higher.
DEFAULT_MAX_DEPTH = 32
HIGHEST_MAX_DEPTH = 48

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
