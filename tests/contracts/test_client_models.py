"""The client's models read what the gateway writes: each ``from_json`` against its proto message.

``lore_client.models`` reads the gateway's proto3 JSON field by field (``JsonModel``: each field
under the JSON name its Python name gives, as its type hint says). Two checks keep those readers
honest without a running gateway:

- every key a model reads is a JSON field name of the proto message it models (a typo or a
  renamed field would otherwise read as the default, silently);
- a message with every field set, printed as the gateway prints it (``MessageToDict`` with
  fields that have no presence printed), reads back into the model with the same values for the
  fields the model carries: enums by name, timestamps as ``datetime``, int64 maps from strings,
  nested messages as their own models, unmodelled messages as their JSON.
"""

from __future__ import annotations

import dataclasses
import inspect
from datetime import UTC, datetime
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from lore.agent.v1 import agent_service_pb2
from lore.assembler.v1 import assembler_service_pb2
from lore.common.v1 import context_pb2, provenance_pb2, scope_pb2, turn_pb2
from lore.memory.v1 import episode_service_pb2, memory_service_pb2
from lore.observations.v1 import engagement_service_pb2, observation_service_pb2
from lore_client import models

# Each model and the message the gateway prints for it (the response itself where the model
# reads a whole answer: TurnResult, ImportResult, Prime, ObserveResult, Engagement).
PROTO_OF_MODEL: dict[type, type[Message]] = {
    models.Scope: scope_pb2.Scope,
    models.Provenance: provenance_pb2.Provenance,
    models.Memory: memory_service_pb2.Memory,
    models.RecallResult: memory_service_pb2.RecallResult,
    models.Session: agent_service_pb2.Session,
    models.Turn: turn_pb2.Turn,
    models.AssembledContext: context_pb2.AssembledContext,
    models.TurnResult: agent_service_pb2.ProcessTurnResponse,
    models.ImportResult: agent_service_pb2.ImportTurnsResponse,
    models.OpenThread: episode_service_pb2.OpenThread,
    models.Episode: episode_service_pb2.Episode,
    models.EpisodeThread: episode_service_pb2.EpisodeThread,
    models.PrimedItem: assembler_service_pb2.PrimedItem,
    models.Prime: assembler_service_pb2.PrimeResponse,
    models.ProfileLine: assembler_service_pb2.ProfileLine,
    models.UserProfile: assembler_service_pb2.UserProfile,
    models.Evidence: observation_service_pb2.Evidence,
    models.Observation: observation_service_pb2.Observation,
    models.ObserveResult: observation_service_pb2.ObserveResponse,
    models.ObservationHit: observation_service_pb2.SearchObservationsResult,
    models.Hypothesis: engagement_service_pb2.Hypothesis,
    models.Finding: engagement_service_pb2.Finding,
    models.Unknown: engagement_service_pb2.Unknown,
    models.Engagement: engagement_service_pb2.GetEngagementResponse,
    models.ErasureJob: agent_service_pb2.ErasureJob,
    models.ForgottenItem: agent_service_pb2.ForgottenItem,
    models.ForgetResult: agent_service_pb2.ForgetAboutResponse,
    models.JobKindStats: agent_service_pb2.JobKindStats,
    models.TurnContext: agent_service_pb2.GetTurnContextResponse,
    models.Job: agent_service_pb2.Job,
}

# ``contradict`` answers ContradictObservationResponse, read by the same model as ``observe``.
ALSO_READ_AS = [(models.ObserveResult, observation_service_pb2.ContradictObservationResponse)]

# Models of JSON no proto message describes: the gateway builds /v1/status itself, and a Page
# is the envelope of any List answer (its items are checked as their own models).
NOT_PROTO = {models.Status, models.Page}

CASES = [*PROTO_OF_MODEL.items(), *ALSO_READ_AS]
CASE_IDS = [f"{model.__name__}-{message.DESCRIPTOR.name}" for model, message in CASES]


