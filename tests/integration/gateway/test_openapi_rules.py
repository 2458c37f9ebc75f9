"""The OpenAPI document states the rules the gateway and the services enforce beyond a message's
shape — page-size ranges, UUID session ids, required fields, a body id equal to the path's — and a
request breaking one is a 400 naming the field, so a client that follows the document is never
refused with a 400 it could not predict."""

from __future__ import annotations

import copy
import re
import uuid

import pytest
from gateway_svc.api.openapi.rules import NOT_BLANK, OBSERVABLE, PAGE_SIZES, PATH_PATTERNS, QUERY_RULES
from gateway_svc.api.openapi.schemas import MAX_SCOPE_ID_CHARS, SCOPE_ID, SPEAKER, resolved, string_schema
from gateway_svc.config import Settings
from gateway_svc.server import create_app
from lore_runtime.settings import load_settings
from lore_runtime.text_rules import is_id_name

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.gateway.conftest import _create_key, asgi_client


@pytest.fixture
async def client(gateway, migrated_pg):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    async with asgi_client(gateway, key) as client:
        yield client


@pytest.fixture
async def document(client):
    return (await client.get("/openapi.json")).json()


def _refused_naming(answer, field: str) -> bool:
    error = answer.json()["error"]
    return answer.status_code == 400 and field in f"{error['message']} {error['details']}"


def _parameter(document, method: str, path: str, name: str) -> dict:
    [found] = [p for p in document["paths"][path][method].get("parameters", []) if p["name"] == name]
    return found


@pytest.mark.parametrize("path", sorted(PAGE_SIZES))
async def test_page_sizes_are_stated_and_enforced(client, document, path):
    refused_above, largest = PAGE_SIZES[path]
    parameter = _parameter(document, "get", path, "pageSize")
    assert parameter["schema"]["minimum"] == 0 and parameter["schema"].get("maximum") == refused_above
    assert f"at most {largest}" in parameter["description"]
    concrete = path
    if "{session_id}" in path:  # a session that exists: an unknown one is a 404 before its page is read
        example = document["paths"]["/v1/sessions"]["post"]["requestBody"]["content"]["application/json"]["example"]
        started = await client.post("/v1/sessions", json=example)
        concrete = path.replace("{session_id}", started.json()["session"]["id"])
    negative = await client.get(concrete, params={"pageSize": -1})
    assert _refused_naming(negative, "page"), (path, negative.text)
    if refused_above is not None:
        too_many = await client.get(concrete, params={"pageSize": refused_above + 1})
        assert _refused_naming(too_many, "page"), (path, too_many.text)


QUERY_CASES = [
    (path, name, keyword, value)
    for path, rules in sorted(QUERY_RULES.items())
    for name, rule in rules.items()
    for keyword, value in rule.items()
]


@pytest.mark.parametrize(("path", "name", "keyword", "value"), QUERY_CASES)
async def test_query_rules_are_stated_and_enforced(client, document, path, name, keyword, value):
    """A query parameter's stated rule (``rules.QUERY_RULES``): broken, a 400 naming it; at its limit, served."""
    assert _parameter(document, "get", path, name)["schema"][keyword] == value
    concrete = path.replace("{user_id}", "u-rules")
    broken = {
        "minimum": lambda: value - 1,
        "maximum": lambda: value + 1,
        "maxLength": lambda: "x" * (value + 1),
        "maxItems": lambda: ["t"] * (value + 1),
        "items": lambda: ["x" * (value["maxLength"] + 1)],  # a list's items: each at most so long
    }
    answer = await client.get(concrete, params={name: broken.get(keyword, lambda: "Not An Id!")()})
    assert answer.status_code == 400 and _named(name) in _named(answer.text), (path, name, keyword, answer.text)
    if keyword in BOUNDARIES or keyword == "items":
        at_limit = {
            "maxLength": lambda: "x" * value,
            "maxItems": lambda: ["t"] * value,
            "items": lambda: ["x" * value["maxLength"]],
        }.get(keyword, lambda: value)()
        answer = await client.get(concrete, params={name: at_limit})
        assert answer.status_code == 200, (path, name, keyword, answer.text[:500])


