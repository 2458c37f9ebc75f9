"""Property-based fuzzing of the REST API: schemathesis generates requests from the gateway's own
OpenAPI, valid and invalid (bodies, query strings, path ids), sends them with an API key of a fresh
org holding every scope and with one pinned to a user, and runs every check it has (its registry;
``SKIPPED_CHECKS`` names those left out and why) and ours: no 5xx, a documented status, content type
and headers, the documented schema (proto3 JSON on success, the one error body of STYLE.md
otherwise), the credential enforced where the document asks for one (``ignored_auth`` resends
without it and with a wrong one), 405 with ``Allow`` for a method the path does not serve, and so on.
``EXAMPLES`` states the cases per operation; the file keeps within ``FUZZ_BUDGET_SECONDS``.

A run draws its cases from one seed, ``FUZZ_SEED``: ``LORE_FUZZ_SEED`` when set, else one chosen at
random; a failure names it (``LORE_FUZZ_SEED=… scripts/test tests/integration/gateway/test_fuzz.py``
draws the same cases again), and the file's last test prints it.

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
import os
import secrets
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, unquote

import asyncpg
import httpx
import jsonschema
import pytest
import requests
import schemathesis
import uvicorn
from gateway_svc.api.openapi.rules import body_id_field
from gateway_svc.api.openapi.schemas import OBSERVED_FIELDS, resolved
from gateway_svc.config import Settings
from gateway_svc.domain.credentials import ALL_SCOPES
from gateway_svc.server import create_app
from hypothesis import HealthCheck, example, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from lore_runtime.settings import load_settings
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS as CHECK_REGISTRY
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.hooks import HookContext, HookDispatcher, HookScope
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.polling import eventually

# Generated cases per operation, generation mode and key: the org-wide key (every scope) gets the
# most, the key pinned to one user fewer (a pinned caller is refused whole-org routes and other
# users' records, and those answers must be documented too). 49 operations × (20 + 16 org-wide,
# 6 + 4 pinned) ≈ 2,000 cases (fewer where nothing can be made invalid); the last test asks for at
# least MINIMUM_CASES, and for the file to have taken at most FUZZ_BUDGET_SECONDS.
EXAMPLES = {"org-wide": (20, 16), "pinned": (6, 4)}  # key -> (valid, invalid) cases per operation
MINIMUM_CASES = 1_500
FUZZ_BUDGET_SECONDS = 600

# The seed of this run's draws (module docstring). Every run draws new cases unless it is given, and
# any run replays with the seed it names.
FUZZ_SEED = int(os.environ.get("LORE_FUZZ_SEED") or secrets.randbelow(2**32))


def seeded(*drawn_for: str) -> Callable[[Any], Any]:
    """``hypothesis.seed`` of one test's draws: the run's seed mixed with what it fuzzes, so each
    operation draws cases of its own and the same ones again under the same ``FUZZ_SEED``."""
    digest = hashlib.sha256(":".join((str(FUZZ_SEED), *drawn_for)).encode()).digest()
    return seed(int.from_bytes(digest[:8], "big"))


@contextmanager
def replayable() -> Iterator[None]:
    """A failure inside names the seed that draws its cases again."""
    try:
        yield
    except Exception as error:
        error.add_note(f"The cases replay with LORE_FUZZ_SEED={FUZZ_SEED}")
        raise


# Excluded, not fuzzed: POST /v1/admin/reindex re-embeds every memory of every org with the
# configured model (the store's model, not one org's), so each generated case would re-embed the
# whole shared test database; its own tests (test_admin_routes.py) cover it.
EXCLUDED = {"POST /v1/admin/reindex"}


def _document() -> dict[str, Any]:
    """The OpenAPI, read when the tests are collected. The document depends on no setting, so an app
    built with placeholder settings serves the same one (the first test checks it against the
    running app's)."""
    placeholders = {"LORE_DATABASE_URL": "postgresql://collect@localhost/unused", **SERVICE_TOKEN_ENV}
    return create_app(load_settings(Settings, placeholders)).openapi()


def _documented_operations() -> list[str]:
    """Every operation of the OpenAPI."""
    return sorted(f"{method.upper()} {path}" for path, item in _document()["paths"].items() for method in item)


def _path_ids_repeated(document: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Operation -> {path parameter: the body field or query parameter that repeats it}: the
    document says in words (a description) that such a field may be left out and must otherwise
    equal the path's; JSON Schema cannot relate two values."""
    repeated: dict[str, dict[str, str]] = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
            query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
            found = {}
            if "requestBody" in operation:
                body = resolved(document, operation["requestBody"]["content"]["application/json"]["schema"])
                found = {name: field for name in names if (field := body_id_field(body, name))}
            found |= {name: camel for name in names if (camel := _camel(name)) in query}
            if found:
                repeated[f"{method.upper()} {path}"] = found
    return repeated


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _observed_in_the_past(value: Any) -> Any:
    """``value`` with every observed moment (``observedAt``, ``recordedAt``) of a year not yet over
    moved to 2000: such a moment may not lie after now (plus the clock skew), which the document
    says in its description."""
    names = {_camel(name) for name in OBSERVED_FIELDS}
    if isinstance(value, list):
        return [_observed_in_the_past(item) for item in value]
    if not isinstance(value, dict):
        return value
    this_year = time.gmtime().tm_year
    return {
        key: "2000-01-01T00:00:00Z"
        if key in names and isinstance(item, str) and item[:4].isdigit() and int(item[:4]) >= this_year
        else _observed_in_the_past(item)
        for key, item in value.items()
    }


def _without_nul(value: Any) -> Any:
    """``value`` with no NUL in any string or key: the schema states the rule everywhere but deep in
    a Struct (a tool's result), where its description says it (the generator only makes NUL there)."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    return value


def _as_the_document_says_in_words(context: HookContext, case: schemathesis.Case) -> schemathesis.Case:
    """A valid generated case made to keep the rules the document states in words, which JSON Schema
    cannot: a body id or query parameter repeating the path's equals it, a page token is one the
    listing issued (none here: the first page), an observed moment is not in the future, an evidence
    line that may state a figure has its source, what to forget names more than stop words, a search's
    ``validAfter`` is earlier than its ``validBefore``, a global subject has no id, an observation
    names its agent once, no NUL deep in a tool's result."""
    label = f"{case.operation.method.upper()} {case.operation.path}"
    for name, field in REPEATED_PATH_IDS.get(label, {}).items():
        value = unquote(case.path_parameters[name])  # schemathesis holds it URL-encoded
        if isinstance(case.body, dict) and field in case.body:
            numeric = isinstance(case.body[field], int | float) and not isinstance(case.body[field], bool)
            case.body[field] = int(value) if numeric else value
        if case.query and field in case.query:
            case.query[field] = value
        if case.query and _camel(name) in case.query:
            case.query[_camel(name)] = value
    for name, (outer, field) in NESTED_PATH_IDS.get(label, {}).items():
        inner = case.body.get(outer) if isinstance(case.body, dict) else None
        if isinstance(inner, dict) and field in inner:
            inner[field] = unquote(case.path_parameters[name])
    if case.query:
        case.query.pop("pageToken", None)
        if case.query.get("subjectType") == "SUBJECT_TYPE_GLOBAL":
            case.query.pop("subjectId", None)
    if isinstance(case.body, dict):
        case.body = _without_nul(_observed_in_the_past(case.body))
    if label == "POST /v1/memories:forget" and isinstance(case.body, dict) and "about" in case.body:
        case.body["about"] = f"{case.body['about'][:480]} gardening"  # a word that names something
    if isinstance(case.body, dict) and not _ordered(case.body.get("validAfter"), case.body.get("validBefore")):
        case.body.pop("validAfter")
    scope = case.body.get("scope") if isinstance(case.body, dict) else None
    if label == "POST /v1/observations:observe" and isinstance(scope, dict) and case.body.get("agentId"):
        scope.pop("agentId", None)  # the belief's agent is named once
    if label in SOURCED and isinstance(case.body, dict):
        lines = case.body.get("evidence")
        for line in lines if isinstance(lines, list) else [lines] if isinstance(lines, dict) else []:
            if not str(line.get("source", "")).strip():
                line["source"] = "the fuzzer's notes"
    return case


def _ordered(after: Any, before: Any) -> bool:
    """Whether ``after`` is earlier than ``before`` (true when either is missing)."""
    if not (isinstance(after, str) and isinstance(before, str)):
        return True
    try:
        return datetime.fromisoformat(after) < datetime.fromisoformat(before)
    except ValueError:  # more fraction digits than Python reads
        return False


# A path id repeated one level down the body: UpdateMemory's ``memory.id`` must equal the path's or be
# left out (the route's rule; the shared Memory schema cannot say it for one operation). Path
# parameter -> (the body field, the field in it).
NESTED_PATH_IDS = {"PATCH /v1/memories/{memory_id}": {"memory_id": ("memory", "id")}}


# Operations whose evidence lines need a source when their statement states a precise figure (a
# language rule the document states in words).
SOURCED = {"POST /v1/engagement/hypotheses", "POST /v1/engagement/hypotheses/{hypothesis_id}/evidence"}


# Applied to the valid cases only: an invalid one is refused whatever its ids.
AS_DOCUMENTED = HookDispatcher(scope=HookScope.TEST)
AS_DOCUMENTED.register_hook_with_name(_as_the_document_says_in_words, "map_case")


def _pinned_sessions(context: HookContext, case: schemathesis.Case) -> schemathesis.Case:
    """A context for the pinned key names one of its user's sessions or none: a session id the agent
    never issued (not a UUID) is only an org-wide caller's own conversation id (its description)."""
    if case.operation.path == "/v1/context:assemble" and isinstance(case.body, dict):
        try:
            uuid.UUID(str(case.body.get("sessionId")))
        except ValueError:
            case.body.pop("sessionId", None)
    return case


PINNED_VALID = HookDispatcher(scope=HookScope.TEST)
PINNED_VALID.register_hook_with_name(_as_the_document_says_in_words, "map_case")
PINNED_VALID.register_hook_with_name(_pinned_sessions, "map_case")

# The user a required field names, which a credential pinned to a user fills when it is left out
# (user_pin: every ``userId`` and scope takes the pinned user): operation -> (object, field).
PIN_FILLED = {"POST /v1/subjects:forget": ("subject", "userId"), "POST /v1/memories:forget": ("scope", "userId")}


def _not_made_valid_by_the_pin(context: HookContext, case: schemathesis.Case) -> bool:
    """An invalid case for the pinned key, unless what makes it invalid is the user the pin fills."""
    filled = PIN_FILLED.get(f"{case.operation.method.upper()} {case.operation.path}")
    if filled is None or not isinstance(case.body, dict):
        return True
    holder = case.body.get(filled[0])
    return isinstance(holder, dict) and isinstance(holder.get(filled[1]), str) and bool(holder[filled[1]].strip())


def _without_null_fields(value: Any) -> Any:
    """``value`` with every object member whose value is ``null`` left out (a list's items kept)."""
    if isinstance(value, dict):
        return {key: _without_null_fields(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_null_fields(item) for item in value]
    return value


BODY_VALIDATORS: dict[str, Any] = {}


def _invalid_once_null_fields_are_left_out(context: HookContext, case: schemathesis.Case) -> bool:
    """An invalid case, unless only its body is, and only by fields given ``null``: every request
    body's description says such a field is read as left out (proto3's JSON mapping). Its headers
    do not count: the only one documented is the credential, and every case is sent with the key's."""
    meta = case.meta
    if meta is None or not meta.is_negative_at(ParameterLocation.BODY) or not isinstance(case.body, dict):
        return True
    sent_as_generated = set(meta.components) - {ParameterLocation.BODY, ParameterLocation.HEADER}
    if any(meta.is_negative_at(location) for location in sent_as_generated):
        return True
    body = _without_null_fields(case.body)
    if body == case.body:
        return True
    label = f"{case.operation.method.upper()} {case.operation.path}"
    if label not in BODY_VALIDATORS:
        schema = case.operation.definition.raw["requestBody"]["content"]["application/json"]["schema"]
        components = case.operation.schema.raw_schema["components"]
        BODY_VALIDATORS[label] = jsonschema.Draft202012Validator({**schema, "components": components})
    return not BODY_VALIDATORS[label].is_valid(body)


def _with_its_credential_header(context: HookContext, case: schemathesis.Case) -> bool:
    """An invalid case, unless what makes it invalid is a missing ``Authorization``: every case is
    sent with the key's (``ignored_auth`` probes the credential on its own)."""
    secured = bool(case.operation.definition.raw.get("security"))
    return not secured or "authorization" in {name.lower() for name in case.headers or {}}


# Applied to the invalid cases (the pinned key's: also the user its pin fills).
INVALID = HookDispatcher(scope=HookScope.TEST)
INVALID.register_hook_with_name(_with_its_credential_header, "filter_case")
INVALID.register_hook_with_name(_invalid_once_null_fields_are_left_out, "filter_case")
PINNED_INVALID = HookDispatcher(scope=HookScope.TEST)
PINNED_INVALID.register_hook_with_name(_with_its_credential_header, "filter_case")
PINNED_INVALID.register_hook_with_name(_invalid_once_null_fields_are_left_out, "filter_case")
PINNED_INVALID.register_hook_with_name(_not_made_valid_by_the_pin, "filter_case")


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
REPEATED_PATH_IDS = _path_ids_repeated(_document())
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
# minus those named in SKIPPED_CHECKS with the reason: none. positive_data_acceptance holds because
# the document states every rule JSON Schema can say (api/openapi/rules.py), and the hooks below give the
# generator what it can only say in words; negative_data_rejection because the gateway refuses
# what the document does not allow.
SKIPPED_CHECKS: frozenset[str] = frozenset()
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
            await eventually(lambda: server.started or serving.done(), what="the fuzzed gateway serving", interval=0.01)
            assert not serving.done(), "the fuzzed gateway's HTTP server did not start"
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
        if mode is GenerationMode.POSITIVE:
            hooks = PINNED_VALID if key_kind == "pinned" else AS_DOCUMENTED
        else:
            hooks = PINNED_INVALID if key_kind == "pinned" else INVALID

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @seeded(label, key_kind, mode.value)
        @given(case=operation.as_strategy(generation_mode=mode, hooks=hooks))
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
        with replayable():
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
        f" answers {dict(sorted(STATUSES.items()))}; LORE_FUZZ_SEED={FUZZ_SEED}"
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
    @seeded(label, text_class)
    @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE), data=st.data())
    def run(case: schemathesis.Case, data: st.DataObject) -> None:
        send(case, data)

    with replayable():
        await asyncio.to_thread(run)
    assert sent[label] >= 1