class KeysRead(dict):
    """An empty answer that remembers every key a reader asks it for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def __bool__(self) -> bool:  # not mistaken for an absent answer (``document or {}``)
        return True

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return default

    def __getitem__(self, key: str) -> Any:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return False


def keys_read_by(model: type) -> set[str]:
    document = KeysRead()
    model.from_json(document)
    return document.asked


def printed(message: Message) -> dict[str, Any]:
    """As the gateway prints a response (gateway_svc.api.json.json_printer matches this output)."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


# --- a message with every field set, each to a value of its own ------------------------------

_FIRST_TIME = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)


class _Filler:
    def __init__(self) -> None:
        self.counter = 0

    def fill(self, message: Message, depth: int = 0) -> Message:
        for field in message.DESCRIPTOR.fields:
            if depth > 4 and field.message_type is not None:
                continue
            if _is_map(field):
                entries = getattr(message, field.name)
                value_field = field.message_type.fields_by_name["value"]
                for _ in range(2):
                    key = self._scalar(field.message_type.fields_by_name["key"])
                    if value_field.message_type is not None:
                        self.fill(entries[key], depth + 1)
                    else:
                        entries[key] = self._scalar(value_field)
            elif field.is_repeated:
                values = getattr(message, field.name)
                for _ in range(2):
                    if field.message_type is not None:
                        self._fill_message_field(values.add(), depth)
                    else:
                        values.append(self._scalar(field))
            elif field.message_type is not None:
                self._fill_message_field(getattr(message, field.name), depth)
            else:
                setattr(message, field.name, self._scalar(field))
        return message

    def _fill_message_field(self, message: Message, depth: int) -> None:
        full_name = message.DESCRIPTOR.full_name
        if full_name == "google.protobuf.Timestamp":
            self.counter += 1
            message.FromDatetime(_FIRST_TIME.replace(second=self.counter % 60, minute=self.counter // 60 % 60))
        elif full_name.startswith("google.protobuf."):
            message.SetInParent()  # other well-known types: present, empty
        else:
            self.fill(message, depth + 1)

    def _scalar(self, field: FieldDescriptor) -> Any:
        self.counter += 1
        if field.enum_type is not None:
            values = field.enum_type.values
            return values[1 + self.counter % (len(values) - 1)].number if len(values) > 1 else 0
        if field.type == FieldDescriptor.TYPE_STRING:
            return f"{field.name}-{self.counter}"
        if field.type == FieldDescriptor.TYPE_BOOL:
            return True
        if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
            return self.counter + 0.5
        if field.type == FieldDescriptor.TYPE_BYTES:
            return f"{self.counter}".encode()
        return self.counter


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def full_message(message_class: type[Message]) -> Message:
    return _Filler().fill(message_class())


# --- the values a model should hold for a message ---------------------------------------------


def assert_model_carries(model_value: Any, message: Message, where: str) -> None:
    """Every field of the model (but ``raw``) equals the message's field of the same name."""
    model = type(model_value)
    assert PROTO_OF_MODEL.get(model) is not None, f"{where}: {model.__name__} has no proto message mapped"
    descriptor: Descriptor = message.DESCRIPTOR
    for attribute in dataclasses.fields(model):
        if attribute.name == "raw":
            continue
        field = descriptor.fields_by_name.get(attribute.name)
        place = f"{where}.{attribute.name}"
        assert field is not None, f"{place}: {descriptor.full_name} has no field {attribute.name!r}"
        _assert_field(getattr(model_value, attribute.name), field, getattr(message, field.name), place)


def _assert_field(actual: Any, field: FieldDescriptor, value: Any, place: str) -> None:
    if _is_map(field):
        value_field = field.message_type.fields_by_name["value"]
        assert actual == {key: _expected_scalar(value_field, item) for key, item in value.items()}, place
    elif field.is_repeated:
        assert isinstance(actual, tuple), f"{place}: {type(actual).__name__}, not a tuple"
        assert len(actual) == len(value), place
        for index, (one_actual, one_value) in enumerate(zip(actual, value, strict=True)):
            _assert_single(one_actual, field, one_value, f"{place}[{index}]")
    else:
        _assert_single(actual, field, value, place)


def _assert_single(actual: Any, field: FieldDescriptor, value: Any, place: str) -> None:
    if field.message_type is None:
        assert actual == _expected_scalar(field, value), place
    elif field.message_type.full_name == "google.protobuf.Timestamp":
        assert actual == value.ToDatetime(tzinfo=UTC), place
    elif dataclasses.is_dataclass(actual):
        expected_message = PROTO_OF_MODEL.get(type(actual))
        assert expected_message is not None, f"{place}: {type(actual).__name__} has no proto message mapped"
        assert expected_message.DESCRIPTOR.full_name == field.message_type.full_name, (
            f"{place}: read as {type(actual).__name__} ({expected_message.DESCRIPTOR.full_name}),"
            f" the field is a {field.message_type.full_name}"
        )
        assert_model_carries(actual, value, place)
    else:  # a message the client keeps as its JSON
        assert actual == printed(value), place


def _expected_scalar(field: FieldDescriptor, value: Any) -> Any:
    if field.enum_type is not None:
        return field.enum_type.values_by_number[value].name
    return value


# --- the tests --------------------------------------------------------------------------------


def test_every_model_is_mapped_to_its_proto_message_or_said_not_to_have_one() -> None:
    readers = {
        cls
        for _, cls in inspect.getmembers(models, inspect.isclass)
        if cls.__module__ == models.__name__ and hasattr(cls, "from_json")
    }
    assert readers == set(PROTO_OF_MODEL) | NOT_PROTO


@pytest.mark.parametrize(("model", "message_class"), CASES, ids=CASE_IDS)
def test_every_key_a_model_reads_is_a_json_field_of_its_message(model: type, message_class: type[Message]) -> None:
    json_names = {field.json_name for field in message_class.DESCRIPTOR.fields}
    asked = keys_read_by(model)
    assert asked, f"{model.__name__} read nothing"
    assert asked <= json_names, f"{model.__name__} reads {sorted(asked - json_names)}, not in {sorted(json_names)}"


@pytest.mark.parametrize(("model", "message_class"), CASES, ids=CASE_IDS)
def test_a_full_message_reads_back_with_the_same_values(model: type, message_class: type[Message]) -> None:
    message = full_message(message_class)
    document = printed(message)
    value = model.from_json(document)
    assert_model_carries(value, message, model.__name__)
    if any(attribute.name == "raw" for attribute in dataclasses.fields(model)):
        assert value.raw == document


@pytest.mark.parametrize(("model", "message_class"), CASES, ids=CASE_IDS)
def test_an_empty_message_reads_as_the_models_defaults(model: type, message_class: type[Message]) -> None:
    message = message_class()
    assert_model_carries_defaults(model.from_json(printed(message)), message, model.__name__)


def assert_model_carries_defaults(model_value: Any, message: Message, where: str) -> None:
    """Unset fields: empty scalars, no timestamps (``None``), nested models of defaults."""
    for attribute in dataclasses.fields(type(model_value)):
        if attribute.name == "raw":
            continue
        field = message.DESCRIPTOR.fields_by_name[attribute.name]
        actual = getattr(model_value, attribute.name)
        place = f"{where}.{attribute.name}"
        if field.message_type is not None and field.message_type.full_name == "google.protobuf.Timestamp":
            assert actual is None, place
        elif field.message_type is not None and not field.is_repeated:
            # A message field unset is not printed at all: its model reads as from an empty answer
            # (enums "", not "…_UNSPECIFIED"), or None where the model says so (TurnResult.reply_turn).
            assert actual is None or actual == type(actual).from_json({}), place
        else:
            _assert_field(actual, field, getattr(message, field.name), place)


def test_the_readers_ignore_what_they_do_not_know() -> None:
    document = printed(full_message(memory_service_pb2.Memory)) | {"aFieldOfANewerGateway": {"x": 1}}
    assert models.Memory.from_json(document).raw is document


def test_keys_read_covers_nested_lookups() -> None:
    """The probe sees the keys of repeated, map and nested fields too, not only of scalars."""
    assert {"openThreads", "keyTopics", "scope"} <= keys_read_by(models.Episode)
    assert {"metadata"} <= keys_read_by(models.Session)
