"""The REST bodies are the proto3 JSON mapping of the request and response messages.

Parsing failures become ``InvalidArgument`` naming the field as the client wrote it (lowerCamelCase,
indexed: ``memories[0].validAt``) and its rule (``field_problems``). The body is held to its
OpenAPI schema where protobuf's parser takes more (``lenient_problem``): an enum by number, a
number written as a string, a boolean for a number. A ``null`` for a field is read as the field
left out, as the proto3 JSON mapping says (the document says so on every request body); an item of
a list or a map's value may not be ``null`` (protobuf refuses it too). Refused first, before protobuf
sees the document: a body nested too deep (``json_limits``), and any string or key, anywhere, holding
an unpaired surrogate or a NUL (``lore_runtime.text_rules``: protobuf's parser fails on a surrogate in
an enum value or a map key with an error that is not a ``ParseError``). Responses print every
field, defaults included, so clients see the whole shape (ARCHITECTURE.md §6).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from lore_runtime import errors
from lore_runtime.text_rules import json_problem
from starlette.responses import Response

from gateway_svc.api.json import field_problems
from gateway_svc.api.json.json_limits import DEFAULT_MAX_DEPTH, check_depth
from gateway_svc.api.json.json_printer import message_to_dict

M = TypeVar("M", bound=Message)

_NESTED_FIELD = re.compile(r"Failed to parse (\w+) field")
_UNKNOWN_FIELD = re.compile(r'has no field named "?([\w]+)"?')
_AT_PATH = re.compile(r" at [A-Za-z0-9_]+\.([A-Za-z0-9_.\[\]]+)")
# What JSON text must hold for a decoded string to hold a NUL or a surrogate: an escape of either
# (a surrogate pair of escapes too, which the walk then finds valid), or a surrogate decoded as is.
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")


def field_of(parse_error: str) -> str:
    """Best effort: the JSON path of the field a ``json_format.ParseError`` complains about."""
    located = _AT_PATH.search(parse_error)
    if located:
        # protobuf ends the path with the sentence's own full stop(s): "…candidate.kind.."
        return located.group(1).rstrip(".")
    path = _NESTED_FIELD.findall(parse_error)
    unknown = _UNKNOWN_FIELD.search(parse_error)
    if unknown:
        path.append(unknown.group(1))
    return ".".join(path) or "body"


def parse(
    raw: bytes | str | dict[str, Any],
    message_class: type[M],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    prepare: Callable[[dict[str, Any]], None] | None = None,
) -> M:
    """``raw`` (a body's text, or a query string already made a dict) as ``message_class``; any
    failure is ``InvalidArgument`` naming the field (indexed: ``memories[0].validAt``) and the rule.
    ``prepare`` may rewrite the decoded JSON object in place first (a route's shorthand spellings)."""
    message = message_class()
    if isinstance(raw, dict):
        document: Any = raw
        _check_text(document)
    else:
        try:
            text = raw.decode(json.detect_encoding(raw), "surrogatepass") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError as error:
            raise errors.InvalidArgument("body", f"not valid JSON: {error}") from None
        check_depth(text, max_depth)  # before anything recurses into it
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise errors.InvalidArgument("body", f"not valid JSON: {error}") from None
        except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
            raise errors.InvalidArgument("body", "not valid JSON: a number has too many digits") from None
        if _SUSPECT_ESCAPE.search(text) or not _encodable(text):
            _check_text(document)
    if not isinstance(document, dict):
        raise errors.InvalidArgument("body", "must be a JSON object")
    if prepare is not None:
        prepare(document)
    # A query string's values are text whatever their field: only a scope's ids are checked there.
    lenient = lenient_problem(document, message.DESCRIPTOR, body=not isinstance(raw, dict))
    if lenient is not None:
        raise errors.InvalidArgument(*lenient)
    try:
        json_format.ParseDict(document, message)
    except json_format.ParseError as error:
        found = field_problems.problem(document, message.DESCRIPTOR)
        if found is not None:
            raise errors.InvalidArgument(*found) from None
        text = str(error)
        raise errors.InvalidArgument(field_of(text), _reason(text)) from None
    return message


# Numbers the OpenAPI writes as JSON numbers (64-bit integers are strings there, as protobuf prints them).
_NUMBERS = frozenset(
    (
        FieldDescriptor.TYPE_DOUBLE,
        FieldDescriptor.TYPE_FLOAT,
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_FIXED32,
    )
)
_INTEGERS = _NUMBERS - {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT}
_ANY_JSON = frozenset(("google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"))
SCOPE_MESSAGE = "lore.common.v1.Scope"
_SCOPE_IDS = frozenset(("userId", "agentId", "teamId", "user_id", "agent_id", "team_id"))


def lenient_problem(
    document: dict[str, Any], descriptor: Descriptor, path: str = "", *, body: bool = True
) -> tuple[str, str] | None:
    """The first field of ``document`` that protobuf's JSON parser would take but the OpenAPI
    refuses — in a body an enum's number, a number in a string, a boolean for a number; anywhere a
    scope's id with surrounding spaces (the stores that key on a scope refuse it, so every route
    does) — and the rule it breaks; ``None`` when there is none. A field given ``null`` is left
    out (its default, as proto3's JSON mapping reads it); fields protobuf refuses are left to it."""
    fields = descriptor.fields_by_camelcase_name
    if descriptor.full_name == SCOPE_MESSAGE:
        for key, value in document.items():
            if isinstance(value, str) and value != value.strip() and key in _SCOPE_IDS:
                return f"{path}.{key}" if path else key, "must not start or end with whitespace"
    for key, value in document.items():
        field = fields.get(key) or descriptor.fields_by_name.get(key)
        if field is None:
            continue
        where = f"{path}.{key}" if path else key
        if not body:
            if field.message_type is not None and isinstance(value, dict):
                found = lenient_problem(value, field.message_type, where, body=False)
                if found is not None:
                    return found
            continue
        message = field.message_type
        if message is not None and message.full_name in _ANY_JSON:
            continue  # any JSON, null included
        if value is None:
            continue  # the field left out: protobuf reads it so
        if message is not None and message.GetOptions().map_entry:
            entry = message.fields_by_name["value"]
            values = value.items() if isinstance(value, dict) else ()
            found = next((p for k, item in values if (p := _single_problem(entry, item, f"{where}.{k}"))), None)
        elif field.is_repeated:
            items = enumerate(value) if isinstance(value, list) else ()
            found = next((p for i, item in items if (p := _single_problem(field, item, f"{where}[{i}]"))), None)
        else:
            found = _single_problem(field, value, where)
        if found is not None:
            return found
    return None


def _single_problem(field: FieldDescriptor, value: Any, where: str) -> tuple[str, str] | None:
    if value is None and field.message_type is not None:
        return where, "must be a JSON object"
    if value is None:
        return where, "must not be null"
    if field.enum_type is not None and not isinstance(value, str):
        return where, "must be one of " + ", ".join(v.name for v in field.enum_type.values)
    if field.type in _NUMBERS and isinstance(value, str | bool):
        return where, "must be an integer" if field.type in _INTEGERS else "must be a number"
    if field.message_type is not None and isinstance(value, dict) and field.message_type.full_name not in _ANY_JSON:
        if not field.message_type.full_name.startswith("google.protobuf."):
            return lenient_problem(value, field.message_type, where)
    return None


def _check_text(document: Any) -> None:
    found = json_problem(document)
    if found is not None:
        raise errors.InvalidArgument(*found)


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _reason(text: str) -> str:
    # Keep the innermost explanation, without the chain of "Failed to parse x field:" prefixes.
    innermost = text.rsplit("field: ", 1)[-1]
    return innermost.split(" at ")[0].rstrip(".") or text


def to_json(message: Message) -> dict[str, Any]:
    """Every field printed, defaults included (json_format's output, from a faster printer)."""
    return message_to_dict(message)


class ProtoJSONResponse(Response):
    """A response message as its proto3 JSON, encoded once: returning a dict would have FastAPI
    validate and re-encode it (a second walk of every field, on each request).

    orjson writes the compact UTF-8 JSON ``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``
    wrote (exponents aside: ``1e-5`` for ``1e-05``) in a fifteenth of the time: 0.11 -> 0.007 ms for
    a search answer of ten memories. The printer only hands it str keys, strings, bools, None,
    floats and integers of at most 64 bits (int64 fields are strings), which it all takes."""

    media_type = "application/json"

    def __init__(self, message: Message, status_code: int = 200) -> None:
        super().__init__(orjson.dumps(to_json(message)), status_code=status_code)
