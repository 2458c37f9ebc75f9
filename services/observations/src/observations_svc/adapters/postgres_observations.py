"""Observations and evidence in Postgres schema ``observations`` (pgvector halfvec embeddings),
behind row-level security: every statement also names the org."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict
from datetime import datetime
from typing import Any

import asyncpg
import numpy as np
from lore_runtime import errors
from lore_runtime.column_arrays import column_arrays
from lore_runtime.stores import tenant_transaction
from pgvector import HalfVector

from observations_svc.adapters.rows import from_row
from observations_svc.domain.model import BeliefScope, ConfidenceComponents, Evidence, EvidenceDraft, Observation
from observations_svc.domain.page_tokens import BeliefCursor
from observations_svc.usecases.ports import (
    AppliedRequest,
    EngagementErasure,
    Erasure,
    ErasureRequest,
    QueryFilters,
    SearchFilters,
    SearchHit,
)

EMBEDDING_COLUMN = "embedding"

# The filters both sides of a search share ($1 org, $2 agent, $3 kinds, $4 statuses, $5 min confidence,
# $9 user, $10 team): a context's view (BeliefScope.shows), unattributed beliefs never.
_SCOPE = """o.org_id = $1 AND ($2 = '' OR o.agent_id = $2 OR o.agent_id = '')
                      AND (o.user_id = $9 OR o.user_id = '') AND (o.team_id = $10 OR o.team_id = '')
                      AND NOT o.unattributed
                      AND (cardinality($3::text[]) = 0 OR o.kind = ANY ($3))
                      AND o.status = ANY ($4) AND ($5::float8 IS NULL OR o.confidence >= $5)"""
_COLUMNS = """o.id, o.org_id, o.agent_id, o.kind, o.subject_type, o.subject_id, o.slot, o.canonical_key, o.summary,
    o.detail, o.tags, o.confidence, o.confidence_components, o.freshness, o.last_supported_at,
    o.revalidation_due_at, o.status, o.supersedes_observation_id, o.created_at, o.updated_at, o.user_id, o.team_id,
    o.unattributed"""
# Both evidence inserts (Observe's and an import's) write these columns, taking these as unnest arrays.
_INSERT_EVIDENCE = """INSERT INTO observations.evidence
    (id, org_id, observation_id, stance, weight, source_type, source_id, excerpt, observed_at, operator_confirmed,
     created_at)"""
_EVIDENCE_ARRAYS = ("stance", "weight", "source_type", "source_id", "excerpt", "observed_at", "operator_confirmed")


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _key_lock(org_id: str, scope: BeliefScope, canonical_key: str) -> int:
    parts = (org_id, scope.agent_id, scope.user_id, scope.team_id, canonical_key)
    digest = hashlib.blake2b("\x00".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def unit(vector: Sequence[float]) -> HalfVector:
    """Unit length, so inner product is cosine."""
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return HalfVector(array / norm if norm else array)


def _stored_embedding(value: HalfVector) -> tuple[float, ...]:
    """A stored embedding as float32 values of unit length: stored unit, then rounded to half
    precision (a norm off by up to ~1e-3), so normalised again; the direction is the stored one."""
    array = value.to_numpy().astype(np.float32)
    norm = float(np.linalg.norm(array))
    return tuple((array / norm if norm else array).tolist())


def _observation(row: asyncpg.Record, evidence: Sequence[Evidence] = ()) -> Observation:
    return from_row(
        Observation,
        row,
        id=str(row["id"]),
        tags=tuple(row["tags"]),
        components=ConfidenceComponents(**json.loads(row["confidence_components"])),
        supersedes_observation_id=str(row["supersedes_observation_id"]) if row["supersedes_observation_id"] else None,
        evidence=tuple(evidence),
    )


def _evidence(row: asyncpg.Record) -> Evidence:
    return from_row(Evidence, row, id=str(row["id"]), observation_id=str(row["observation_id"]))


async def _with_evidence(connection: asyncpg.Connection, org_id: str, row: asyncpg.Record | None) -> Observation | None:
    if row is None:
        return None
    rows = await connection.fetch(
        "SELECT * FROM observations.evidence WHERE org_id = $1 AND observation_id = $2 ORDER BY created_at, id",
        org_id,
        row["id"],
    )
    return _observation(row, [_evidence(item) for item in rows])


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
            f"""SELECT {_COLUMNS} FROM observations.observations o
                WHERE o.org_id = $1 AND o.agent_id = $2 AND o.user_id = $3 AND o.team_id = $4 AND o.canonical_key = $5
                  AND o.status IN ('active', 'stale') AND NOT o.unattributed
                FOR UPDATE""",
            self._org_id,
            scope.agent_id,
            scope.user_id,
            scope.team_id,
            canonical_key,
        )
        return await _with_evidence(self._connection, self._org_id, row)

    async def load(self, observation_id: str) -> Observation | None:
        key = _uuid(observation_id)
        if key is None:
            return None
        row = await self._connection.fetchrow(
            f"SELECT {_COLUMNS} FROM observations.observations o WHERE o.org_id = $1 AND o.id = $2",
            self._org_id,
            key,
        )
        return await _with_evidence(self._connection, self._org_id, row)

    async def insert(self, observation: Observation, embedding: Sequence[float]) -> None:
        try:
            await self._connection.execute(_INSERT_OBSERVATION, *_observation_row(self._org_id, observation, embedding))
        except asyncpg.UniqueViolationError as error:
            # The advisory lock serialises writers of a key; the unique index is the last wall.
            raise errors.Conflict("another write of this key won the race; retry", reason="KEY_CONFLICT") from error

    async def add_evidence(self, observation_id: str, drafts: Sequence[EvidenceDraft], now: datetime) -> list[Evidence]:
        if not drafts:
            return []
        ids = [uuid.uuid4() for _ in drafts]
        with _evidence_cites_raw_sources():
            rows = await self._connection.fetch(
                f"""
                {_INSERT_EVIDENCE}
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
                *column_arrays(drafts, *_EVIDENCE_ARRAYS),
                list(range(len(drafts))),
            )
        return sorted((_evidence(row) for row in rows), key=lambda item: item.created_at)

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
            *_assessment(observation),
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


