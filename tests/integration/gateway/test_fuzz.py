"""Property-based fuzzing of the REST API: schemathesis generates requests from the gateway's own
OpenAPI, valid and invalid (bodies, query strings, path ids), sends them with an API key of a fresh
org holding every scope and with one pinned to a user, and runs every check it has (its registry;
``SKIPPED_CHECKS`` names those left out and why) and ours: no 5xx, a documented status, content type
and headers, the documented schema (proto3 JSON on success, the one error body of STYLE.md
otherwise), the credential enforced where the document asks for one (``ignored_auth`` resends
without it and with a wrong one), 405 with ``Allow`` for a method the path does not serve, and so on.
``EXAMPLES`` states the cases per operation; the file keeps within ``FUZZ_BUDGET_SECONDS``.

The gateway runs on the session's event loop like every other gateway test (its pools and channels
belong to that loop), served over HTTP by uvicorn on that loop, so schemathesis' own probes reach it
too; Hypothesis runs in a worker thread. The schema is the one the running app serves at
``/openapi.json``, loaded with ``schemathesis.openapi.from_dict``: ``from_asgi`` would start a second
copy of the app's lifespan on schemathesis' own event-loop thread and keep it until the process exits.

Besides what schemathesis generates, every operation gets the text classes of
``lore_runtime.text_rules``: a valid generated request with one of its strings (a body string, a
path or query parameter) replaced by an unpaired surrogate, or by a control or bidirectional
character; the answer must still be no 5xx and documented.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import asyncpg
import httpx
import pytest
import requests
import schemathesis
import uvicorn
from gateway_svc.app import create_app
from gateway_svc.config import Settings
from gateway_svc.domain.credentials import ALL_SCOPES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from lore_runtime.settings import load_settings
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS as CHECK_REGISTRY
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.gateway.conftest import _create_key, gateway_settings

# Generated cases per operation, generation mode and key: the org-wide key (every scope) gets the
# most, the key pinned to one user fewer (a pinned caller is refused whole-org routes and other
# users' records, and those answers must be documented too). 49 operations × (20 + 16 org-wide,
# 6 + 4 pinned) ≈ 2,000 cases (fewer where nothing can be made invalid); the last test asks for at
# least MINIMUM_CASES, and for the file to have taken at most FUZZ_BUDGET_SECONDS.
EXAMPLES = {"org-wide": (20, 16), "pinned": (6, 4)}  # key -> (valid, invalid) cases per operation
MINIMUM_CASES = 1_500
FUZZ_BUDGET_SECONDS = 600

# Excluded, not fuzzed: POST /v1/admin/reindex re-embeds every memory of every org with the
# configured model (the store's model, not one org's), so each generated case would re-embed the
# whole shared test database; its own tests (test_admin_routes.py) cover it.
EXCLUDED = {"POST /v1/admin/reindex"}


def _documented_operations() -> list[str]:
    """Every operation of the OpenAPI, read when the tests are collected. The document depends on
    no setting, so an app built with placeholder settings serves the same one (the first test
    checks it against the running app's)."""
    placeholders = {"LORE_DATABASE_URL": "postgresql://collect@localhost/unused", **SERVICE_TOKEN_ENV}
    app = create_app(load_settings(Settings, placeholders))
    return sorted(f"{method.upper()} {path}" for path, item in app.openapi()["paths"].items() for method in item)


# Requests the fuzzer once answered with 500: a NUL (U+0000) reached Postgres, which refuses it.
# The services now answer 400 (lore_runtime's error interceptor maps the driver's error; the agent's
# ids refuse control characters); each is replayed first, every run, so it stays fixed.
REGRESSIONS = {
    "POST /v1/subjects:forget": {"subject": {"userId": "u\x00"}},
    "POST /v1/sessions": {"scope": {"userId": "u\x00"}},
    "POST /v1/observations:search": {"query": "x\x00"},
    "POST /v1/engagement/unknowns": {"question": "Q", "whyItMatters": "w", "requestId": "\x00r"},
}

OPERATIONS = _documented_operations()
FUZZED = [label for label in OPERATIONS if label not in EXCLUDED]
CASES: Counter[str] = Counter()
STARTED: dict[str, float] = {}  # when the first fuzzed gateway was up (collection is long before, in a full run)
STATUSES: Counter[int] = Counter()


def _error_matches_its_answer(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> None:
    """What the documented error schema cannot say: ``code`` is the answer's HTTP status and
    ``requestId`` the answer's ``X-Request-Id``."""
    if response.status_code >= 400 and response.headers.get("content-type", [""])[0] == "application/json":
        error = json.loads(response.content).get("error", {})
        assert error.get("code") == response.status_code, f"code {error.get('code')} in a {response.status_code}"
        assert error.get("requestId") == response.headers["x-request-id"][0], "requestId is not X-Request-Id"


# Every check schemathesis has (its registry, so a check a new version adds runs too), and ours;
# minus those named in SKIPPED_CHECKS with the reason.
SKIPPED_CHECKS = {
    # proto3's JSON mapping accepts more than the schema documents (null for any field, numbers as
    # strings, enum numbers, the proto's snake_case names), so "invalid" input the parser rightly
    # takes would be reported as accepted.
    "negative_data_rejection",
    # The document states the every-string and id rules of lore_runtime.text_rules on every string,
    # the body and query rules of openapi.BODY_RULES and QUERY_RULES, page sizes and path ids; a
    # schema-valid request can still be refused for rules JSON Schema cannot relate or know: a body id
    # must equal the path's (``sessionId``, ``id``, ``userId``), a ``pageToken`` must be one the
    # service issued, ``about`` must name more than pronouns and stop words, ``updateMask`` an
    # updatable field, a contradiction its evidence, a subject that is not global its ``subjectId``;
    # and for field rules not stated yet (timestamps within 1900..2999, ``options.recallK`` 1..100 on
    # the options AssembleContext and ProcessTurn share, ``personaMode``, metadata keys 1..64
    # characters and values at most 512, a NUL inside a Struct such as ``toolInteractions[].result``
    # or in a field whose not-blank pattern stands in for the every-string one, an UNSPECIFIED enum
    # where one is refused).
    "positive_data_acceptance",
}
CHECKS = [check for check in CHECK_REGISTRY.get_all() if check.__name__ not in SKIPPED_CHECKS]
CHECKS.append(_error_matches_its_answer)
# A request whose string was replaced with a surrogate or control character is no longer the one
# schemathesis generated: only the checks of the answer itself apply to it (it is rightly refused,
# so positive_data_acceptance would not; the auth and method probes ran on the generated ones).
ANSWER_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    _error_matches_its_answer,
]


async def _pinned_key(owner_dsn: str, org_id: str, user_id: str) -> str:
    """A key of ``org_id`` with every scope, pinned to ``user_id`` (``lore keys create --user``)."""
    key = f"test_{uuid.uuid4().hex}{uuid.uuid4().hex}"
    connection = await asyncpg.connect(owner_dsn)
    try:
        await connection.execute(
            "INSERT INTO gateway.api_keys (id, org_id, principal, name, key_hash, scopes, user_id)"
            " VALUES ($1, $2, 'fuzzer', 'pinned', $3, $4, $5)",
            uuid.uuid4(),
            org_id,
            hashlib.sha256(key.encode()).digest(),
            list(ALL_SCOPES),
            user_id,
        )
    finally:
        await connection.close()
    return key


@dataclass(frozen=True)
class Fuzzed:
    """The gateway under fuzzing: its served schema, an in-process client, the URL it listens on
    (schemathesis' own probes, such as an unsupported method or a request without the credential,
    are sent there), and a key of each kind."""

    schema: Any
    client: httpx.AsyncClient
    base_url: str
    keys: dict[str, str]


@pytest.fixture(scope="module")
async def fuzzed(services, migrated_pg, redis_url):
    """A gateway of its own with rate limits off (the fuzzer sends far beyond 50/s, and ignored_auth's
    probes fail authentication on purpose: a 429 would be a valid answer, but says nothing of the
    route), served over HTTP on the test's event loop, its served schema, and two keys of a fresh
    org: one org-wide, one pinned to a user."""
    settings = gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMIT="0", LORE_AUTH_FAILURE_LIMIT="0")
    app = create_app(settings)
    org_id = f"org-fuzz-{uuid.uuid4().hex[:12]}"
    keys = {
        "org-wide": await _create_key(migrated_pg.owner_dsn, org_id),
        "pinned": await _pinned_key(migrated_pg.owner_dsn, org_id, "u-fuzz"),
    }
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="off", log_level="warning"))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as client,
    ):
        serving = asyncio.create_task(server.serve())
        try:
            while not server.started:
                assert not serving.done(), "the fuzzed gateway's HTTP server did not start"
                await asyncio.sleep(0.01)
            port = server.servers[0].sockets[0].getsockname()[1]
            served = (await client.get("/openapi.json")).json()
            STARTED.setdefault("at", time.monotonic())
            yield Fuzzed(schemathesis.openapi.from_dict(served), client, f"http://127.0.0.1:{port}", keys)
        finally:
            server.should_exit = True
            await serving


