"""``EngagementArchive`` in Postgres: an org's whole engagement state (GetEngagement's view is
bounded) paged out for ``lore org export`` and written back exactly as given by ``lore org import``,
behind row-level security keyed on org; every statement names the org as well.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import asyncpg
from lore_runtime.errors import InvalidArgument
from lore_runtime.stores import tenant_transaction

from observations_svc.adapters.postgres.engagement_rows import (
    HYPOTHESIS_COLUMNS,
    UNKNOWN_COLUMNS,
    finding_from_row,
    insert_revisions,
    unknown_from_row,
    with_details,
)
from observations_svc.adapters.postgres.rows import taken
from observations_svc.domain.engagement import EvidenceLine, Finding, Hypothesis, HypothesisStatus, Unknown
from observations_svc.domain.restore import EngagementRow
from observations_svc.usecases.engagement_ports import RestoreCounts


class PostgresEngagementArchive:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def export_row(self, org_id: str) -> EngagementRow | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await connection.fetchrow(
                """
                SELECT week_number, week_started_at, created_at, updated_at FROM observations.engagements
                WHERE org_id = $1
                """,
                org_id,
            )
        return None if row is None else EngagementRow(**dict(row))

    async def export_hypotheses(
        self, org_id: str, after: tuple[datetime, str] | None, limit: int
    ) -> list[tuple[Hypothesis, Finding | None]]:
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await _export_page(connection, "hypotheses", HYPOTHESIS_COLUMNS, org_id, after, limit)
            hypotheses = await with_details(connection, org_id, rows)
            finding_ids = [uuid.UUID(hypothesis.finding_id) for hypothesis in hypotheses if hypothesis.finding_id]
            findings = {
                finding.id: finding
                for finding in map(
                    finding_from_row,
                    await connection.fetch(
                        """
                        SELECT id, statement, source, hypothesis_id, recorded_at FROM observations.findings
                        WHERE org_id = $1 AND id = ANY ($2::uuid[])
                        """,
                        org_id,
                        finding_ids,
                    )
                    if finding_ids
                    else [],
                )
            }
        return [(hypothesis, findings.get(hypothesis.finding_id)) for hypothesis in hypotheses]

    async def export_unknowns(self, org_id: str, after: tuple[datetime, str] | None, limit: int) -> list[Unknown]:
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await _export_page(connection, "unknowns", UNKNOWN_COLUMNS, org_id, after, limit)
        return [unknown_from_row(row) for row in rows]

    async def restore(
        self,
        org_id: str,
        row: EngagementRow | None,
        hypotheses: Sequence[tuple[Hypothesis, Finding | None]],
        unknowns: Sequence[Unknown],
    ) -> RestoreCounts:
        async with tenant_transaction(self._pool, org_id) as connection:
            if row is not None:
                await connection.execute(
                    """
                    INSERT INTO observations.engagements (org_id, week_number, week_started_at, created_at, updated_at)
                    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (org_id) DO NOTHING
                    """,
                    org_id,
                    row.week_number,
                    row.week_started_at,
                    row.created_at,
                    row.updated_at,
                )
            if not await connection.fetchval("SELECT 1 FROM observations.engagements WHERE org_id = $1", org_id):
                raise InvalidArgument("engagement", "is required: the organisation has no engagement state yet")
            held = await _held(connection, "hypotheses", org_id, [hypothesis.id for hypothesis, _ in hypotheses])
            fresh = [(hypothesis, finding) for hypothesis, finding in hypotheses if hypothesis.id not in held]
            for hypothesis, finding in fresh:
                await _restore_hypothesis(connection, org_id, hypothesis, finding)
            held_unknowns = await _held(connection, "unknowns", org_id, [unknown.id for unknown in unknowns])
            fresh_unknowns = [unknown for unknown in unknowns if unknown.id not in held_unknowns]
            for unknown in fresh_unknowns:
                inserted = await connection.fetchval(
                    """
                    INSERT INTO observations.unknowns
                        (id, org_id, question, why_it_matters, status, resolution, created_at, resolved_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING RETURNING id
                    """,
                    uuid.UUID(unknown.id),
                    org_id,
                    unknown.question,
                    unknown.why_it_matters,
                    unknown.status.value,
                    unknown.resolution,
                    unknown.created_at,
                    unknown.resolved_at,
                )
                if inserted is None:
                    raise taken("unknown", unknown.id)
        skipped = len(hypotheses) - len(fresh) + len(unknowns) - len(fresh_unknowns)
        return RestoreCounts(hypotheses=len(fresh), unknowns=len(fresh_unknowns), skipped=skipped)


def _after(after: tuple[datetime, str] | None) -> tuple[datetime | None, uuid.UUID | None]:
    return (after[0], uuid.UUID(after[1])) if after is not None else (None, None)


# ``table`` and ``columns`` below are fixed names of engagement_rows.py, never user input.


async def _export_page(
    connection: asyncpg.Connection,
    table: str,
    columns: str,
    org_id: str,
    after: tuple[datetime, str] | None,
    limit: int,
) -> list[asyncpg.Record]:
    """Up to ``limit`` rows, oldest first, after the keyset position ``after``."""
    return await connection.fetch(
        f"""
        SELECT {columns} FROM observations.{table}
        WHERE org_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2, $3::uuid))
        ORDER BY created_at, id LIMIT $4
        """,
        org_id,
        *_after(after),
        limit,
    )


async def _held(connection: asyncpg.Connection, table: str, org_id: str, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` the org already holds in ``table`` (a fixed table name, never user input)."""
    if not ids:
        return set()
    rows = await connection.fetch(
        f"SELECT id FROM observations.{table} WHERE org_id = $1 AND id = ANY ($2::uuid[])",
        org_id,
        [uuid.UUID(value) for value in ids],
    )
    return {str(row["id"]) for row in rows}