def _query_conditions(org_id: str, filters: QueryFilters) -> tuple[str, list[object]]:
    """Only the filters given, as parameters: each shape of query gets its own plan, so the
    planner can use the index that matches it (a catch-all ``$n = '' OR`` predicate cannot)."""
    conditions, arguments = ["o.org_id = $1"], [org_id]
    if filters.context:
        # A context's view (BeliefScope.shows): the user's and the org's, the agent's and agent-less ones.
        arguments += [filters.user_id, filters.team_id]
        conditions += ["(o.user_id = $2 OR o.user_id = '')", "(o.team_id = $3 OR o.team_id = '')", "NOT o.unattributed"]
        if filters.agent_id:
            arguments.append(filters.agent_id)
            conditions.append(f"(o.agent_id = ${len(arguments)} OR o.agent_id = '')")
    browse = (
        []
        if filters.context
        else [
            ("agent_id", filters.agent_id),
            ("user_id", filters.user_id),
            ("team_id", filters.team_id),
        ]
    )
    for column, value in [
        *browse,
        ("kind", filters.kind),
        ("subject_type", filters.subject_type),
        ("subject_id", filters.subject_id),
        ("canonical_key", filters.canonical_key),
        ("status", filters.status),
    ]:
        if value:
            arguments.append(value)
            conditions.append(f"o.{column} = ${len(arguments)}")
    if filters.min_confidence is not None:
        arguments.append(filters.min_confidence)
        conditions.append(f"o.confidence >= ${len(arguments)}")
    if filters.tags:
        arguments.append(list(filters.tags))
        conditions.append(f"o.tags @> ${len(arguments)}::text[]")
    return " AND ".join(conditions), arguments


class PostgresObservationStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @asynccontextmanager
    async def transaction(self, org_id: str) -> AsyncIterator[PostgresObservationTransaction]:
        async with tenant_transaction(self._pool, org_id) as connection:
            yield PostgresObservationTransaction(connection, org_id)

    async def fence_subject(self, org_id: str, erasure_id: str, subject: BeliefScope) -> None:
        # Migration 0009_subject_fences.sql: the triggers refuse the fenced writes.
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                "SELECT observations.fence_subject($1, $2, $3, $4)",
                erasure_id,
                subject.user_id,
                subject.agent_id,
                subject.team_id,
            )

    async def lift_subject_fence(self, org_id: str, erasure_id: str) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                "DELETE FROM observations.subject_fences WHERE org_id = $1 AND erasure_id = $2", org_id, erasure_id
            )

    async def current_summary(self, org_id: str, scope: BeliefScope, canonical_key: str) -> str | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            return await connection.fetchval(
                """
                SELECT summary FROM observations.observations
                WHERE org_id = $1 AND agent_id = $2 AND user_id = $3 AND team_id = $4 AND canonical_key = $5
                  AND status IN ('active', 'stale') AND NOT unattributed
                """,
                org_id,
                scope.agent_id,
                scope.user_id,
                scope.team_id,
                canonical_key,
            )

    async def get(self, org_id: str, observation_id: str) -> Observation | None:
        async with self.transaction(org_id) as tx:
            return await tx.load(observation_id)

    async def query(
        self, org_id: str, filters: QueryFilters, after: BeliefCursor | None, limit: int
    ) -> list[Observation]:
        where, arguments = _query_conditions(org_id, filters)
        if after is not None:
            arguments += [after.confidence, after.freshness, uuid.UUID(after.observation_id)]
            c, f, i = (f"${len(arguments) - 2}", f"${len(arguments) - 1}", f"${len(arguments)}")
            # After the cursor in (confidence desc, freshness desc, id asc): a keyset, not an offset.
            where += (
                f" AND (o.confidence < {c} OR (o.confidence = {c}"
                f" AND (o.freshness < {f} OR (o.freshness = {f} AND o.id > {i}))))"
            )
        arguments.append(limit)
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                f"""
                SELECT {_COLUMNS} FROM observations.observations o WHERE {where}
                ORDER BY o.confidence DESC, o.freshness DESC, o.id
                LIMIT ${len(arguments)}
                """,
                *arguments,
            )
        return [_observation(row) for row in rows]

    async def order_generation(self, org_id: str) -> int:
        async with tenant_transaction(self._pool, org_id) as connection:
            value = await connection.fetchval(
                "SELECT generation FROM observations.order_generations WHERE org_id = $1", org_id
            )
        return int(value or 0)

    async def advance_order_generation(self, org_id: str) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                """
                INSERT INTO observations.order_generations AS g (org_id, generation) VALUES ($1, 1)
                ON CONFLICT (org_id) DO UPDATE SET generation = g.generation + 1, changed_at = now()
                """,
                org_id,
            )

    async def search(
        self, org_id: str, text: str, vector: Sequence[float], filters: SearchFilters, limit: int
    ) -> list[SearchHit]:
        # A filtered HNSW scan keeps looking until it has `limit` rows of this org instead of
        # returning a short list (relaxed order: the fused score re-sorts anyway); the graph search
        # keeps at least `limit` candidates (the default, 40, would cap the list). Both for this
        # transaction only, set as it opens.
        scan = {"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": str(max(40, int(limit)))}
        async with tenant_transaction(self._pool, org_id, scan) as connection:
            rows = await connection.fetch(
                f"""
                WITH dense AS (
                    -- Straight on the table (no shared CTE in between) so the HNSW index serves it.
                    SELECT o.id, -(o.embedding <#> $6) AS similarity FROM observations.observations o
                    WHERE {_SCOPE}
                    ORDER BY o.embedding <#> $6 LIMIT $7
                ),
                lexical AS (
                    -- A function so the GIN index serves it despite RLS (see the migration).
                    SELECT m.id, m.lexical
                    FROM observations.lexical_matches($8::text, $2, $9, $10, $3, $4, $5, $7::integer) m
                ),
                fused AS (
                    SELECT coalesce(d.id, l.id) AS id, d.similarity, coalesce(l.lexical, 0) AS lexical
                    FROM dense d FULL JOIN lexical l ON l.id = d.id
                )
                -- The candidates' ids as one array: primary-key probes, never a scan of the org's rows
                -- (joined to the FULL JOIN directly, the planner hashes the whole table).
                SELECT o.id, coalesce(f.similarity, -(o.embedding <#> $6)) AS similarity, f.lexical, o.confidence
                FROM observations.observations o JOIN fused f ON f.id = o.id
                WHERE o.org_id = $1 AND o.id = ANY (ARRAY(SELECT id FROM fused))
                """,
                org_id,
                filters.agent_id,
                list(filters.kinds),
                list(filters.statuses),
                filters.min_confidence,
                unit(vector),
                limit,
                text,
                filters.user_id,
                filters.team_id,
            )
        return [
            SearchHit(str(row["id"]), float(row["similarity"]), float(row["lexical"]), float(row["confidence"]))
            for row in rows
        ]

    async def get_many(self, org_id: str, ids: Sequence[str]) -> list[Observation]:
        return [_observation(row) for row in await self._read_many(org_id, ids, embeddings=False)]

    async def get_many_with_embeddings(
        self, org_id: str, ids: Sequence[str]
    ) -> list[tuple[Observation, tuple[float, ...]]]:
        return [
            (_observation(row), _stored_embedding(row[EMBEDDING_COLUMN]))
            for row in await self._read_many(org_id, ids, embeddings=True)
        ]

    async def _read_many(self, org_id: str, ids: Sequence[str], *, embeddings: bool) -> list[asyncpg.Record]:
        keys = [key for key in (_uuid(value) for value in ids) if key is not None]
        if not keys:
            return []
        # The halfvec itself (pgvector's binary codec: 2 bytes a dimension), only when asked.
        extra = f", o.{EMBEDDING_COLUMN}" if embeddings else ""
        async with tenant_transaction(self._pool, org_id) as connection:
            return await connection.fetch(
                f"""
                SELECT {_COLUMNS}{extra} FROM observations.observations o
                WHERE o.org_id = $1 AND o.id = ANY ($2::uuid[])
                ORDER BY array_position($2::uuid[], o.id)
                """,
                org_id,
                keys,
            )

    async def history(self, org_id: str, observation_id: str) -> list[Observation]:
        key = _uuid(observation_id)
        if key is None:
            return []
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                f"""
                WITH RECURSIVE older AS (
                    SELECT o.id, o.supersedes_observation_id, 0 AS depth FROM observations.observations o
                    WHERE o.org_id = $1 AND o.id = $2
                    UNION ALL
                    SELECT p.id, p.supersedes_observation_id, c.depth - 1 FROM observations.observations p
                    JOIN older c ON p.org_id = $1 AND p.id = c.supersedes_observation_id
                ), newer AS (
                    SELECT o.id, 0 AS depth FROM observations.observations o WHERE o.org_id = $1 AND o.id = $2
                    UNION ALL
                    SELECT n.id, c.depth + 1 FROM observations.observations n
                    JOIN newer c ON n.org_id = $1 AND n.supersedes_observation_id = c.id
                ), chain AS (
                    SELECT id, depth FROM older UNION SELECT id, depth FROM newer
                )
                SELECT {_COLUMNS} FROM chain c JOIN observations.observations o ON o.org_id = $1 AND o.id = c.id
                ORDER BY c.depth DESC
                """,
                org_id,
                key,
            )
        return [_observation(row) for row in rows]

    async def due_for_revalidation(self, org_id: str, agent_id: str, now: datetime, limit: int) -> list[str]:
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                """
                SELECT id FROM observations.observations
                WHERE org_id = $1 AND ($2 = '' OR agent_id = $2) AND status = 'active' AND revalidation_due_at < $3
                ORDER BY revalidation_due_at LIMIT $4
                """,
                org_id,
                agent_id,
                now,
                limit,
            )
        return [str(row["id"]) for row in rows]

    async def orgs_due_for_revalidation(self, now: datetime) -> list[str]:
        rows = await self._pool.fetch(
            "SELECT org_id FROM observations.orgs_due_for_revalidation($1) AS due(org_id)", now
        )
        return [row["org_id"] for row in rows]

    async def embedding_dimension(self) -> int | None:
        """The dimension of the embedding column, as the migration declared it."""
        declared = await self._pool.fetchval(
            """
            SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
            WHERE a.attrelid = 'observations.observations'::regclass AND a.attname = $1
            """,
            EMBEDDING_COLUMN,
        )
        return int(declared.split("(")[1].rstrip(")")) if declared and "(" in declared else None

    # ------------------------------------------------------------------ export and import

    async def export_page(self, org_id: str, after: tuple[datetime, str] | None, limit: int) -> list[Observation]:
        after_time, after_id = after if after is not None else (None, None)
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                f"""
                SELECT {_COLUMNS} FROM observations.observations o
                WHERE o.org_id = $1 AND ($2::timestamptz IS NULL OR (o.created_at, o.id) > ($2, $3::uuid))
                ORDER BY o.created_at, o.id LIMIT $4
                """,
                org_id,
                after_time,
                uuid.UUID(after_id) if after_id else None,
                limit,
            )
            evidence: dict[uuid.UUID, list[Evidence]] = {row["id"]: [] for row in rows}
            if rows:
                for item in await connection.fetch(
                    """
                    SELECT * FROM observations.evidence
                    WHERE org_id = $1 AND observation_id = ANY ($2::uuid[]) ORDER BY created_at, id
                    """,
                    org_id,
                    list(evidence),
                ):
                    evidence[item["observation_id"]].append(_evidence(item))
        return [_observation(row, evidence[row["id"]]) for row in rows]

    async def insert_restored(
        self, org_id: str, observations: Sequence[Observation], embeddings: Sequence[Sequence[float]]
    ) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            for observation, embedding in zip(observations, embeddings, strict=True):
                await _insert_restored(connection, org_id, observation, embedding)


