"""Deterministic memory ids, so that a retried write lands exactly once (ARCHITECTURE.md §3).

The id is a UUIDv5 of the org, the scope and the item's idempotency key — its own
``idempotency_key``, else the request's ``request_id`` plus the item's index in the batch.
With neither, the write is not retry-safe and gets a random id.
"""

from __future__ import annotations

import uuid

from memory_svc.domain.model import Scope

NAMESPACE = uuid.UUID("9b2f8c1e-5d0a-4c59-9a53-6f1d2a4e7b10")


def memory_id(org_id: str, scope: Scope, idempotency_key: str, request_id: str, index: int) -> str:
    key = idempotency_key or (f"{request_id}#{index}" if request_id else "")
    if not key:
        return str(uuid.uuid4())
    name = "\x1f".join((org_id, scope.user_id, scope.agent_id, scope.team_id, key))
    return str(uuid.uuid5(NAMESPACE, name))