async def _restore_hypothesis(
    connection: asyncpg.Connection, org_id: str, hypothesis: Hypothesis, finding: Finding | None
) -> None:
    """Insert the hypothesis as it was. A promoted one goes in active and is promoted after its
    finding exists: the two rows reference each other and the constraints are not deferrable."""
    promoted = hypothesis.status is HypothesisStatus.PROMOTED
    inserted = await connection.fetchval(
        """
        INSERT INTO observations.hypotheses
            (id, org_id, statement, confidence, prior, status, archive_note, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING id
        """,
        uuid.UUID(hypothesis.id),
        org_id,
        hypothesis.statement,
        hypothesis.confidence,
        hypothesis.prior,
        HypothesisStatus.ACTIVE.value if promoted else hypothesis.status.value,
        hypothesis.archive_note,
        hypothesis.created_at,
        hypothesis.updated_at,
    )
    if inserted is None:
        raise taken("hypothesis", hypothesis.id)
    if hypothesis.evidence:
        await _restore_evidence_lines(connection, org_id, hypothesis.id, hypothesis.evidence)
    if hypothesis.revisions:
        await insert_revisions(connection, org_id, hypothesis.id, list(enumerate(hypothesis.revisions, start=1)))
    if promoted and finding is not None:
        await _restore_finding(connection, org_id, hypothesis, finding)


async def _restore_evidence_lines(
    connection: asyncpg.Connection, org_id: str, hypothesis_id: str, lines: Sequence[EvidenceLine]
) -> None:
    rows = await connection.fetch(
        """
        INSERT INTO observations.hypothesis_evidence
            (id, org_id, hypothesis_id, statement, stance, weight, source, observed_at, recorded_at, epoch)
        SELECT e.id, $1, $2, e.statement, e.stance, e.weight, e.source, e.observed_at, e.recorded_at, e.epoch
        FROM unnest($3::uuid[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::timestamptz[],
                    $9::timestamptz[], $10::int[])
             AS e(id, statement, stance, weight, source, observed_at, recorded_at, epoch)
        ON CONFLICT (id) DO NOTHING RETURNING id
        """,
        org_id,
        uuid.UUID(hypothesis_id),
        [uuid.UUID(line.id) for line in lines],
        [line.statement for line in lines],
        [line.stance.value for line in lines],
        [line.weight for line in lines],
        [line.source for line in lines],
        [line.observed_at for line in lines],
        [line.recorded_at for line in lines],
        [line.epoch for line in lines],
    )
    if len(rows) < len(lines):
        inserted_ids = {str(row["id"]) for row in rows}
        raise taken("evidence line", next(line.id for line in lines if line.id not in inserted_ids))


async def _restore_finding(
    connection: asyncpg.Connection, org_id: str, hypothesis: Hypothesis, finding: Finding
) -> None:
    """The promoted hypothesis's finding, then the hypothesis promoted to it."""
    if not await connection.fetchval(
        """
        INSERT INTO observations.findings (id, org_id, hypothesis_id, statement, source, recorded_at)
        VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING RETURNING id
        """,
        uuid.UUID(finding.id),
        org_id,
        uuid.UUID(hypothesis.id),
        finding.statement,
        finding.source,
        finding.recorded_at,
    ):
        raise taken("finding", finding.id)
    await connection.execute(
        """
        UPDATE observations.hypotheses SET status = 'promoted', finding_id = $3, updated_at = $4
        WHERE org_id = $1 AND id = $2
        """,
        org_id,
        uuid.UUID(hypothesis.id),
        uuid.UUID(finding.id),
        hypothesis.updated_at,
    )