_INSERT_OBSERVATION = """
    INSERT INTO observations.observations
        (id, org_id, agent_id, kind, subject_type, subject_id, slot, canonical_key, summary, detail, tags,
         confidence, confidence_components, freshness, last_supported_at, revalidation_due_at, status,
         supersedes_observation_id, embedding, created_at, updated_at, user_id, team_id, unattributed)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
            $24)
"""


def _assessment(observation: Observation) -> tuple[Any, ...]:
    """What an assessment sets, as stored (the components as JSON): confidence, confidence_components,
    freshness, last_supported_at, revalidation_due_at, status; an insert and ``save_assessment`` write them."""
    return (
        observation.confidence,
        json.dumps(asdict(observation.components)),
        observation.freshness,
        observation.last_supported_at,
        observation.revalidation_due_at,
        observation.status,
    )


def _observation_row(org_id: str, observation: Observation, embedding: Sequence[float]) -> tuple[Any, ...]:
    """The values of ``_INSERT_OBSERVATION``, in its column order."""
    return (
        uuid.UUID(observation.id),
        org_id,
        observation.agent_id,
        observation.kind,
        observation.subject_type,
        observation.subject_id,
        observation.slot,
        observation.canonical_key,
        observation.summary,
        observation.detail,
        list(observation.tags),
        *_assessment(observation),
        uuid.UUID(observation.supersedes_observation_id) if observation.supersedes_observation_id else None,
        unit(embedding),
        observation.created_at,
        observation.updated_at,
        observation.user_id,
        observation.team_id,
        observation.unattributed,
    )


