"""``ObservationArchive`` in Postgres: an org's observations with all their evidence, paged out for
``lore org export`` and written back exactly as given by ``lore org import``, behind row-level
security (every statement also names the org)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import asyncpg
from lore_runtime import errors
from lore_runtime.column_arrays import column_arrays
from lore_runtime.stores import tenant_transaction

from observations_svc.adapters.postgres.observation_rows import (
    COLUMNS,
    EVIDENCE_ARRAYS,
    INSERT_EVIDENCE,
    INSERT_OBSERVATION,
    evidence_cites_raw_sources,
    evidence_from_row,
    observation_from_row,
    observation_row,
    read_many,
)
from observations_svc.adapters.postgres.rows import taken
from observations_svc.domain.model import Evidence, Observation


class PostgresObservationArchive:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def get_many(self, org_id: str, ids: Sequence[str]) -> list[Observation]:
        return [observation_from_row(row) for row in await read_many(self._pool, org_id, ids, embeddings=False)]

    async def export_page(self, org_id: str, after: tuple[datetime, str] | None, limit: int) -> list[Observation]:
        after_time, after_id = after if after is not None else (None, None)
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                f"""
                SELECT {COLUMNS} FROM observations.observations o
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
                    evidence[item["observation_id"]].append(evidence_from_row(item))
        return [observation_from_row(row, evidence[row["id"]]) for row in rows]

    async def insert_restored(
        self, org_id: str, observations: Sequence[Observation], embeddings: Sequence[Sequence[float]]
    ) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            for observation, embedding in zip(observations, embeddings, strict=True):
                await _insert_restored(connection, org_id, observation, embedding)


async def _insert_restored(
    connection: asyncpg.Connection, org_id: str, observation: Observation, embedding: Sequence[float]
) -> None:
    try:
        inserted = await connection.fetchval(
            f"{INSERT_OBSERVATION} ON CONFLICT (id) DO NOTHING RETURNING id",
            *observation_row(org_id, observation, embedding),
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


async def _insert_restored_evidence(connection: asyncpg.Connection, org_id: str, items: Sequence[Evidence]) -> None:
    with evidence_cites_raw_sources():
        rows = await connection.fetch(
            f"""
            {INSERT_EVIDENCE}
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
            *column_arrays(items, *EVIDENCE_ARRAYS, "created_at"),
        )
    if len(rows) < len(items):
        inserted = {str(row["id"]) for row in rows}
        raise taken("evidence", next(item.id for item in items if item.id not in inserted))