async def test_session_ids_are_stated_as_uuids_and_enforced(client, document):
    for path, item in document["paths"].items():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "session_id":
                    assert parameter["schema"]["format"] == "uuid", path
    answer = await client.get("/v1/sessions/not-a-uuid")
    assert _refused_naming(answer, "session"), answer.text


async def test_a_thread_index_is_stated_as_ascii_digits_and_enforced(client, document):
    parameter = _parameter(document, "post", "/v1/open-threads/{episode_id}/{thread_index}:resolve", "thread_index")
    assert parameter["schema"]["pattern"] == PATH_PATTERNS["thread_index"]
    answer = await client.post(f"/v1/open-threads/{uuid.uuid4()}/%C2%B9:resolve")  # "¹", a digit to str.isdigit
    assert _refused_naming(answer, "threadIndex"), answer.text
    assert re.fullmatch(PATH_PATTERNS["thread_index"], "1000") and not re.fullmatch(
        PATH_PATTERNS["thread_index"], "1001"
    )
    answer = await client.post(f"/v1/open-threads/{uuid.uuid4()}/1001:resolve")  # past the largest index
    assert _refused_naming(answer, "threadIndex"), answer.text


async def test_a_profiles_user_is_stated_as_more_than_spaces_and_enforced(client, document):
    parameter = _parameter(document, "get", "/v1/users/{user_id}/profile", "user_id")
    assert parameter["schema"]["pattern"] == PATH_PATTERNS["user_id"]
    assert not re.search(PATH_PATTERNS["user_id"], "\u00a0 ") and re.search(PATH_PATTERNS["user_id"], " u-1")
    answer = await client.get("/v1/users/%C2%A0/profile")  # a no-break space only
    assert _refused_naming(answer, "userId"), answer.text


# The keywords a request body's rule is stated with (rules.BODY_RULES), and how each is broken.
RULE_KEYWORDS = ("required", "minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems")
RULE_KEYWORDS += ("maxProperties", "exclusiveMaximum")


def _stated_rules(document: dict, schema: dict, field: str = "", seen: frozenset = frozenset()):
    """(field, keyword, value) of every rule a request body's schema states, however deep: ``field``
    in JSON names, dotted, ``[]`` for an array's items."""
    name = schema.get("$ref", "")
    if name in seen:
        return
    schema = resolved(document, schema)
    for prop, prop_schema in schema.get("properties", {}).items():
        path = f"{field}.{prop}" if field else prop
        if prop in schema.get("required", []):
            yield path, "required", True
        general = _general_rules(prop, prop_schema)
        for keyword in RULE_KEYWORDS[1:]:
            if keyword in prop_schema and general.get(keyword) != prop_schema[keyword]:
                yield path, keyword, prop_schema[keyword]
        inner = prop_schema.get("items", prop_schema) if prop_schema.get("type") == "array" else prop_schema
        if "$ref" in inner:
            yield from _stated_rules(document, inner, path + ("[]" if inner is not prop_schema else ""), seen | {name})


def _general_rules(name: str, schema: dict) -> dict:
    """The rules every string of its kind states (``schemas.string_schema``: text_rules' no NUL, an
    id's characters and length; a scope id's and a speaker's): held to the services by the tests of
    text rules and the fuzzer, not here; and a float's range, which is the type's own."""
    if schema.get("format") == "float":
        return {"minimum": schema["minimum"], "maximum": schema["maximum"]}
    single = schema.get("items", schema)
    if single.get("type") != "string" or (schema is not single and schema.get("type") != "array"):
        return {}
    general = string_schema(id_rule=is_id_name(name)) if schema is single else {}
    scoped = schema.get("maxLength") == MAX_SCOPE_ID_CHARS and name in ("userId", "agentId", "teamId")
    if name == "speaker":
        general |= SPEAKER
    return general | (SCOPE_ID if scoped else {})


