"""Rules the services enforce that a message descriptor cannot say, stated in the OpenAPI document so a
client can keep to them: page sizes and tokens, path parameters' patterns, query parameters' rules,
and each request body's (``BODY_RULES``) and named schema's (``SCHEMA_RULES``) rules, written into
the schemas ``schemas.py`` derived by ``with_enforced_rules``."""

from __future__ import annotations

from collections import Counter
from typing import Any

from lore_runtime.page_tokens import MAX_TOKEN_CHARS
from lore_runtime.text_rules import OBSERVABLE_ID

from gateway_svc.api.openapi.schemas import (
    COMPONENTS,
    NAMED,
    TEXT_PATTERN,
    id_pattern,
    references,
    resolved,
    string_schema,
)

# Rules the services enforce that a message descriptor cannot say, stated in the document so a client
# can keep to them. A listing's page size: (the largest one accepted, None when a larger one is served
# as the largest, that largest).
PAGE_SIZES: dict[str, tuple[int | None, int]] = {
    "/v1/memories": (500, 500),
    "/v1/sessions": (500, 500),
    "/v1/sessions/{session_id}/turns": (500, 500),
    "/v1/admin/jobs:list": (500, 500),
    "/v1/observations": (None, 200),
    "/v1/episodes": (None, 100),
    "/v1/open-threads": (None, 100),
}
# Path parameters that are UUIDs (anything else is a 400 naming the parameter).
UUID_PATH_PARAMETERS = frozenset({"session_id", "hypothesis_id", "unknown_id"})
# Path parameters held to a pattern (anything else is a 400 naming the parameter).
PATH_PATTERNS = {
    "thread_index": "^0*(?:[0-9]{1,3}|1000)$",  # 0 to 1,000 (routes/memories.MAX_THREAD_INDEX)
    # A profile's user: the id rule, and more than spaces (the assembler trims it, then requires it).
    "user_id": "(?=[^\\u0000]*\\S)" + id_pattern(),
}
# What the services refuse in a request body beyond its message's shape, stated in the document so a
# client can keep to it: operation id -> {field: JSON Schema keywords}. A field is written with its
# JSON names, dotted, ``[]`` for an array's items (``memories[].memoryType``); ``"required": True``
# puts it in its object's ``required``. Each rule is stated in the named schema holding the field,
# which must then belong to that operation's request alone (``with_enforced_rules`` refuses to state
# it for another operation's body or an answer too). tests/integration/gateway/test_openapi_rules.py
# breaks each rule on a real stack and asks for a 400 naming the field.
# Holds a character that is not a space (the services trim before they check), and no NUL (the
# every-string rule, which this pattern stands in for).
NOT_BLANK = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"
# A page token is opaque, and only one the listing itself answered (``nextPageToken``) is taken:
# JSON Schema cannot say which were issued, so the document states its alphabet and length, and
# its description the rest (lore_runtime.page_tokens).
PAGE_TOKEN = {
    "maxLength": MAX_TOKEN_CHARS,
    "pattern": "^$|^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$",
    "description": "Empty for the first page; else the `nextPageToken` the same listing (same filters) "
    "answered. Any other token is refused (400).",
}
# The agent's job kinds and states (agent_svc.domain.jobs), stated as patterns (a generated client
# keeps them strings, as the CLI and the examples pass them); empty: every one.
JOB_KINDS = ("reflect", "episode", "erase")
JOB_STATES = ("queued", "running", "retrying", "dead")
# An agent or subject id an observation may name: empty, or ``text_rules.OBSERVABLE_ID``.
OBSERVABLE = {"maxLength": 128, "pattern": f"^$|{OBSERVABLE_ID.pattern}"}
# Path -> its query parameters' rules the services enforce (budgets, unit intervals, observable ids).
QUERY_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "/v1/memory/prime": {"budgetTokens": {"minimum": 0, "maximum": 4_000}},
    "/v1/episodes": {"minSalience": {"minimum": 0}},
    "/v1/users/{user_id}/profile": {"budgetTokens": {"minimum": 0, "maximum": 4_000}, "agentId": OBSERVABLE},
    "/v1/observations": {
        "minConfidence": {"minimum": 0, "maximum": 1},
        "agentId": OBSERVABLE,
        "subjectId": OBSERVABLE,
        # observations_svc's limits: MAX_TAGS of MAX_TAG_CHARS each; a canonical key of 512 characters.
        "tags": {"maxItems": 20, "items": {"type": "string", "maxLength": 64, "pattern": TEXT_PATTERN}},
        "canonicalKey": {"maxLength": 512},
    },
    "/v1/admin/jobs:list": {
        "kind": {"pattern": f"^(?:{'|'.join(JOB_KINDS)})?$"},
        "state": {"pattern": f"^(?:{'|'.join(JOB_STATES)})?$"},
    },
}


