"""The REST answer's bytes: orjson writes what ``json.dumps(ensure_ascii=False, separators=(",", ":"))``
wrote, for every response type the gateway prints."""

from __future__ import annotations

import json

from gateway_svc.api.json.json_printer import message_to_dict
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from hypothesis import HealthCheck, given, settings
from lore.memory.v1 import memory_service_pb2

from tests.unit.gateway.test_json_printer import _same, messages


def _as_before(message) -> bytes:
    return json.dumps(message_to_dict(message), ensure_ascii=False, separators=(",", ":")).encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messages())
def test_the_body_reads_as_the_standard_library_wrote_it(message):
    body = ProtoJSONResponse(message).body

    assert _same(json.loads(body), json.loads(_as_before(message)))
    assert b"NaN" not in body.replace(b'"NaN"', b"")  # specials are strings, never bare NaN/Infinity


def test_compact_utf8_with_escapes_where_json_needs_them():
    answer = memory_service_pb2.RecallResponse(embedding_model="m")
    hit = answer.results.add(score=0.25, similarity=0.5)
    hit.memory.content = 'café ✓ "quoted"\nnext\x01 \u2028 😀'
    hit.memory.id = "abc"

    response = ProtoJSONResponse(answer)

    assert response.body == _as_before(answer)
    assert "café ✓".encode() in response.body and "😀".encode() in response.body
    assert b'\\"quoted\\"\\nnext\\u0001' in response.body and b", " not in response.body
    assert response.media_type == "application/json" and response.status_code == 200
