"""``ObservationStore`` in Postgres: beliefs read, searched (pgvector halfvec embeddings and the
lexical index) and written through ``PostgresObservationTransaction``, behind row-level security:
every statement also names the org."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime

import asyncpg
from lore_runtime.stores import tenant_transaction

from observations_svc.adapters.postgres.observation_rows import (
    COLUMNS,
    EMBEDDING_COLUMN,
    observation_from_row,
    read_many,
    stored_embedding,
    unit,
    uuid_or_none,
)
from observations_svc.adapters.postgres.observation_transaction import PostgresObservationTransaction
from observations_svc.adapters.postgres.params import Params
from observations_svc.domain.model import BeliefScope, Observation
from observations_svc.domain.page_tokens import BeliefCursor
from observations_svc.usecases.ports import QueryFilters, SearchFilters, SearchHit


@dataclass(frozen=True, slots=True)
class _SearchScope:
    """The filters both sides of a search share, as placeholders of one statement: a context's view
    (BeliefScope.shows), unattributed beliefs never."""

    org: str
    agent: str
    user: str
    team: str
    kinds: str
    statuses: str
    min_confidence: str

    @classmethod
    def add(cls, params: Params, org_id: str, filters: SearchFilters) -> _SearchScope:
        return cls(
            org=params.add(org_id),
            agent=params.add(filters.agent_id),
            user=params.add(filters.user_id),
            team=params.add(filters.team_id),
            kinds=params.add(list(filters.kinds)),
            statuses=params.add(list(filters.statuses)),
            min_confidence=params.add(filters.min_confidence),
        )

    def where(self) -> str:
        return f"""o.org_id = {self.org} AND ({self.agent} = '' OR o.agent_id = {self.agent} OR o.agent_id = '')
            AND (o.user_id = {self.user} OR o.user_id = '') AND (o.team_id = {self.team} OR o.team_id = '')
            AND NOT o.unattributed
            AND (cardinality({self.kinds}::text[]) = 0 OR o.kind = ANY ({self.kinds}))
            AND o.status = ANY ({self.statuses})
            AND ({self.min_confidence}::float8 IS NULL OR o.confidence >= {self.min_confidence})"""


def _search_statement(
    params: Params, org_id: str, text: str, vector: Sequence[float], filters: SearchFilters, limit: int
) -> str:
    """The dense and the lexical candidates of a search, fused, with what ranks them."""
    scope = _SearchScope.add(params, org_id, filters)
    query_vector, top, query_text = params.add(unit(vector)), params.add(limit), params.add(text)
    return f"""
        WITH dense AS (
            -- Straight on the table (no shared CTE in between) so the HNSW index serves it.
            SELECT o.id, -(o.embedding <#> {query_vector}) AS similarity FROM observations.observations o
            WHERE {scope.where()}
            ORDER BY o.embedding <#> {query_vector} LIMIT {top}
        ),
        lexical AS (
            -- A function so the GIN index serves it despite RLS (see the migration).
            SELECT m.id, m.lexical
            FROM observations.lexical_matches({query_text}::text, {scope.agent}, {scope.user}, {scope.team},
                                              {scope.kinds}, {scope.statuses}, {scope.min_confidence},
                                              {top}::integer) m
        ),
        fused AS (
            SELECT coalesce(d.id, l.id) AS id, d.similarity, coalesce(l.lexical, 0) AS lexical
            FROM dense d FULL JOIN lexical l ON l.id = d.id
        )
        -- The candidates' ids as one array: primary-key probes, never a scan of the org's rows
        -- (joined to the FULL JOIN directly, the planner hashes the whole table).
        SELECT o.id, coalesce(f.similarity, -(o.embedding <#> {query_vector})) AS similarity, f.lexical, o.confidence
        FROM observations.observations o JOIN fused f ON f.id = o.id
        WHERE o.org_id = {scope.org} AND o.id = ANY (ARRAY(SELECT id FROM fused))
    """


def _query_conditions(params: Params, org_id: str, filters: QueryFilters) -> str:
    """Only the filters given, as parameters: each shape of query gets its own plan, so the
    planner can use the index that matches it (a catch-all ``$n = '' OR`` predicate cannot)."""
    conditions = [f"o.org_id = {params.add(org_id)}"]
    if filters.context:
        # A context's view (BeliefScope.shows): the user's and the org's, the agent's and agent-less ones.
        user, team = params.add(filters.user_id), params.add(filters.team_id)
        conditions += [f"(o.user_id = {user} OR o.user_id = '')", f"(o.team_id = {team} OR o.team_id = '')"]
        conditions.append("NOT o.unattributed")
        if filters.agent_id:
            conditions.append(f"(o.agent_id = {params.add(filters.agent_id)} OR o.agent_id = '')")
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
            conditions.append(f"o.{column} = {params.add(value)}")
    if filters.min_confidence is not None:
        conditions.append(f"o.confidence >= {params.add(filters.min_confidence)}")
    if filters.tags:
        conditions.append(f"o.tags @> {params.add(list(filters.tags))}::text[]")
    return " AND ".join(conditions)


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
        params = Params()
        where = _query_conditions(params, org_id, filters)
        if after is not None:
            c, f = params.add(after.confidence), params.add(after.freshness)
            i = params.add(uuid.UUID(after.observation_id))
            # After the cursor in (confidence desc, freshness desc, id asc): a keyset, not an offset.
            where += (
                f" AND (o.confidence < {c} OR (o.confidence = {c}"
                f" AND (o.freshness < {f} OR (o.freshness = {f} AND o.id > {i}))))"
            )
        top = params.add(limit)
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                f"""
                SELECT {COLUMNS} FROM observations.observations o WHERE {where}
                ORDER BY o.confidence DESC, o.freshness DESC, o.id
                LIMIT {top}
                """,
                *params.values,
            )
        return [observation_from_row(row) for row in rows]

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
        params = Params()
        statement = _search_statement(params, org_id, text, vector, filters, limit)
        async with tenant_transaction(self._pool, org_id, scan) as connection:
            rows = await connection.fetch(statement, *params.values)
        return [
            SearchHit(str(row["id"]), float(row["similarity"]), float(row["lexical"]), float(row["confidence"]))
            for row in rows
        ]

    async def get_many(self, org_id: str, ids: Sequence[str]) -> list[Observation]:
        return [observation_from_row(row) for row in await read_many(self._pool, org_id, ids, embeddings=False)]

    async def get_many_with_embeddings(
        self, org_id: str, ids: Sequence[str]
    ) -> list[tuple[Observation, tuple[float, ...]]]:
        return [
            (observation_from_row(row), stored_embedding(row[EMBEDDING_COLUMN]))
            for row in await read_many(self._pool, org_id, ids, embeddings=True)
        ]

    async def history(self, org_id: str, observation_id: str) -> list[Observation]:
        key = uuid_or_none(observation_id)
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
                SELECT {COLUMNS} FROM chain c JOIN observations.observations o ON o.org_id = $1 AND o.id = c.id
                ORDER BY c.depth DESC
                """,
                org_id,
                key,
            )
        return [observation_from_row(row) for row in rows]

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