def _required_text(most: int) -> dict[str, Any]:
    """A text the service trims and then requires, of at most ``most`` characters."""
    return {"required": True, "minLength": 1, "maxLength": most, "pattern": NOT_BLANK}


# UpdateMemory's mask names at least one updatable field (memory_svc's manage_memories.UPDATABLE).
_UPDATABLE = "(?:content|importance|status|metadata|entities|validAt)"
_SCOPE_NAMES = ("userId", "agentId", "teamId")
_CONTENT = {"minLength": 1, "maxLength": 16_000, "pattern": NOT_BLANK}  # memory_svc's limits
_ENTITIES = {"maxItems": 64, "items": {"type": "string", "maxLength": 200, "pattern": TEXT_PATTERN}}


def _when_masked(name: str, memory: dict[str, Any]) -> dict[str, Any]:
    """UpdateMemory's ``memory`` held to ``memory`` when ``updateMask`` names ``name``."""
    return {
        "if": {"required": ["updateMask"], "properties": {"updateMask": {"pattern": f"(?:^|,){name}(?:,|$)"}}},
        "then": {"required": ["memory"], "properties": {"memory": memory}},
    }


# What a query parameter must be that JSON Schema cannot relate to another parameter, in words.
QUERY_WORDS: dict[str, dict[str, str]] = {
    "/v1/observations": {"subjectId": "Left out (or empty) when `subjectType` is SUBJECT_TYPE_GLOBAL"},
}