def test_the_fuzzed_operations_are_those_the_gateway_serves(fuzzed):
    served = sorted(
        f"{method.upper()} {path}" for path, item in fuzzed.schema.raw_schema["paths"].items() for method in item
    )
    assert served == OPERATIONS
    assert EXCLUDED <= set(OPERATIONS), "an exclusion names an operation that no longer exists"


def test_every_check_schemathesis_has_runs_but_those_skipped_with_a_reason():
    known = {check.__name__ for check in CHECK_REGISTRY.get_all()}

    assert SKIPPED_CHECKS <= known, "a skipped check no longer exists"
    assert {check.__name__ for check in CHECKS} == (known - SKIPPED_CHECKS) | {"_error_matches_its_answer"}
    assert {"ignored_auth", "unsupported_method", "allow_header_conformance", "missing_required_header"} <= {
        check.__name__ for check in CHECKS
    }


# Hypothesis notes a deprecation when the global `random` state moves while a strategy draws; here
# it moves because the event-loop thread (gateway, services, drivers) uses `random` meanwhile, not
# because schemathesis' strategies do.
@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@pytest.mark.parametrize("key_kind", sorted(EXAMPLES))
@pytest.mark.parametrize("label", FUZZED)
async def test_generated_requests_get_no_5xx_and_documented_answers(fuzzed, label, key_kind):
    method, path = label.split(" ", 1)
    operation = fuzzed.schema[path][method]
    headers = {"Authorization": f"Bearer {fuzzed.keys[key_kind]}"}
    valid, invalid = EXAMPLES[key_kind]
    sent = Counter()

    def send(case: schemathesis.Case) -> None:
        # Over HTTP, from this worker thread: the loop serves the gateway meanwhile.
        response = case.call(base_url=fuzzed.base_url, headers=headers, timeout=120)
        sent[label] += 1
        STATUSES[response.status_code] += 1
        case.validate_response(
            response, checks=CHECKS, headers=headers, transport_kwargs={"base_url": fuzzed.base_url, "headers": headers}
        )

    def fuzz(mode: GenerationMode, examples: int) -> None:
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def run(case: schemathesis.Case) -> None:
            send(case)

        if label in REGRESSIONS and mode is GenerationMode.POSITIVE:
            run = example(case=operation.Case(body=REGRESSIONS[label]))(run)
        run()

    def both() -> None:
        fuzz(GenerationMode.POSITIVE, valid)
        try:
            fuzz(GenerationMode.NEGATIVE, invalid)
        except Unsatisfiable:
            pass  # nothing can be made invalid: no body, and only free-form strings or no parameters

    try:
        await asyncio.to_thread(both)  # the loop stays free to serve the gateway and the services
    finally:
        CASES.update(sent)


