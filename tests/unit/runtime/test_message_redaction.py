"""Every text of a request loses its secrets in place; ids, tokens and other machine values stay."""

from __future__ import annotations

import io
import json
import logging

from google.protobuf import field_mask_pb2, struct_pb2
from google.protobuf.json_format import MessageToDict
from lore.agent.v1 import agent_service_pb2
from lore.assembler.v1 import assembler_service_pb2
from lore.common.v1 import turn_pb2
from lore.memory.v1 import memory_service_pb2
from lore.observations.v1 import observation_service_pb2
from lore_runtime.logs import configure_logging
from lore_runtime.message_redaction import redact_json, redact_message
from lore_runtime.redaction import Redactor

CARD = "4242 4242 4242 4242"
# Shaped like an API key: an id or a token holding such a value must come through untouched.
OPAQUE = "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7Aa6"


def test_a_turns_text_metadata_and_tool_results_lose_their_secrets_and_its_ids_stay():
    result = struct_pb2.Struct()
    result.update(
        {
            "paidWith": f"card {CARD}",
            "orderNumber": "4111111111111111",
            "orderId": OPAQUE,
            "accessToken": "abc123",
            "nested": {"note": "pw: hunter2", "list": ["ssn 123-45-6789"]},
        }
    )
    request = agent_service_pb2.ProcessTurnRequest(
        session_id=OPAQUE,
        turn=turn_pb2.Turn(
            content=f"My card is {CARD} and my password is Tr0ub4dor&3",
            idempotency_key=OPAQUE,
            speaker="Noor",
            metadata={"note": "NI number AB123456C", "externalId": OPAQUE},
            tool_interactions=[turn_pb2.ToolInteraction(tool_name="pay", summary=f"charged {CARD}", result=result)],
        ),
    )

    redact_message(request, Redactor())

    turn = request.turn
    assert request.session_id == OPAQUE and turn.idempotency_key == OPAQUE
    assert turn.content == "My card is [card ending 4242] and my password is [password]"
    assert dict(turn.metadata) == {"note": "NI number [NI number]", "externalId": OPAQUE}
    [tool] = turn.tool_interactions
    assert tool.summary == "charged [card ending 4242]"
    got = MessageToDict(tool.result)
    assert got == {
        "paidWith": "card [card ending 4242]",
        "orderNumber": "4111111111111111",
        "orderId": OPAQUE,
        "accessToken": "[API key]",
        "nested": {"note": "pw: [password]", "list": ["ssn [SSN]"]},
    }


def test_page_tokens_and_field_masks_are_not_text():
    listing = memory_service_pb2.ListMemoriesRequest(page_token=OPAQUE)
    redact_message(listing, Redactor())
    assert listing.page_token == OPAQUE
    update = memory_service_pb2.UpdateMemoryRequest(update_mask=field_mask_pb2.FieldMask(paths=["content"]))
    redact_message(update, Redactor())
    assert list(update.update_mask.paths) == ["content"]


def test_labels_held_to_an_alphabet_are_not_text():
    """A persona mode and a slot are checked against their alphabet after redaction: a placeholder
    would make a valid label a 400."""
    label = "key-" + "0123456789abcdef" * 2  # shaped like an API key, in both labels' alphabets
    options = assembler_service_pb2.AssembleOptions(persona_mode=label)
    context = assembler_service_pb2.AssembleContextRequest(options=options)
    candidate = observation_service_pb2.ObservationCandidate(slot=label)
    belief = observation_service_pb2.ObserveRequest(candidate=candidate)
    redact_message(context, Redactor())
    redact_message(belief, Redactor())
    assert context.options.persona_mode == label and belief.candidate.slot == label
    assert Redactor()(label) != label


def test_a_card_number_in_a_label_is_still_redacted():
    """A label is searched for numbers: a card written into a slot or a persona mode becomes its
    placeholder (which the label's rule then refuses), never a kept secret."""
    label = f"card-{CARD.replace(' ', '')}"
    options = assembler_service_pb2.AssembleOptions(persona_mode=label)
    context = assembler_service_pb2.AssembleContextRequest(options=options)
    belief = observation_service_pb2.ObserveRequest(candidate=observation_service_pb2.ObservationCandidate(slot=label))
    redact_message(context, Redactor())
    redact_message(belief, Redactor())
    for redacted in (context.options.persona_mode, belief.candidate.slot):
        assert CARD.replace(" ", "") not in redacted and redacted != label


def test_nothing_changes_when_no_kind_is_redacted():
    request = agent_service_pb2.ProcessTurnRequest(turn=turn_pb2.Turn(content=f"My card is {CARD}"))
    redact_message(request, Redactor(frozenset()))
    assert request.turn.content == f"My card is {CARD}"


def test_a_json_body_loses_its_secrets_but_keeps_ids_and_tokens_and_is_the_same_object_when_clean():
    clean = {"memories": [{"content": "I like tea", "requestId": OPAQUE}]}
    assert redact_json(clean, Redactor()) is clean
    body = {"memories": [{"content": f"card {CARD}", "requestId": OPAQUE}], "pageToken": OPAQUE}
    assert redact_json(body, Redactor()) == {
        "memories": [{"content": "card [card ending 4242]", "requestId": OPAQUE}],
        "pageToken": OPAQUE,
    }


def test_log_lines_hold_no_secret_in_the_message_the_fields_the_traceback_or_a_url():
    stream = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        configure_logging("test", stream=stream)
        log = logging.getLogger("lore.test.redaction")
        log.info("GET /v1/memories:search?query=my+card+4242+4242+4242+4242 HTTP/1.1 200")
        log.warning("user said %s", "my password is hunter2", extra={"body": "ssn 123-45-6789"})
        try:
            raise ValueError(f"cannot store {CARD}")
        except ValueError:
            log.exception("failed")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    written = stream.getvalue()
    lines = [json.loads(line) for line in written.splitlines()]
    assert len(lines) == 3
    for raw in ("4242+4242", "4242 4242", "hunter2", "123-45-6789"):
        assert raw not in written
    assert "[card ending 4242]" in lines[0]["message"] and "[card ending 4242]" in lines[2]["exc_info"]
    assert lines[1]["message"] == "user said my password is [password]" and lines[1]["body"] == "ssn [SSN]"