BODY_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "memories.remember": {
        "memories": {"required": True, "minItems": 1, "maxItems": 100},
        "memories[].content": {"required": True, **_CONTENT},
        "memories[].entities": _ENTITIES,
        "memories[].memoryType": {"required": True, "not": {"const": "MEMORY_TYPE_UNSPECIFIED"}},
        "memories[].importance": {"minimum": 0, "maximum": 1},
        "memories[].metadata": {"maxProperties": 32},
        "memories[].idempotencyKey": {"maxLength": 256},
    },
    "memories.search": {
        "query": {"required": True, "minLength": 1, "maxLength": 4_000, "pattern": NOT_BLANK},
        "validBefore": {"description": "Later than `validAfter` when both are given"},
        "k": {"minimum": 0, "maximum": 100},
        "minSalience": {"minimum": 0},
    },
    "memories.forgetAbout": {
        "scope.agentId": OBSERVABLE,
        "about": {
            "required": True,
            "minLength": 1,
            "maxLength": 500,
            "pattern": NOT_BLANK,
            "description": "What to forget: at least one word that is not only a pronoun or a stop word",
        },
        "scope": {"required": True},
        "scope.userId": {"required": True, "minLength": 1},
    },
    "observations.searchObservations": {
        "query": {"required": True, "minLength": 1, "maxLength": 2_000, "pattern": NOT_BLANK},
        "k": {"minimum": 0, "maximum": 100},
        "minConfidence": {"minimum": 0, "maximum": 1},
        "agentId": OBSERVABLE,
    },
    "observations.observe": {
        "agentId": OBSERVABLE,
        "scope.agentId": {
            **OBSERVABLE,
            "description": "The agent whose belief this is, when `agentId` is empty; else left out or `agentId`",
        },
        "candidate": {
            "required": True,
            # A global subject has no id; any other is named by one.
            "if": {"required": ["subjectType"], "properties": {"subjectType": {"const": "SUBJECT_TYPE_GLOBAL"}}},
            "then": {"properties": {"subjectId": {"maxLength": 0}}},
            "else": {"required": ["subjectId"], "properties": {"subjectId": {"minLength": 1}}},
        },
        "candidate.kind": {"required": True, "not": {"const": "OBSERVATION_KIND_UNSPECIFIED"}},
        "candidate.subjectType": {"required": True, "not": {"const": "SUBJECT_TYPE_UNSPECIFIED"}},
        "candidate.subjectId": OBSERVABLE,
        "candidate.slot": {"required": True, "minLength": 1, "maxLength": 64, "pattern": "^[a-z0-9_.-]{1,64}$"},
        "candidate.summary": {"required": True, "minLength": 1, "maxLength": 1_000, "pattern": NOT_BLANK},
        "candidate.detail": {"maxLength": 4_000},
        "candidate.tags": {"maxItems": 20},
        "candidate.tags[]": {"minLength": 1, "maxLength": 64, "pattern": NOT_BLANK},
        "candidate.evidence": {"maxItems": 50},
        "candidate.evidence[].stance": {"required": True, "not": {"const": "EVIDENCE_STANCE_UNSPECIFIED"}},
    },
    "engagement.formHypothesis": {
        "statement": {"required": True, "minLength": 1, "maxLength": 500, "pattern": NOT_BLANK},
    },
    "engagement.addUnknown": {
        "question": _required_text(1_000),
        "whyItMatters": _required_text(1_000),
    },
    "engagement.advanceWeek": {"expectedWeekNumber": {"minimum": 1}},
    "sessions.processTurn": {"turn": {"required": True}},
    "sessions.importTurns": {"turns": {"required": True, "minItems": 1, "maxItems": 500}},
    "context.assembleContext": {
        "message": {"required": True, "minLength": 1, "maxLength": 4_000, "pattern": NOT_BLANK},
        "sessionId": {
            "description": "A session of the agent's (its id, a UUID), or the caller's own conversation id; "
            "with a credential pinned to a user, only a session of that user's"
        },
    },
    "admin.runConsolidation": {"threshold": {"minimum": 0.8, "exclusiveMaximum": 1}},
    "admin.runRevalidation": {"agentId": OBSERVABLE},
    "admin.retryJobs": {"kinds[]": {"pattern": f"^(?:{'|'.join(JOB_KINDS)})$"}},
    "memories.updateMemory": {
        "updateMask": {"required": True, "pattern": f"^{_UPDATABLE}(?:,{_UPDATABLE})*$"},
        # A field the mask names is checked as a new memory's would be; the others are not read.
        ".": {
            "allOf": [
                _when_masked("content", {"required": ["content"], "properties": {"content": _CONTENT}}),
                _when_masked("importance", {"properties": {"importance": {"minimum": 0, "maximum": 1}}}),
                _when_masked(
                    "status",
                    {"required": ["status"], "properties": {"status": {"not": {"const": "MEMORY_STATUS_UNSPECIFIED"}}}},
                ),
                _when_masked("entities", {"properties": {"entities": _ENTITIES}}),
                _when_masked("validAt", {"required": ["validAt"]}),
            ]
        },
    },
    "engagement.addHypothesisEvidence": {"evidence": {"required": True}},
    "engagement.reviseHypothesis": {
        "confidence": {"required": True, "minimum": 0, "maximum": 1},
        "reason": _required_text(1_000),
        "statement": {"maxLength": 500},
    },
    "engagement.promoteHypothesis": {"statement": {"maxLength": 500}, "source": {"maxLength": 200}},
    "engagement.archiveHypothesis": {"note": _required_text(1_000)},
    "engagement.resolveUnknown": {"resolution": _required_text(1_000)},
    "observations.contradictObservation": {
        "evidence": {"required": True},
        "evidence.stance": {"enum": ["EVIDENCE_STANCE_UNSPECIFIED", "EVIDENCE_STANCE_CONTRADICT"]},
        "correction": {"maxLength": 1_000},
    },
    "erasure.forgetSubject": {
        "subject": {
            "required": True,
            "anyOf": [{"required": [name], "properties": {name: {"pattern": NOT_BLANK}}} for name in _SCOPE_NAMES],
        },
    },
}
# Rules of a named schema, stated in it for every operation that sends it (AssembleContext's
# options are ProcessTurn's context options too): schema -> {field: keywords}.
SCHEMA_RULES: dict[str, dict[str, dict[str, Any]]] = {
    # A tool interaction, of a turn or among a context's tool results (the agent's transcript rules;
    # tool_names holds the assembler's tool results to the same name length). What the services
    # answer keeps to it too.
    "ToolInteraction": {
        "toolName": {"required": True, "minLength": 1, "maxLength": 64, "pattern": NOT_BLANK},
        "intent": {"maxLength": 1_000},
        "summary": {"maxLength": 1_000},
        "salientFields": {"maxItems": 16},
        "salientFields[]": {"maxLength": 128},
        "result": {"description": "At most 16 KiB as JSON"},
    },
    # The observation service's evidence (observations_svc's observation_convert and limits).
    "EvidenceInput": {
        "weight": {"exclusiveMinimum": 0, "maximum": 10, "description": "1 when left out"},
        "sourceType": {"required": True, "not": {"const": "SOURCE_TYPE_UNSPECIFIED"}},
        "sourceId": {
            "required": True,
            "minLength": 1,
            "maxLength": 256,
            "pattern": "(?=[^\\u0000]*\\S)" + id_pattern(),
        },
        "excerpt": {"maxLength": 2_000},
    },
    # An evidence line of a hypothesis (observations_svc's engagement rules).
    "HypothesisEvidenceInput": {
        "statement": _required_text(500),
        "stance": {"required": True, "enum": ["EVIDENCE_STANCE_SUPPORT", "EVIDENCE_STANCE_CONTRADICT"]},
        "weight": {"exclusiveMinimum": 0, "maximum": 10, "description": "1 when left out"},
        "source": {
            "maxLength": 200,
            "description": "Required when the statement states a precise figure (a number with its unit, "
            "a percentage, an amount of money): such a line without its source is refused (400).",
        },
    },
    "AssembleOptions": {
        "persona": {"maxLength": 8_000},
        "userProfile": {"maxLength": 4_000},
        "toolResults": {"maxItems": 20},
        "expressedOpinions": {"maxItems": 20},
        "expressedOpinions[]": {"maxLength": 1_000},
        "minScore": {"minimum": 0, "maximum": 1},
        "minObservationConfidence": {"minimum": 0, "maximum": 1},
        "recallK": {"minimum": 0, "maximum": 100, "description": "0: the default, 30"},
        "personaMode": {"pattern": "^[A-Za-z0-9_-]{0,64}$"},
    },
    "SectionBudget": {
        "section": {"required": True, "not": {"const": "SECTION_KIND_UNSPECIFIED"}},
        "tokens": {"minimum": 0, "maximum": 4_000},
    },
}