async def _insert_restored(
    connection: asyncpg.Connection, org_id: str, observation: Observation, embedding: Sequence[float]
) -> None:
    try:
        inserted = await connection.fetchval(
            f"{_INSERT_OBSERVATION} ON CONFLICT (id) DO NOTHING RETURNING id",
            *_observation_row(org_id, observation, embedding),
        )
    except asyncpg.UniqueViolationError as error:
        # Not the id (ON CONFLICT skips that): another current belief of the key, or a second successor.
        raise errors.Conflict(
            f"observation {observation.id} conflicts with the organisation's beliefs ({error.constraint_name}): "
            "an org already holding a current belief of its key cannot take another",
            reason="KEY_CONFLICT",
            metadata={"id": observation.id},
        ) from error
    if inserted is None:
        raise taken("observation", observation.id)
    if observation.evidence:
        await _insert_restored_evidence(connection, org_id, observation.evidence)


def taken(kind: str, record_id: str) -> errors.AlreadyExists:
    """An id another org holds (ON CONFLICT skipped it, RLS hides it): refused, never moved across tenants."""
    return errors.id_of_another_org(kind, record_id)


@contextmanager
def _evidence_cites_raw_sources() -> Iterator[None]:
    """The database refuses evidence citing an observation (a belief is never its own source):
    that refusal names the field at fault; any other integrity error is left as it is."""
    try:
        yield
    except asyncpg.IntegrityConstraintViolationError as error:
        if "never at an observation" in str(error):
            raise errors.InvalidArgument(
                "evidence.source_id", "evidence points at raw sources, never at an observation"
            ) from error
        raise


async def _insert_restored_evidence(connection: asyncpg.Connection, org_id: str, items: Sequence[Evidence]) -> None:
    with _evidence_cites_raw_sources():
        rows = await connection.fetch(
            f"""
            {_INSERT_EVIDENCE}
            SELECT e.id, $1, e.observation_id, e.stance, e.weight, e.source_type, e.source_id, e.excerpt,
                   e.observed_at, e.operator_confirmed, e.created_at
            FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::float8[], $6::text[], $7::text[], $8::text[],
                        $9::timestamptz[], $10::bool[], $11::timestamptz[])
                 AS e(id, observation_id, stance, weight, source_type, source_id, excerpt, observed_at,
                      operator_confirmed, created_at)
            ON CONFLICT (id) DO NOTHING RETURNING id
            """,
            org_id,
            [uuid.UUID(item.id) for item in items],
            [uuid.UUID(item.observation_id) for item in items],
            *column_arrays(items, *_EVIDENCE_ARRAYS, "created_at"),
        )
    if len(rows) < len(items):
        inserted = {str(row["id"]) for row in rows}
        raise taken("evidence", next(item.id for item in items if item.id not in inserted))