def _documented_rules() -> dict[str, list[tuple[str, str, object]]]:
    """Operation id -> the rules its request body states (read when the tests are collected; the
    document depends on no setting)."""
    placeholders = {"LORE_DATABASE_URL": "postgresql://collect@localhost/unused", **SERVICE_TOKEN_ENV}
    document = create_app(load_settings(Settings, placeholders)).openapi()
    found = {}
    for item in document["paths"].values():
        for operation in item.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            rules = list(_stated_rules(document, body["schema"])) if body else []
            if rules:
                found[operation["operationId"]] = rules
    return found


DOCUMENTED_RULES = _documented_rules()


def _holder(body, field: str):
    """The object holding ``field`` in ``body`` (an array's first item), and the field's name in it."""
    *parents, last = field.split(".")
    holder = body
    for part in parents:
        holder = holder[part.removesuffix("[]")]
        if part.endswith("[]"):
            holder = holder[0]
    return holder, last


def _copies(current, count: int) -> list:
    """``count`` items like an array's first."""
    return [copy.deepcopy(current[0]) if current else f"t{index}" for index in range(count)]


# The limits with a value at the limit itself to try: it must be served.
BOUNDARIES = {"maxLength": "x", "minimum": 0, "maximum": 0, "maxItems": [], "maxProperties": {}}


# Fields compared with what is stored: at the limit, one that no longer matches is a 409 (a conflict
# of state, not a refusal of the field): the week has moved on once the example has advanced it.
COMPARED_WITH_STATE = {"expectedWeekNumber"}

WRITE_KEYS = ("idempotencyKey", "requestId")


def _without_keys(value):
    """``value`` without idempotency keys and request ids: each names one write, and the example's was made."""
    if isinstance(value, dict):
        return {name: _without_keys(item) for name, item in value.items() if name not in WRITE_KEYS}
    if isinstance(value, list):
        return [_without_keys(item) for item in value]
    return value


def _at_limit(body, field: str, keyword: str, value):
    """A copy of ``body`` (``_without_keys``) whose ``field`` is at the limit ``keyword: value`` itself."""
    body = _without_keys(body)
    holder, last = _holder(body, field)
    if keyword == "maxLength":
        holder[last] = "x" * value
    elif keyword in ("minimum", "maximum"):
        holder[last] = value
    elif keyword == "maxItems":
        holder[last] = _copies(holder.get(last), value)
    elif keyword == "maxProperties":
        holder[last] = {f"k{index}": "v" for index in range(value)}
    return body


def _broken(body, field: str, keyword: str, value):
    """A copy of ``body`` whose ``field`` breaks the rule ``keyword: value`` (an array's first item)."""
    body = copy.deepcopy(body)
    holder, last = _holder(body, field)
    if keyword == "required":
        holder.pop(last, None)
    elif keyword == "minLength" or (keyword == "pattern" and value == NOT_BLANK):
        holder[last] = " " if keyword == "pattern" else ""
    elif keyword == "pattern":
        holder[last] = "Not A Slot!"
    elif keyword == "maxLength":
        holder[last] = "x" * (value + 1)
    elif keyword == "minimum":
        holder[last] = value - 1
    elif keyword == "maximum":
        holder[last] = value + 1
    elif keyword == "exclusiveMaximum":
        holder[last] = value
    elif keyword == "minItems":
        holder[last] = []
    elif keyword == "maxItems":
        holder[last] = _copies(holder.get(last), value + 1)
    elif keyword == "maxProperties":
        holder[last] = {f"k{index}": "v" for index in range(value + 1)}
    return body


def _named(field: str) -> str:
    """A field's name as the services' errors may spell it, for comparing: no case, no ``_``, no index."""
    return re.sub(r"\[\d*\]", "", field).replace("_", "").lower()