def with_enforced_rules(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` stating page-size ranges, UUID path ids, the query rules (``QUERY_RULES``), the
    body rules (``BODY_RULES``), and that a body's id, when given, must equal the path's. A rule on a
    body is stated in the named schema holding its field, which must then belong to that operation's
    request only."""
    bodies = Counter(
        operation["requestBody"]["content"]["application/json"]["schema"].get("$ref")
        for item in document.get("paths", {}).values()
        for operation in item.values()
        if "requestBody" in operation
    )
    owners = _schema_owners(document)
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query" and parameter["name"] == "pageSize" and path in PAGE_SIZES:
                    refused_above, largest = PAGE_SIZES[path]
                    parameter["schema"] |= {"minimum": 0} | ({"maximum": refused_above} if refused_above else {})
                    parameter["description"] = f"0 means the default; at most {largest}" + (
                        "" if refused_above else f" (a larger size is served as {largest})"
                    )
                if parameter["in"] == "query" and parameter["name"] == "pageToken":
                    parameter["schema"] |= {k: v for k, v in PAGE_TOKEN.items() if k != "description"}
                    parameter["description"] = PAGE_TOKEN["description"]
                if parameter["in"] == "query" and parameter["name"] in QUERY_RULES.get(path, {}):
                    parameter["schema"] |= QUERY_RULES[path][parameter["name"]]
                if parameter["in"] == "query" and parameter["name"] in QUERY_WORDS.get(path, {}):
                    parameter["description"] = QUERY_WORDS[path][parameter["name"]]
                if parameter["in"] == "path" and parameter["name"] in UUID_PATH_PARAMETERS:
                    parameter["schema"]["format"] = "uuid"
                if parameter["in"] == "path" and parameter["name"] in PATH_PATTERNS:
                    parameter["schema"]["pattern"] = PATH_PATTERNS[parameter["name"]]
                elif parameter["in"] == "path" and parameter["name"] not in UUID_PATH_PARAMETERS:
                    parameter["schema"] |= string_schema(id_rule=True)
            body = operation.get("requestBody")
            if body is None:
                continue
            reference = body["content"]["application/json"]["schema"]
            schema = resolved(document, reference)
            path_ids = [parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] == "path"]
            same_as_path = [(path_id, field) for path_id in path_ids if (field := body_id_field(schema, path_id))]
            if same_as_path and bodies[reference.get("$ref")] > 1:
                raise ValueError(f"{method} {path}: a rule of its body would be stated for another operation's too")
            own = {(method, path, "request")}
            for field, rule in BODY_RULES.get(operation.get("operationId", ""), {}).items():
                _state_rule(document, owners, own, reference, field, rule)
            for path_id, field in same_as_path:
                rule = (
                    f"`{field}` may be left out: the path's `{path_id}` fills it; a different value is refused (400)."
                )
                schema["properties"][field]["description"] = rule
                body["description"] = (body.get("description", "") + " " + rule).strip()
    for name, rules in SCHEMA_RULES.items():
        if not any(role == "request" for _, _, role in owners.get(name, ())):
            raise ValueError(f"SCHEMA_RULES: no request sends {name}")
        for field, rule in rules.items():
            _state_rule(document, owners, owners[name], {"$ref": COMPONENTS + name}, field, rule)
    return document


def _schema_owners(document: dict[str, Any]) -> dict[str, set[tuple[str, str, str]]]:
    """Each named schema -> the (method, path, "request" or "response") whose bodies reach it."""
    owners: dict[str, set[tuple[str, str, str]]] = {}
    schemas = document.get("components", {}).get("schemas", {})
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            roots = [("request", operation.get("requestBody", {}))]
            roots += [("response", answer) for answer in operation.get("responses", {}).values()]
            roots += [("request", parameter) for parameter in operation.get("parameters", [])]
            for role, root in roots:
                pending = [ref["$ref"].removeprefix(COMPONENTS) for ref in references(root)]
                seen: set[str] = set()
                while pending:
                    name = pending.pop()
                    if name in seen or name not in schemas:
                        continue
                    seen.add(name)
                    owners.setdefault(name, set()).add((method, path, role))
                    pending.extend(ref["$ref"].removeprefix(COMPONENTS) for ref in references(schemas[name]))
    return owners


def _state_rule(
    document: dict[str, Any],
    owners: dict[str, set[tuple[str, str, str]]],
    own: set[tuple[str, str, str]],
    reference: dict[str, Any],
    field: str,
    rule: dict[str, Any],
) -> None:
    """State ``rule`` on ``field`` of the request body ``reference`` points to (``BODY_RULES``). The
    field's own object is a named schema of this operation's request alone, or one shared with
    others (a ``Scope``): then the rule is stated where this operation's schema uses it, as
    ``allOf`` that schema and the rule."""
    if field == ".":  # keywords of the body itself
        resolved(document, reference).update(rule)
        return
    *parents, name = field.split(".")
    holder, parent, slot = reference, "", (None, "")
    for part in parents:
        holder = holder["allOf"][0] if "allOf" in holder else holder  # through a rule's wrapper
        parent = holder.get("$ref", parent).removeprefix(COMPONENTS)
        properties = resolved(document, holder)["properties"]
        slot, holder = (properties, part.removesuffix("[]")), properties[part.removesuffix("[]")]
        if part.endswith("[]"):
            slot, holder = (holder, "items"), holder["items"]
    wrapped = "allOf" in holder
    target = holder["allOf"][0] if wrapped else holder
    named = target.get("$ref", "").removeprefix(COMPONENTS)
    keywords = dict(rule)
    key = name.removesuffix("[]")
    required = keywords.pop("required", False)
    if name.endswith("[]"):  # the rule of each item
        keywords = {"items": keywords}
    if named and owners.get(named) != own:  # shared: stated where this operation's schema uses it
        container, place = slot
        if not wrapped and (container is None or owners.get(parent) != own):
            raise ValueError(
                f"{sorted(own)}: the rule on {field} would be stated for {sorted(owners.get(named, ()))} too"
            )
        if not wrapped:
            holder = container[place] = {"allOf": [holder]}
        if required:
            holder["required"] = list(dict.fromkeys([*holder.get("required", []), key]))
        if keywords:
            _merge(holder.setdefault("properties", {}).setdefault(key, {}), keywords)
        return
    schema = resolved(document, target)
    if required:
        schema["required"] = list(dict.fromkeys([*schema.get("required", []), key]))
    if keywords:
        inner = schema["properties"][key].get("$ref", "").removeprefix(COMPONENTS)
        if inner and inner not in NAMED and owners.get(inner) == own:  # this request's own object: its rule
            _merge(resolved(document, schema["properties"][key]), keywords)
            return
        if inner:  # keywords beside a reference: the reference and them, both
            schema["properties"][key] = {"allOf": [schema["properties"][key]]}
        _merge(schema["properties"][key], keywords)


def _merge(schema: dict[str, Any], keywords: dict[str, Any]) -> None:
    """``keywords`` added to ``schema``; ``items`` merged into its items."""
    for keyword, value in keywords.items():
        if keyword == "items" and isinstance(schema.get("items"), dict):
            _merge(schema["items"], value)
        else:
            schema[keyword] = value


def body_id_field(schema: dict[str, Any], path_name: str) -> str | None:
    """The body field the path's id fills: the id's own name in lowerCamelCase, else ``id``."""
    head, *rest = path_name.split("_")
    camel = head + "".join(part.title() for part in rest)
    return camel if camel in schema["properties"] else "id" if "id" in schema["properties"] else None
