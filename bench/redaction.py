"""Redaction: what replacing secrets costs per text and per request, no stack needed.

    .venv/bin/python -m bench.redaction [--repeat 2000] [--show-misses]

Times ``lore_runtime.redaction.redact`` on sentences a user says (most hold no secret; some hold
one of each kind) and ``message_redaction.redact_message`` on a ProcessTurn request (a sentence,
metadata, a tool result), as every service's interceptor runs it on each request. A turn crosses
the interceptor of the agent and of each service the agent calls for it (about ten requests with
text, reflection included), so the per-turn cost is about ten requests' worth.

It first reads the secret forms of the tuning half (tests/data/paraphrase/secret_forms_tuning.json):
how many secrets are kept raw (their value, separators removed, still in the redacted text) and how
many look-alikes (phone, order and tracking numbers, ISBNs, dates, versions, identifiers) are changed.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from google.protobuf import struct_pb2
from lore.agent.v1 import agent_service_pb2
from lore.common.v1 import turn_pb2
from lore_runtime.message_redaction import redact_message
from lore_runtime.redaction import Redactor

PLAIN = (
    "I moved to Leeds in 2019 with my husband Tom, and I work as a pharmacist at the hospital.",
    "Thanks, that sounds great! I will try the recipe tonight and tell you how it went.",
    "Can you remind me what we said about the trip to Lisbon on 14 March?",
    "My daughter turns 7 next week and she wants a dinosaur cake, call me on 07700 900123.",
    "Order #4471-2209-88 still says processing; the book is ISBN 978-0-262-03384-8.",
)
SECRETS = (
    "My card is 4242 4242 4242 4242, expiry 12/27.",
    "Pay the rent to GB82 WEST 1234 5698 7654 32 please.",
    "my password is Tr0ub4dor&3 and the wifi pw: blue-fox-42",
    "the deploy key is sk-proj-4fJ8kL2mN9pQ1rS7tU3vW5xY0zA6bC",
    "SSN 123-45-6789, NI number AB 12 34 56 C.",
)


FORMS = Path(__file__).resolve().parents[1] / "tests" / "data" / "paraphrase" / "secret_forms_tuning.json"


def _compact(text: str) -> str:
    return re.sub(r"[\s.\-\u2013\u2014/]", "", text).lower()


def forms(redactor: Redactor, show_misses: bool) -> None:
    """Secrets kept raw and look-alikes changed, over the tuning half's forms."""
    document = json.loads(FORMS.read_text())
    raw = [form for form in document["secrets"] if _compact(form["value"]) in _compact(redactor(form["text"]))]
    changed = [form for form in document["not_secrets"] if redactor(form["text"]) != form["text"]]
    print(f"secrets kept raw      {len(raw)} of {len(document['secrets'])}")
    print(f"look-alikes changed   {len(changed)} of {len(document['not_secrets'])}")
    if show_misses:
        for form in raw:
            print(f"  raw      {form['kind']:<8} {form['text']!r} -> {redactor(form['text'])!r}")
        for form in changed:
            print(f"  changed  {form['what']:<8} {form['text']!r} -> {redactor(form['text'])!r}")


def _per_call_us(call, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - started) / 1000)
    return samples


def _request(content: str) -> agent_service_pb2.ProcessTurnRequest:
    result = struct_pb2.Struct()
    result.update({"status": "confirmed", "orderNumber": "4471-2209-88", "note": content})
    return agent_service_pb2.ProcessTurnRequest(
        session_id="5b0a7c1e-0d5e-4c55-9f0e-2f1b8f7b1d11",
        turn=turn_pb2.Turn(
            content=content,
            idempotency_key="turn-42",
            metadata={"channel": "web"},
            tool_interactions=[turn_pb2.ToolInteraction(tool_name="orders", summary="Order confirmed.", result=result)],
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--show-misses", action="store_true", help="print the forms missed")
    args = parser.parse_args()
    redactor = Redactor()
    forms(redactor, args.show_misses)
    for label, texts in (("plain text", PLAIN), ("with a secret", SECRETS)):
        samples = [us for text in texts for us in _per_call_us(lambda text=text: redactor(text), args.repeat)]
        print(
            f"redact, {label:<14} median {statistics.median(samples):6.1f} µs"
            f"  p95 {statistics.quantiles(samples, n=20)[-1]:6.1f} µs  ({len(texts)} sentences)"
        )
    for label, texts in (("plain text", PLAIN), ("with a secret", SECRETS)):
        requests = [_request(text) for text in texts]
        samples = [
            us
            for request in requests
            for us in _per_call_us(lambda request=request: redact_message(_copy(request), redactor), args.repeat)
        ]
        baseline = [
            us for request in requests for us in _per_call_us(lambda request=request: _copy(request), args.repeat)
        ]
        cost = statistics.median(samples) - statistics.median(baseline)
        print(f"redact_message (ProcessTurn), {label:<14} median {cost:6.1f} µs per request")


def _copy(request: agent_service_pb2.ProcessTurnRequest) -> agent_service_pb2.ProcessTurnRequest:
    copy = agent_service_pb2.ProcessTurnRequest()
    copy.CopyFrom(request)
    return copy


if __name__ == "__main__":
    main()
