"""The engagement state as rows of schema ``observations``: the columns, rows to records, and the
reads and writes both engagement ports make. ``table`` and ``columns`` arguments in this package are
its fixed names, never user input."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg

from observations_svc.adapters.postgres.rows import from_row
from observations_svc.domain.engagement import (
    EvidenceLine,
    Finding,
    Hypothesis,
    HypothesisStatus,
    Revision,
    Stance,
    Unknown,
    UnknownStatus,
)

HYPOTHESIS_COLUMNS = "id, statement, confidence, prior, status, archive_note, finding_id, created_at, updated_at"
UNKNOWN_COLUMNS = "id, question, why_it_matters, status, resolution, created_at, resolved_at"


def unknown_from_row(row: asyncpg.Record) -> Unknown:
    return from_row(Unknown, row, id=str(row["id"]), status=UnknownStatus(row["status"]))


def finding_from_row(row: asyncpg.Record) -> Finding:
    return from_row(Finding, row, id=str(row["id"]), hypothesis_id=str(row["hypothesis_id"]))


async def with_details(connection: asyncpg.Connection, org_id: str, rows: Sequence[asyncpg.Record]) -> list[Hypothesis]:
    """Hypotheses from their rows, with evidence and revisions read in two statements for all of them."""
    ids = [row["id"] for row in rows]
    evidence: dict[uuid.UUID, list[EvidenceLine]] = {hypothesis_id: [] for hypothesis_id in ids}
    revisions: dict[uuid.UUID, list[Revision]] = {hypothesis_id: [] for hypothesis_id in ids}
    if ids:
        for line in await connection.fetch(
            """
            SELECT id, hypothesis_id, statement, stance, weight, source, observed_at, recorded_at, epoch
            FROM observations.hypothesis_evidence
            WHERE org_id = $1 AND hypothesis_id = ANY($2::uuid[]) ORDER BY recorded_at, id
            """,
            org_id,
            ids,
        ):
            evidence[line["hypothesis_id"]].append(
                from_row(EvidenceLine, line, id=str(line["id"]), stance=Stance(line["stance"]))
            )
        for revision in await connection.fetch(
            """
            SELECT hypothesis_id, previous_statement, statement, previous_confidence, confidence, reason, revised_at
            FROM observations.hypothesis_revisions
            WHERE org_id = $1 AND hypothesis_id = ANY($2::uuid[]) ORDER BY seq
            """,
            org_id,
            ids,
        ):
            revisions[revision["hypothesis_id"]].append(from_row(Revision, revision))
    return [
        from_row(
            Hypothesis,
            row,
            id=str(row["id"]),
            status=HypothesisStatus(row["status"]),
            evidence=tuple(evidence[row["id"]]),
            revisions=tuple(revisions[row["id"]]),
            finding_id=str(row["finding_id"]) if row["finding_id"] else "",
        )
        for row in rows
    ]


async def insert_revisions(
    connection: asyncpg.Connection, org_id: str, hypothesis_id: str, numbered: Sequence[tuple[int, Revision]]
) -> None:
    """``numbered``: each revision with its ``seq`` (the hypothesis's epoch once it is made)."""
    await connection.executemany(
        """
        INSERT INTO observations.hypothesis_revisions
            (org_id, hypothesis_id, seq, previous_statement, statement, previous_confidence, confidence,
             reason, revised_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
        """,
        [
            (
                org_id,
                uuid.UUID(hypothesis_id),
                seq,
                revision.previous_statement,
                revision.statement,
                revision.previous_confidence,
                revision.confidence,
                revision.reason,
                revision.revised_at,
            )
            for seq, revision in numbered
        ],
    )
