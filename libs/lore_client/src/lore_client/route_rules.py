"""The rules the gateway holds request body fields to, by operation id and field (JSON names,
dotted, ``[]`` for an array's items): the tools' argument schemas are made from them (``tools.py``).

Generated from the gateway's ``rules.BODY_RULES`` by ``python -m gateway_svc.api.http.route_table
--write-client-rules libs/lore_client/src/lore_client/route_rules.py``:
do not edit (tests/unit/gateway/test_route_table.py fails when it differs)."""

# ruff: noqa: E501 - one line per field, as generated
from typing import Any

# fmt: off
ROUTE_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "memories.remember": {
        "memories": {"required": True, "minItems": 1, "maxItems": 100},
        "memories[].content": {"required": True, "minLength": 1, "maxLength": 16000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "memories[].entities": {"maxItems": 64, "items": {"type": "string", "maxLength": 200, "pattern": "^[^\\u0000]*$"}},
        "memories[].memoryType": {"required": True, "not": {"const": "MEMORY_TYPE_UNSPECIFIED"}},
        "memories[].importance": {"minimum": 0, "maximum": 1},
        "memories[].metadata": {"maxProperties": 32},
        "memories[].idempotencyKey": {"maxLength": 256},
    },
    "memories.search": {
        "query": {"required": True, "minLength": 1, "maxLength": 4000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "validBefore": {"description": "Later than `validAfter` when both are given"},
        "k": {"minimum": 0, "maximum": 100},
        "minSalience": {"minimum": 0},
    },
    "memories.forgetAbout": {
        "scope.agentId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
        "about": {"required": True, "minLength": 1, "maxLength": 500, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$", "description": "What to forget: at least one word that is not only a pronoun or a stop word"},
        "scope": {"required": True},
        "scope.userId": {"required": True, "minLength": 1},
    },
    "observations.searchObservations": {
        "query": {"required": True, "minLength": 1, "maxLength": 2000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "k": {"minimum": 0, "maximum": 100},
        "minConfidence": {"minimum": 0, "maximum": 1},
        "agentId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
    },
    "observations.observe": {
        "agentId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
        "scope.agentId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$", "description": "The agent whose belief this is, when `agentId` is empty; else left out or `agentId`"},
        "candidate": {"required": True, "if": {"required": ["subjectType"], "properties": {"subjectType": {"const": "SUBJECT_TYPE_GLOBAL"}}}, "then": {"properties": {"subjectId": {"maxLength": 0}}}, "else": {"required": ["subjectId"], "properties": {"subjectId": {"minLength": 1}}}},
        "candidate.kind": {"required": True, "not": {"const": "OBSERVATION_KIND_UNSPECIFIED"}},
        "candidate.subjectType": {"required": True, "not": {"const": "SUBJECT_TYPE_UNSPECIFIED"}},
        "candidate.subjectId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
        "candidate.slot": {"required": True, "minLength": 1, "maxLength": 64, "pattern": "^[a-z0-9_.-]{1,64}$"},
        "candidate.summary": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "candidate.detail": {"maxLength": 4000},
        "candidate.tags": {"maxItems": 20},
        "candidate.tags[]": {"minLength": 1, "maxLength": 64, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "candidate.evidence": {"maxItems": 50},
        "candidate.evidence[].stance": {"required": True, "not": {"const": "EVIDENCE_STANCE_UNSPECIFIED"}},
    },
    "engagement.formHypothesis": {
        "statement": {"required": True, "minLength": 1, "maxLength": 500, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
    },
    "engagement.addUnknown": {
        "question": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "whyItMatters": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
    },
    "engagement.advanceWeek": {
        "expectedWeekNumber": {"minimum": 1},
    },
    "sessions.processTurn": {
        "turn": {"required": True},
    },
    "sessions.importTurns": {
        "turns": {"required": True, "minItems": 1, "maxItems": 500},
    },
    "context.assembleContext": {
        "message": {"required": True, "minLength": 1, "maxLength": 4000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "sessionId": {"description": "A session of the agent's (its id, a UUID), or the caller's own conversation id; with a credential pinned to a user, only a session of that user's"},
    },
    "admin.runConsolidation": {
        "threshold": {"minimum": 0.8, "exclusiveMaximum": 1},
    },
    "admin.runRevalidation": {
        "agentId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
    },
    "admin.retryJobs": {
        "kinds[]": {"pattern": "^(?:reflect|episode|erase)$"},
    },
    "memories.updateMemory": {
        "updateMask": {"required": True, "pattern": "^(?:content|importance|status|metadata|entities|validAt)(?:,(?:content|importance|status|metadata|entities|validAt))*$"},
        ".": {"allOf": [{"if": {"required": ["updateMask"], "properties": {"updateMask": {"pattern": "(?:^|,)content(?:,|$)"}}}, "then": {"required": ["memory"], "properties": {"memory": {"required": ["content"], "properties": {"content": {"minLength": 1, "maxLength": 16000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"}}}}}}, {"if": {"required": ["updateMask"], "properties": {"updateMask": {"pattern": "(?:^|,)importance(?:,|$)"}}}, "then": {"required": ["memory"], "properties": {"memory": {"properties": {"importance": {"minimum": 0, "maximum": 1}}}}}}, {"if": {"required": ["updateMask"], "properties": {"updateMask": {"pattern": "(?:^|,)status(?:,|$)"}}}, "then": {"required": ["memory"], "properties": {"memory": {"required": ["status"], "properties": {"status": {"not": {"const": "MEMORY_STATUS_UNSPECIFIED"}}}}}}}, {"if": {"required": ["updateMask"], "properties": {"updateMask": {"pattern": "(?:^|,)entities(?:,|$)"}}}, "then": {"required": ["memory"], "properties": {"memory": {"properties": {"entities": {"maxItems": 64, "items": {"type": "string", "maxLength": 200, "pattern": "^[^\\u0000]*$"}}}}}}}, {"if": {"required": ["updateMask"], "properties": {"updateMask": {"pattern": "(?:^|,)validAt(?:,|$)"}}}, "then": {"required": ["memory"], "properties": {"memory": {"required": ["validAt"]}}}}]},
    },
    "engagement.addHypothesisEvidence": {
        "evidence": {"required": True},
    },
    "engagement.reviseHypothesis": {
        "confidence": {"required": True, "minimum": 0, "maximum": 1},
        "reason": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
        "statement": {"maxLength": 500},
    },
    "engagement.promoteHypothesis": {
        "statement": {"maxLength": 500},
        "source": {"maxLength": 200},
    },
    "engagement.archiveHypothesis": {
        "note": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
    },
    "engagement.resolveUnknown": {
        "resolution": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"},
    },
    "observations.contradictObservation": {
        "evidence": {"required": True},
        "evidence.stance": {"enum": ["EVIDENCE_STANCE_UNSPECIFIED", "EVIDENCE_STANCE_CONTRADICT"]},
        "correction": {"maxLength": 1000},
    },
    "erasure.forgetSubject": {
        "subject": {"required": True, "anyOf": [{"required": ["userId"], "properties": {"userId": {"pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"}}}, {"required": ["agentId"], "properties": {"agentId": {"pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"}}}, {"required": ["teamId"], "properties": {"teamId": {"pattern": "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"}}}]},
    },
}
# fmt: on