@pytest.mark.parametrize("operation_id", sorted(DOCUMENTED_RULES))
async def test_each_rule_a_request_body_states_is_the_services_rule(client, document, operation_id):
    """For each operation, every rule its body's schema states: the documented example is served,
    the example with that one rule broken is a 400 naming the field, and one at a limit itself (the
    longest string, the largest number or array) is not refused for that field: the document is
    neither looser nor stricter than the services."""
    [(method, path, operation)] = [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if operation["operationId"] == operation_id
    ]
    concrete = path
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            value = str(parameter["example"])
            if parameter["name"] == "session_id":  # a session that exists: an unknown one is a 404 first
                value = (await client.post("/v1/sessions", json={"scope": {"userId": "u-rules"}})).json()
                value = value["session"]["id"]
            concrete = concrete.replace(f"{{{parameter['name']}}}", value)
    example = operation["requestBody"]["content"]["application/json"]["example"]
    served = await client.request(method.upper(), concrete, json=example)
    # An example naming a record by id in its path (a hypothesis, a memory) names none this org
    # holds: its body is read and held to every rule before the record is looked up (404).
    named_record = any(p["in"] == "path" and p["name"] != "session_id" for p in operation.get("parameters", []))
    accepted = (200, 404) if named_record else (200,)
    assert served.status_code in accepted, (operation_id, served.text)
    for field, keyword, value in DOCUMENTED_RULES[operation_id]:
        if operation_id == "sessions.importTurns":  # a turn imported before is skipped, not read again
            example = _without_keys(example)
            example["turns"][0]["content"] += f" ({field} {keyword})"
        answer = await client.request(method.upper(), concrete, json=_broken(example, field, keyword, value))
        error = answer.json().get("error", {})
        named = _named(f"{error.get('message', '')} {error.get('details', '')}")
        assert answer.status_code == 400 and _named(field) in named, (operation_id, field, keyword, answer.text)
        if keyword in BOUNDARIES:
            answer = await client.request(method.upper(), concrete, json=_at_limit(example, field, keyword, value))
            at_limit = (*accepted, 409) if field in COMPARED_WITH_STATE else accepted
            assert answer.status_code in at_limit, (operation_id, field, keyword, value, answer.text[:500])


def test_the_rules_of_observe_search_and_remember_are_stated():
    """The rules a client most often trips over stand in the document (the test above holds every
    stated one to the services)."""
    assert ("memories[].memoryType", "required", True) in DOCUMENTED_RULES["memories.remember"]
    assert ("candidate.slot", "pattern", "^[a-z0-9_.-]{1,64}$") in DOCUMENTED_RULES["observations.observe"]
    assert ("query", "required", True) in DOCUMENTED_RULES["memories.search"]
    assert ("query", "required", True) in DOCUMENTED_RULES["observations.searchObservations"]
    assert ("message", "required", True) in DOCUMENTED_RULES["context.assembleContext"]
    assert ("statement", "required", True) in DOCUMENTED_RULES["engagement.formHypothesis"]
    assert ("question", "required", True) in DOCUMENTED_RULES["engagement.addUnknown"]
    assert ("expectedWeekNumber", "minimum", 1) in DOCUMENTED_RULES["engagement.advanceWeek"]
    assert ("threshold", "exclusiveMaximum", 1) in DOCUMENTED_RULES["admin.runConsolidation"]
    assert ("minConfidence", "maximum", 1) in DOCUMENTED_RULES["observations.searchObservations"]
    assert ("candidate.subjectId", "pattern", OBSERVABLE["pattern"]) in DOCUMENTED_RULES["observations.observe"]


async def test_a_body_id_must_equal_the_path_id_and_the_document_says_so(client, document):
    stated = {
        path
        for path, item in document["paths"].items()
        for operation in item.values()
        if "the path's" in operation.get("requestBody", {}).get("description", "")
    }
    assert {
        "/v1/sessions/{session_id}:end",
        "/v1/sessions/{session_id}/turns",
        "/v1/sessions/{session_id}/turns:import",
        "/v1/observations/{observation_id}:confirm",
        "/v1/observations/{observation_id}:contradict",
        "/v1/engagement/hypotheses/{hypothesis_id}:revise",
        "/v1/engagement/unknowns/{unknown_id}:resolve",
    } <= stated
    end = document["paths"]["/v1/sessions/{session_id}:end"]["post"]["requestBody"]
    end_schema = resolved(document, end["content"]["application/json"]["schema"])
    assert "a different value is refused" in end_schema["properties"]["id"]["description"]
    answer = await client.post(f"/v1/sessions/{uuid.uuid4()}:end", json={"id": str(uuid.uuid4())})
    assert _refused_naming(answer, "id"), answer.text


