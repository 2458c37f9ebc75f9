"""``redaction`` applied in place to every text of a request message, before any servicer reads it.

Every service's error interceptor runs ``redact_message`` on each request after ``request_text`` has
checked it, so whatever a caller sends (the gateway, the agent, a direct gRPC client) is stored,
embedded, logged and handed to a model without the secrets it held. Every string field is text except
the machine values a placeholder would break: ids (``text_rules.is_id_name``), page and other tokens
(``*_token``), fingerprints, model names, a lease's holder and a ``FieldMask``'s paths. A label held
to an alphabet (a context's ``persona_mode``, a belief's ``slot``) is searched for numbers only
(cards, IBANs, SSNs, NI numbers): a key-shaped label is a label, while a card number written into one
becomes a placeholder that its rule then refuses, so it is never kept. A Struct's
string values are text too, each read with its key as context (``"orderNumber": "4111…"`` is an order
number, ``"accessToken": "…"`` a key whatever it looks like), except under an id's key (``orderId``);
a string map's values likewise. Map keys are names, not text, and are kept.

Redaction is deterministic, so a retried request is redacted the same way and anything keyed on its
content (an idempotency record, a dedupe hash) still matches.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from lore_runtime.redaction import Kind, Redactor, redact
from lore_runtime.text_rules import is_id_name

_STRUCT = "google.protobuf.Struct"
_VALUE = "google.protobuf.Value"
_LIST_VALUE = "google.protobuf.ListValue"
_NOT_TEXT_MESSAGES = frozenset({"google.protobuf.FieldMask", "google.protobuf.Timestamp", "google.protobuf.Duration"})
_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE
_NOT_TEXT_NAMES = frozenset({"holder", "model", "fingerprint"})
_LABEL_NAMES = frozenset({"slot", "persona_mode", "personaMode"})
# What a label is searched for: a number is a secret whatever its shape around it; a password or key
# is read from its shape, and a label's alphabet gives random-looking labels that shape.
_LABEL_KINDS = frozenset({Kind.CARD, Kind.IBAN, Kind.SSN, Kind.NINO})
_LABEL_SEPARATORS = re.compile(r"[-_.]")


def is_machine_name(name: str) -> bool:
    """Whether a field (proto or JSON name) holds a machine value rather than text: an id, a token, a
    fingerprint, a model name or a lease holder."""
    return (
        is_id_name(name)
        or name in _NOT_TEXT_NAMES
        or name.endswith(("_token", "Token", "_fingerprint", "Fingerprint", "_model", "Model"))
    )


def redact_message(message: Message, redactor: Redactor) -> None:
    """Replace, in place, every secret in the text of ``message`` (and of the messages it holds)."""
    if not redactor.enabled:
        return
    _message(message, redactor)


def _message(message: Message, redactor: Redactor) -> None:
    name = message.DESCRIPTOR.full_name
    if name == _STRUCT:
        _struct(message, redactor)
        return
    if name == _LIST_VALUE:
        _list(message, redactor, "")
        return
    if name == _VALUE:
        _value(message, redactor, "")
        return
    for field, value in message.ListFields():
        visit = _visit(field)
        if visit is None:
            continue
        if visit == "map":
            _map(field, value, redactor)
        elif field.is_repeated:
            if field.type == _STRING:
                for index, item in enumerate(value):
                    redacted = redactor(item)
                    if redacted is not item:
                        value[index] = redacted
            else:
                for item in value:
                    _message(item, redactor)
        elif field.type == _STRING:
            redacted = _label(value, redactor) if visit == "label" else redactor(value)
            if redacted is not value:
                setattr(message, field.name, redacted)
        else:
            _message(value, redactor)


def _label(value: str, redactor: Redactor) -> str:
    """``value`` unchanged, or, when it holds a number that is a secret, the label read as words
    (its ``-``, ``_`` and ``.`` as spaces, so ``card-4242…`` is a card) with the number's
    placeholder: the label's rule then refuses it."""
    words = _LABEL_SEPARATORS.sub(" ", value)
    redacted = redact(words, redactor.kinds & _LABEL_KINDS)
    return value if redacted == words else redacted


@cache
def _visit(field: FieldDescriptor) -> str | None:
    """``"map"``, ``"field"``, ``"label"`` (numbers only), or ``None`` for a field that holds no
    text to redact."""
    if field.type == _MESSAGE:
        if field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            if value_field.type == _STRING and is_machine_name(field.name):
                return None
            return "map" if value_field.type in (_STRING, _MESSAGE) else None
        return None if field.message_type.full_name in _NOT_TEXT_MESSAGES else "field"
    if field.type == _STRING:
        if is_machine_name(field.name):
            return None
        return "label" if field.name in _LABEL_NAMES and not field.is_repeated else "field"
    return None


def _map(field: FieldDescriptor, value: Any, redactor: Redactor) -> None:
    value_field = field.message_type.fields_by_name["value"]
    if value_field.type == _STRING:
        for key in list(value):
            if is_id_name(key):
                continue
            item = value[key]
            redacted = redactor(item, key)
            if redacted is not item:
                value[key] = redacted
    else:
        for item in value.values():
            _message(item, redactor)


def _struct(struct: Message, redactor: Redactor) -> None:
    for key, value in struct.fields.items():
        if not is_id_name(key):
            _value(value, redactor, key)


def _list(values: Message, redactor: Redactor, context: str) -> None:
    for value in values.values:
        _value(value, redactor, context)


def _value(value: Message, redactor: Redactor, context: str) -> None:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        redacted = redactor(value.string_value, context)
        if redacted is not value.string_value:
            value.string_value = redacted
    elif kind == "struct_value":
        _struct(value.struct_value, redactor)
    elif kind == "list_value":
        _list(value.list_value, redactor, context)


def redact_json(document: Any, redactor: Redactor, key: str = "") -> Any:
    """A parsed JSON ``document`` with the secrets of its string values replaced, by the rule
    messages follow: a value under a machine name (``is_machine_name``: ``requestId``, ``pageToken``,
    …) is kept, any other is redacted with its key as context. Keys are kept. A new document; the
    same object when nothing was replaced."""
    if isinstance(document, str):
        return document if is_machine_name(key) else redactor(document, key)
    if isinstance(document, dict):
        redacted = {name: redact_json(value, redactor, name) for name, value in document.items()}
        return document if all(redacted[name] is document[name] for name in document) else redacted
    if isinstance(document, list):
        items = [redact_json(value, redactor, key) for value in document]
        return document if all(new is old for new, old in zip(items, document, strict=True)) else items
    return document
