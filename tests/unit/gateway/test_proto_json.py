"""Bad REST bodies become INVALID_ARGUMENT naming the field as the client wrote it."""

import pytest
from gateway_svc import proto_json
from lore.observations.v1 import observation_service_pb2
from lore_runtime import errors


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"candidate": {"kind": "operator_preference"}}, "candidate.kind"),
        ({"candidate": {"evidence": [{"weight": "heavy"}]}}, "candidate.evidence[0].weight"),
        ({"candidate": {"colour": "red"}}, "candidate.colour"),
        ([1, 2], "body"),
    ],
)
def test_a_bad_body_names_the_field_without_trailing_punctuation(body, field):
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(body if isinstance(body, dict) else "[1, 2]", observation_service_pb2.ObserveRequest)
    assert raised.value.field == field


def test_the_reason_is_the_innermost_explanation():
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse({"candidate": {"kind": "nope"}}, observation_service_pb2.ObserveRequest)
    assert "Invalid enum value nope" in str(raised.value)
    assert "Failed to parse" not in str(raised.value)
