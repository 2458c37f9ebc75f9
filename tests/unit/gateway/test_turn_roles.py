"""A turn's role in a REST body: the enum's name or the short form (``"assistant"``), as ``lore turns
import`` files write it; anything else is still refused naming the field."""

import json

import pytest
from gateway_svc.api.json import proto_json, turn_roles
from lore.agent.v1 import agent_service_pb2
from lore.common.v1 import turn_pb2
from lore_runtime import errors


@pytest.mark.parametrize(
    ("written", "role"),
    [
        ("assistant", turn_pb2.TURN_ROLE_ASSISTANT),
        ("Assistant", turn_pb2.TURN_ROLE_ASSISTANT),
        ("user", turn_pb2.TURN_ROLE_USER),
        ("TURN_ROLE_ASSISTANT", turn_pb2.TURN_ROLE_ASSISTANT),
        ("tool", turn_pb2.TURN_ROLE_TOOL),  # spelt out here; the agent refuses it (turn.role)
    ],
)
def test_a_process_turn_body_takes_the_short_role(written, role):
    body = json.dumps({"turn": {"role": written, "content": "I'll send it by Friday."}})

    parsed = proto_json.parse(body, agent_service_pb2.ProcessTurnRequest, prepare=turn_roles.in_turn)

    assert parsed.turn.role == role and parsed.turn.content == "I'll send it by Friday."


def test_an_import_body_takes_short_roles_in_every_turn():
    body = {"turns": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}, "odd"]}

    with pytest.raises(errors.InvalidArgument) as refused:  # a turn that is not an object is still refused
        proto_json.parse(json.dumps(body), agent_service_pb2.ImportTurnsRequest, prepare=turn_roles.in_turns)
    body["turns"].pop()
    parsed = proto_json.parse(json.dumps(body), agent_service_pb2.ImportTurnsRequest, prepare=turn_roles.in_turns)

    assert refused.value.field.startswith("turns")
    assert [t.role for t in parsed.turns] == [turn_pb2.TURN_ROLE_USER, turn_pb2.TURN_ROLE_ASSISTANT]


@pytest.mark.parametrize("written", ["bot", "TURN_ROLE_BOT", ["assistant"]])
def test_a_role_that_is_neither_is_refused_naming_turn_role(written):
    body = json.dumps({"turn": {"role": written, "content": "x"}})

    with pytest.raises(errors.InvalidArgument) as refused:
        proto_json.parse(body, agent_service_pb2.ProcessTurnRequest, prepare=turn_roles.in_turn)

    assert refused.value.field == "turn.role"


@pytest.mark.parametrize("body", [{}, {"turn": None}, {"turn": "assistant"}, {"turns": {"role": "user"}}])
def test_bodies_without_a_turn_object_are_left_to_the_parser(body):
    copy = json.loads(json.dumps(body))

    turn_roles.in_turn(copy)
    turn_roles.in_turns(copy)

    assert copy == body
