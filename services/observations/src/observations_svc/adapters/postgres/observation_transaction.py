"""``ObservationTransaction`` in Postgres: one tenant transaction (opened by
``PostgresObservationStore.transaction``), every statement also naming the org."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from datetime import datetime

import asyncpg
from lore_runtime import errors
from lore_runtime.column_arrays import column_arrays

from observations_svc.adapters.postgres.observation_rows import (
    COLUMNS,
    EVIDENCE_ARRAYS,
    INSERT_EVIDENCE,
    INSERT_OBSERVATION,
    assessment,
    evidence_cites_raw_sources,
    evidence_from_row,
    observation_row,
    uuid_or_none,
    with_evidence,
)
from observations_svc.domain.model import BeliefScope, Evidence, EvidenceDraft, Observation
from observations_svc.usecases.ports import AppliedRequest, EngagementErasure, Erasure, ErasureRequest


def _key_lock(org_id: str, scope: BeliefScope, canonical_key: str) -> int:
    parts = (org_id, scope.agent_id, scope.user_id, scope.team_id, canonical_key)
    digest = hashlib.blake2b("\x00".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PostgresObservationTransaction:
    def __init__(self, connection: asyncpg.Connection, org_id: str) -> None:
        self._connection = connection
        self._org_id = org_id

    async def lock_key(self, scope: BeliefScope, canonical_key: str) -> None:
        await self._connection.execute(
            "SELECT pg_advisory_xact_lock($1)", _key_lock(self._org_id, scope, canonical_key)
        )

    async def current(self, scope: BeliefScope, canonical_key: str) -> Observation | None:
        row = await self._connection.fetchrow(
            f"""SELECT {COLUMNS} FROM observations.observations o
                WHERE o.org_id = $1 AND o.agent_id = $2 AND o.user_id = $3 AND o.team_id = $4 AND o.canonical_key = $5
                  AND o.status IN ('active', 'stale') AND NOT o.unattributed
                FOR UPDATE""",
            self._org_id,
            scope.agent_id,
            scope.user_id,
            scope.team_id,
            canonical_key,
        )
        return await with_evidence(self._connection, self._org_id, row)

    async def load(self, observation_id: str) -> Observation | None:
        key = uuid_or_none(observation_id)
        if key is None:
            return None
        row = await self._connection.fetchrow(
            f"SELECT {COLUMNS} FROM observations.observations o WHERE o.org_id = $1 AND o.id = $2",
            self._org_id,
            key,
        )
        return await with_evidence(self._connection, self._org_id, row)

    async def insert(self, observation: Observation, embedding: Sequence[float]) -> None:
        try:
            await self._connection.execute(INSERT_OBSERVATION, *observation_row(self._org_id, observation, embedding))
        except asyncpg.UniqueViolationError as error:
            # The advisory lock serialises writers of a key; the unique index is the last wall.
            raise errors.Conflict("another write of this key won the race; retry", reason="KEY_CONFLICT") from error

    async def add_evidence(self, observation_id: str, drafts: Sequence[EvidenceDraft], now: datetime) -> list[Evidence]:
        if not drafts:
            return []
        ids = [uuid.uuid4() for _ in drafts]
        with evidence_cites_raw_sources():
            rows = await self._connection.fetch(
                f"""
                {INSERT_EVIDENCE}
                SELECT e.id, $1, $2, e.stance, e.weight, e.source_type, e.source_id, e.excerpt, e.observed_at,
                       e.operator_confirmed, $3::timestamptz + e.position * interval '1 microsecond'
                FROM unnest($4::uuid[], $5::text[], $6::float8[], $7::text[], $8::text[], $9::text[],
                            $10::timestamptz[], $11::bool[], $12::int[])
                     AS e(id, stance, weight, source_type, source_id, excerpt, observed_at, operator_confirmed,
                        position)
                RETURNING *
                """,
                self._org_id,
                uuid.UUID(observation_id),
                now,
                ids,
                *column_arrays(drafts, *EVIDENCE_ARRAYS),
                list(range(len(drafts))),
            )
        return sorted((evidence_from_row(row) for row in rows), key=lambda item: item.created_at)

    async def save_assessment(self, observation: Observation) -> None:
        await self._connection.execute(
            """
            UPDATE observations.observations
            SET confidence = $3, confidence_components = $4, freshness = $5, last_supported_at = $6,
                revalidation_due_at = $7, status = $8, updated_at = $9
            WHERE org_id = $1 AND id = $2
            """,
            self._org_id,
            uuid.UUID(observation.id),
            *assessment(observation),
            observation.updated_at,
        )

    async def applied(self, request_id: str) -> AppliedRequest | None:
        row = await self._connection.fetchrow(
            "SELECT observation_id, outcome FROM observations.applied_requests WHERE org_id = $1 AND request_id = $2",
            self._org_id,
            request_id,
        )
        return None if row is None else AppliedRequest(str(row["observation_id"]), row["outcome"])

    async def record_applied(self, request_id: str, method: str, applied: AppliedRequest, now: datetime) -> None:
        await self._connection.execute(
            """
            INSERT INTO observations.applied_requests (org_id, request_id, method, observation_id, outcome, applied_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            self._org_id,
            request_id,
            method,
            uuid.UUID(applied.observation_id),
            applied.outcome,
            now,
        )

    async def keys_citing(self, erasure: ErasureRequest) -> list[tuple[BeliefScope, str]]:
        rows = await self._connection.fetch(
            """
            SELECT DISTINCT o.agent_id, o.user_id, o.team_id, o.canonical_key
            FROM observations.evidence e
            JOIN observations.observations o ON o.org_id = e.org_id AND o.id = e.observation_id
            WHERE e.org_id = $1
              AND (e.source_id = ANY ($4::text[])
                   OR ($2 = 'entity' AND e.source_type = 'entity' AND e.source_id = $3))
              AND NOT (o.subject_type = $2 AND o.subject_id = $3)
              AND NOT ($5 <> '' AND o.user_id = $5)
            """,
            self._org_id,
            erasure.subject_type,
            erasure.subject_id,
            list(erasure.source_ids),
            erasure.user_id,
        )
        return [(BeliefScope(row["agent_id"], row["user_id"], row["team_id"]), row["canonical_key"]) for row in rows]

    async def erase_engagement(self, user_id: str, source_ids: Sequence[str], prior_weight: float) -> EngagementErasure:
        row = await self._connection.fetchrow(
            "SELECT * FROM observations.erase_engagement($1, $2::text[], $3)", user_id, list(source_ids), prior_weight
        )
        return EngagementErasure(
            row["hypotheses_erased"], row["evidence_erased"], row["findings_erased"], row["unknowns_erased"]
        )

    async def erase_subject(self, erasure: ErasureRequest) -> Erasure:
        row = await self._connection.fetchrow(
            "SELECT * FROM observations.erase_subject($1, $2, $3::text[], $4, $5, $6)",
            erasure.subject_type,
            erasure.subject_id,
            list(erasure.source_ids),
            erasure.principal,
            erasure.request_id,
            erasure.user_id,
        )
        return Erasure(
            str(row["tombstone_id"]),
            row["observations_erased"],
            row["evidence_erased"],
            tuple(str(value) for value in row["recomputed_ids"]),
            tuple(str(value) for value in row["shared_erased_ids"]),
        )
