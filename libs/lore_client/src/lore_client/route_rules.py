"""The rules the gateway holds request body fields to, by operation id and field (JSON names,
dotted, ``[]`` for an array's items): the tools' argument schemas are made from them (``tools.py``).

Generated from the gateway's ``openapi.BODY_RULES`` by ``python -m gateway_svc.api.route_table
--write-client-rules libs/lore_client/src/lore_client/route_rules.py``:
do not edit (tests/unit/gateway/test_route_table.py fails when it differs)."""

from typing import Any

ROUTE_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "memories.remember": {
        "memories": {"required": True, "minItems": 1, "maxItems": 100},
        "memories[].content": {"required": True, "minLength": 1, "maxLength": 16000, "pattern": "\\S"},
        "memories[].memoryType": {"required": True},
        "memories[].importance": {"minimum": 0, "maximum": 1},
        "memories[].metadata": {"maxProperties": 32},
        "memories[].idempotencyKey": {"maxLength": 256},
    },
    "memories.search": {
        "query": {"required": True, "minLength": 1, "maxLength": 4000, "pattern": "\\S"},
        "k": {"minimum": 0, "maximum": 100},
        "minSalience": {"minimum": 0},
    },
    "memories.forgetAbout": {
        "about": {"required": True, "minLength": 1, "maxLength": 500, "pattern": "\\S"},
    },
    "observations.searchObservations": {
        "query": {"required": True, "minLength": 1, "maxLength": 2000, "pattern": "\\S"},
        "k": {"minimum": 0, "maximum": 100},
        "minConfidence": {"minimum": 0, "maximum": 1},
        "agentId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
    },
    "observations.observe": {
        "agentId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
        "candidate": {"required": True},
        "candidate.kind": {"required": True},
        "candidate.subjectType": {"required": True},
        "candidate.subjectId": {"maxLength": 128, "pattern": "^$|^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$"},
        "candidate.slot": {"required": True, "minLength": 1, "maxLength": 64, "pattern": "^[a-z0-9_.-]{1,64}$"},
        "candidate.summary": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "\\S"},
        "candidate.detail": {"maxLength": 4000},
        "candidate.tags": {"maxItems": 20},
        "candidate.evidence": {"maxItems": 50},
    },
    "engagement.formHypothesis": {
        "statement": {"required": True, "minLength": 1, "maxLength": 500, "pattern": "\\S"},
    },
    "engagement.addUnknown": {
        "question": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "\\S"},
        "whyItMatters": {"required": True, "minLength": 1, "maxLength": 1000, "pattern": "\\S"},
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
        "message": {"required": True, "minLength": 1, "maxLength": 4000, "pattern": "\\S"},
    },
    "admin.runConsolidation": {
        "threshold": {"minimum": 0.8, "exclusiveMaximum": 1},
    },
}