def test_enough_cases_were_generated_within_the_budget():
    """Over the whole API, at least MINIMUM_CASES; when a run selects only some operations (``-k``),
    the same share of it for those: the bar holds per operation, never skipped. The file's tests so
    far took at most FUZZ_BUDGET_SECONDS."""
    total = sum(CASES.values())
    took = time.monotonic() - STARTED.get("at", time.monotonic())
    print(
        f"fuzzing: {total} generated cases over {len(CASES)} operations in {took:.0f} s,"
        f" answers {dict(sorted(STATUSES.items()))}"
    )
    assert CASES, "no operation was fuzzed"
    assert total >= MINIMUM_CASES * len(CASES) / len(FUZZED), CASES
    assert not STATUSES[429], "a limiter answered instead of the routes: the cases tested nothing"
    assert took <= FUZZ_BUDGET_SECONDS, f"fuzzing took {took:.0f} s, more than its {FUZZ_BUDGET_SECONDS} s"


# The text classes (lore_runtime.text_rules): values a string of a valid request is replaced with.
# A surrogate can be written in JSON ("\\ud800") or sent as its UTF-8 bytes (%ED%A0%80) in a URL.
TEXT_CLASSES = {
    "surrogate": ["\ud800", "a\udfffb", "\udbff\udc00\udbff"],
    "control": ["a\nb", "\u202eabc", "\u2066x\u2069", "a\x1fb", "\x7f", "\u200f", "a\r\nb", "\ufeffx"],
}
TEXT_EXAMPLES = 6