async def test_each_operation_takes_a_credential_exactly_when_the_document_says_so(gateway, document):
    """Without a credential, an operation whose ``security`` names the bearer scheme is a 401 and one
    whose ``security`` is empty is served (the probes and metrics)."""
    checked = 0
    async with asgi_client(gateway) as anonymous:
        for path, item in document["paths"].items():
            for method, operation in item.items():
                concrete = path
                for parameter in operation.get("parameters", []):
                    if parameter["in"] == "path":
                        concrete = concrete.replace(f"{{{parameter['name']}}}", str(parameter["example"]))
                answer = await anonymous.request(
                    method.upper(), concrete, json={} if "requestBody" in operation else None
                )
                if operation["security"]:
                    assert operation["security"] == [{"bearer": operation["security"][0]["bearer"]}]
                    assert answer.status_code == 401, (method, path, answer.status_code)
                    assert answer.headers["www-authenticate"].startswith("Bearer")
                else:
                    assert answer.status_code in (200, 503), (method, path, answer.status_code)
                checked += 1
    assert checked == sum(len(item) for item in document["paths"].values())


@pytest.mark.parametrize(
    ("operation_id", "field"),
    [("sessions.startSession", "scope.userId"), ("memories.remember", "memories[].scope.agentId")],
)
async def test_the_id_rule_every_id_field_states_is_the_services_rule(client, document, operation_id, field):
    """The id rule (``schemas.string_schema``) stated on a scope's id, with no surrounding spaces
    (``schemas.SCOPE_ID``): a bidi override, a line break or a leading space in it is a 400 naming
    it, one character past MAX_SCOPE_ID_CHARS too, and an id at the limit is served."""
    [(method, path, operation)] = [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if operation["operationId"] == operation_id
    ]
    body = resolved(document, operation["requestBody"]["content"]["application/json"]["schema"])
    *parents, name = field.split(".")
    holder = body
    for part in parents:
        holder = resolved(document, holder["properties"][part.removesuffix("[]")])
        holder = resolved(document, holder.get("items", holder))
    assert holder["properties"][name] == {"type": "string", **string_schema(id_rule=True), **SCOPE_ID}
    example = _without_keys(operation["requestBody"]["content"]["application/json"]["example"])
    for value in ("u\u202eevil", "u\nx", " u", "u" * (MAX_SCOPE_ID_CHARS + 1)):
        broken = copy.deepcopy(example)
        container, last = _holder(broken, field)
        container[last] = value
        answer = await client.request(method.upper(), path, json=broken)
        error = answer.json().get("error", {})
        assert answer.status_code == 400 and _named(field) in _named(error.get("message", "")), (value, answer.text)
        assert re.search(holder["properties"][name]["pattern"], value) is None or len(value) > MAX_SCOPE_ID_CHARS
    at_limit = copy.deepcopy(example)
    container, last = _holder(at_limit, field)
    container[last] = "u" * MAX_SCOPE_ID_CHARS
    answer = await client.request(method.upper(), path, json=at_limit)
    assert answer.status_code != 400, answer.text[:500]


async def test_a_nul_in_any_string_or_map_key_is_refused_as_the_document_states(client, document):
    """The every-string rule stated on free text and on a map's keys: a NUL in either is a 400 naming the field."""
    remember = document["paths"]["/v1/memories"]["post"]["requestBody"]["content"]["application/json"]
    memory = resolved(document, resolved(document, remember["schema"])["properties"]["memories"]["items"])
    metadata = memory["properties"]["metadata"]
    assert re.search(metadata["propertyNames"]["pattern"], "k\x00") is None
    assert re.search(metadata["additionalProperties"]["pattern"], "v\x00") is None
    for metadata_value in ({"k\x00": "v"}, {"k": "v\x00"}):
        body = _without_keys(remember["example"])
        body["memories"][0]["metadata"] = metadata_value
        answer = await client.post("/v1/memories", json=body)
        assert answer.status_code == 400 and "metadata" in answer.json()["error"]["message"], answer.text
