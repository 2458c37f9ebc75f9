"""The fuzz suite's timestamp class: every timestamp field of every operation (found in the
gateway's OpenAPI, bodies and query strings) set to a time outside every accepted range
(0001-01-01T00:00:00Z, 9999-12-31T23:59:59Z) in an otherwise valid generated request must be a
4xx: never stored (and then unreadable), never a 500. Sent and checked as ``test_fuzz`` does.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from tests.integration.gateway.test_bad_input import _placeholder_app
from tests.integration.gateway.test_fuzz import (
    ANSWER_CHECKS,
    STATUSES,
    _documented_operations,
    fuzzed,
    replayable,
    seeded,
)

__all__ = ["fuzzed"]  # the module's gateway, its schema and key, as test_fuzz builds them

OUT_OF_RANGE = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]
EXAMPLES = 3


def _timestamp_fields(schema: dict, components: dict, path: str = "", depth: int = 0) -> list[str]:
    while "$ref" in schema or "allOf" in schema:  # a named schema, or a rule's wrapper of one
        schema = components[schema["$ref"].rsplit("/", 1)[-1]] if "$ref" in schema else schema["allOf"][0]
    if schema.get("format") == "date-time":
        return [path]
    if depth > 7:
        return []
    found = _timestamp_fields(schema["items"], components, f"{path}[0]", depth + 1) if "items" in schema else []
    for name, member in (schema.get("properties") or {}).items():
        found += _timestamp_fields(member, components, f"{path}.{name}" if path else name, depth + 1)
    return found


def _every_timestamp_field() -> list[tuple[str, str, str]]:
    """(operation, "body" or "query", field) of every timestamp field the OpenAPI documents."""
    document = _placeholder_app().openapi()
    components = document["components"]["schemas"]
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            label = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("schema", {}).get("format") == "date-time":
                    found.append((label, "query", parameter["name"]))
            if "requestBody" in operation:
                body = operation["requestBody"]["content"]["application/json"]["schema"]
                found += [(label, "body", field) for field in _timestamp_fields(body, components)]
    return sorted(found)


TIMESTAMP_FIELDS = _every_timestamp_field()


def _with(body: Any, field: str, value: str) -> dict:
    """``body`` (a generated object) with ``value`` at the JSON path ``field``; lists get their first
    element set (one made if there is none)."""
    document = dict(body) if isinstance(body, dict) else {}
    here = document
    parts = field.split(".")
    for index, part in enumerate(parts):
        name, listed = part.removesuffix("[0]"), part.endswith("[0]")
        last = index == len(parts) - 1
        if listed:
            items = list(here.get(name) or []) if isinstance(here.get(name), list) else []
            first = items[0] if items and isinstance(items[0], dict) else {}
            inner: Any = value if last else dict(first)
            here[name] = [inner, *items[1:]]
        else:
            inner = value if last else (dict(here[name]) if isinstance(here.get(name), dict) else {})
            here[name] = inner
        here = inner
    return document


def test_every_operation_with_a_timestamp_is_covered():
    operations = {label for label, _, _ in TIMESTAMP_FIELDS}
    assert operations <= set(_documented_operations())
    assert len(operations) >= 10, operations


@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@pytest.mark.parametrize("value", OUT_OF_RANGE)
@pytest.mark.parametrize(("label", "where", "field"), TIMESTAMP_FIELDS)
async def test_an_out_of_range_time_in_any_timestamp_field_is_a_4xx(fuzzed, label, where, field, value):
    schema, client, key = fuzzed.schema, fuzzed.client, fuzzed.keys["org-wide"]
    method, path = label.split(" ", 1)
    operation = schema[path][method]
    loop = asyncio.get_running_loop()
    answers: list[int] = []

    def send(case: schemathesis.Case) -> None:
        if where == "body":
            case.body = _with(case.body, field, value)
        else:
            case.query = {**(case.query or {}), field: value}
        prepared = requests.Request(
            **case.as_transport_kwargs(base_url="http://gateway", headers={"Authorization": f"Bearer {key}"})
        ).prepare()
        call = client.request(prepared.method, prepared.url, headers=dict(prepared.headers), content=prepared.body)
        response = asyncio.run_coroutine_threadsafe(call, loop).result(timeout=120)
        STATUSES[response.status_code] += 1
        answers.append(response.status_code)
        case.validate_response(response, checks=ANSWER_CHECKS)  # refused, rightly: no longer a valid case
        assert 400 <= response.status_code < 500, f"{field}={value}: {response.status_code} {response.text[:300]}"

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @seeded(label, field, value)
    @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
    def run(case: schemathesis.Case) -> None:
        send(case)

    with replayable():
        await asyncio.to_thread(run)
    assert answers, "no request was sent"