def _body_strings(value: Any, path: tuple = ()) -> list[tuple]:
    """The location (keys and indexes) of every string in a JSON value."""
    if isinstance(value, str):
        return [path]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _body_strings(item, (*path, key))]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _body_strings(item, (*path, index))]
    return []


def _replaced(value: Any, path: tuple, new: str) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    return [_replaced(item, rest, new) if index == head else item for index, item in enumerate(value)]


def _url_text(value: str) -> str:
    """``value`` percent-encoded as UTF-8, a surrogate as its own bytes (what a client can send)."""
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@pytest.mark.parametrize("text_class", sorted(TEXT_CLASSES))
@pytest.mark.parametrize("label", FUZZED)
async def test_a_surrogate_or_control_character_in_any_string_gets_no_5xx(fuzzed, label, text_class):
    schema, client, key = fuzzed.schema, fuzzed.client, fuzzed.keys["org-wide"]
    method, path = label.split(" ", 1)
    operation = schema[path][method]
    loop = asyncio.get_running_loop()
    sent = Counter()

    def send(case: schemathesis.Case, data: st.DataObject) -> None:
        bad = data.draw(st.sampled_from(TEXT_CLASSES[text_class]), label="value")
        places = [("body", found) for found in _body_strings(case.body)]
        places += [("path", name) for name in sorted(case.path_parameters or {})]
        places += [("query", name) for name in sorted(case.query or {})] or [("query", "x")]
        where, name = data.draw(st.sampled_from(places), label="where")
        body = _replaced(case.body, name, bad) if where == "body" else case.body
        replaced = case.operation.Case(
            body=body,
            path_parameters=case.path_parameters,
            query={k: v for k, v in (case.query or {}).items() if (where, k) != ("query", name)},
            headers=case.headers,
            media_type=case.media_type,
        )
        prepared = requests.Request(
            **replaced.as_transport_kwargs(base_url="http://gateway", headers={"Authorization": f"Bearer {key}"})
        ).prepare()
        url = prepared.url
        if where == "path":  # the value's own bytes in place of the generated one, as a client sends it
            values = {k: _url_text(str(v)) for k, v in case.path_parameters.items()} | {name: _url_text(bad)}
            query = url.partition("?")[2]
            url = "http://gateway" + path.format(**values) + (f"?{query}" if query else "")
        elif where == "query":
            url += ("&" if "?" in url else "?") + f"{quote(name)}={_url_text(bad)}"
        call = client.request(prepared.method, url, headers=dict(prepared.headers), content=prepared.body)
        response = asyncio.run_coroutine_threadsafe(call, loop).result(timeout=120)
        sent[label] += 1
        STATUSES[response.status_code] += 1
        replaced.validate_response(response, checks=ANSWER_CHECKS)

    @settings(max_examples=TEXT_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE), data=st.data())
    def run(case: schemathesis.Case, data: st.DataObject) -> None:
        send(case, data)

    await asyncio.to_thread(run)
    assert sent[label] >= 1
