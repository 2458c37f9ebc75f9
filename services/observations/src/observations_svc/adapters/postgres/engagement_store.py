"""``EngagementStore`` in Postgres schema ``observations``, behind row-level security keyed on org.

Every statement names the org as well (RLS is the second wall). Mutations lock the row they
change (``FOR UPDATE``) and run the domain's decision inside the same transaction, so
concurrent calls on one hypothesis, unknown or week are serialised and none is lost.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

import asyncpg
from lore_runtime.errors import Conflict, NotFound
from lore_runtime.stores import tenant_transaction

from observations_svc.adapters.postgres.engagement_rows import (
    HYPOTHESIS_COLUMNS,
    UNKNOWN_COLUMNS,
    finding_from_row,
    insert_revisions,
    unknown_from_row,
    with_details,
)
from observations_svc.domain import engagement_limits as limits
from observations_svc.domain.engagement import (
    DIGEST_OF_FIRST_SESSION,
    FIRST_SESSION,
    Engagement,
    EngagementDigest,
    EvidenceLine,
    Finding,
    Hypothesis,
    HypothesisChange,
    HypothesisDigest,
    Unknown,
    UnknownStatus,
)

# GetEngagement's digest in one statement: the week, then the active hypotheses (oldest first) with
# their evidence counted (outstanding: contradicting lines added since the last revision), the open
# unknowns (oldest first) and the newest findings, each as an array of rows. No row: first session.
_DIGEST = """
SELECT e.week_number,
    ARRAY(
        SELECT ROW(h.id, h.statement, h.confidence, h.created_at, h.updated_at, lines.total, lines.outstanding)
        FROM observations.hypotheses h
        CROSS JOIN LATERAL (
            SELECT count(*) AS total,
                   count(*) FILTER (
                       WHERE v.stance = 'contradict' AND v.epoch >= (
                           SELECT count(*) FROM observations.hypothesis_revisions r
                           WHERE r.org_id = h.org_id AND r.hypothesis_id = h.id
                       )
                   ) AS outstanding
            FROM observations.hypothesis_evidence v
            WHERE v.org_id = h.org_id AND v.hypothesis_id = h.id
        ) lines
        WHERE h.org_id = e.org_id AND h.status = 'active'
        ORDER BY h.created_at, h.id
    ) AS hypotheses,
    ARRAY(
        SELECT ROW(u.id, u.question, u.why_it_matters, u.created_at)
        FROM observations.unknowns u
        WHERE u.org_id = e.org_id AND u.status = 'open'
        ORDER BY u.created_at, u.id
    ) AS unknowns,
    ARRAY(
        SELECT ROW(f.id, f.statement, f.source, f.hypothesis_id, f.recorded_at)
        FROM observations.findings f
        WHERE f.org_id = e.org_id
        ORDER BY f.recorded_at DESC, f.id
        LIMIT $2
    ) AS findings
FROM observations.engagements e
WHERE e.org_id = $1
"""


class PostgresEngagementStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def read(self, org_id: str) -> Engagement:
        async with tenant_transaction(self._pool, org_id) as connection:
            week = await connection.fetchval(
                "SELECT week_number FROM observations.engagements WHERE org_id = $1", org_id
            )
            if week is None:
                return FIRST_SESSION
            hypothesis_rows = await _open_then_closed(
                connection,
                "hypotheses",
                HYPOTHESIS_COLUMNS,
                org_id,
                is_open="status = 'active'",
                is_closed="status <> 'active'",
                closed_at="updated_at",
                closed_shown=limits.CLOSED_HYPOTHESES_SHOWN,
            )
            hypotheses = await with_details(connection, org_id, hypothesis_rows)
            unknown_rows = await _open_then_closed(
                connection,
                "unknowns",
                UNKNOWN_COLUMNS,
                org_id,
                is_open="status = 'open'",
                is_closed="status = 'resolved'",
                closed_at="resolved_at",
                closed_shown=limits.RESOLVED_UNKNOWNS_SHOWN,
            )
            finding_rows = await connection.fetch(
                """
                SELECT id, statement, source, hypothesis_id, recorded_at FROM observations.findings
                WHERE org_id = $1 ORDER BY recorded_at DESC, id LIMIT $2
                """,
                org_id,
                limits.FINDINGS_SHOWN,
            )
        return Engagement(
            week_number=week,
            first_session=False,
            hypotheses=tuple(hypotheses),
            unknowns=tuple(unknown_from_row(row) for row in unknown_rows),
            findings=tuple(finding_from_row(row) for row in finding_rows),
        )

    async def digest(self, org_id: str) -> EngagementDigest:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await connection.fetchrow(_DIGEST, org_id, limits.FINDINGS_SHOWN)
        if row is None:
            return DIGEST_OF_FIRST_SESSION
        return EngagementDigest(
            week_number=row["week_number"],
            first_session=False,
            hypotheses=tuple(
                HypothesisDigest(str(h_id), statement, confidence, created, updated, total, outstanding)
                for h_id, statement, confidence, created, updated, total, outstanding in row["hypotheses"]
            ),
            unknowns=tuple(
                Unknown(id=str(u_id), question=question, why_it_matters=why, status=UnknownStatus.OPEN, created_at=at)
                for u_id, question, why, at in row["unknowns"]
            ),
            findings=tuple(
                Finding(id=str(f_id), statement=statement, source=source, hypothesis_id=str(h_id), recorded_at=at)
                for f_id, statement, source, h_id, at in row["findings"]
            ),
        )

    async def form_hypothesis(
        self, org_id: str, request_id: str, now: datetime, decide: Callable[[int], Hypothesis]
    ) -> Hypothesis:
        async with tenant_transaction(self._pool, org_id) as connection:
            await _lock_engagement(connection, org_id, now)
            replayed = await _replayed(connection, "hypotheses", HYPOTHESIS_COLUMNS, org_id, request_id)
            if replayed is not None:
                return (await with_details(connection, org_id, [replayed]))[0]
            active = await connection.fetchval(
                "SELECT count(*) FROM observations.hypotheses WHERE org_id = $1 AND status = 'active'", org_id
            )
            hypothesis = decide(active)
            await connection.execute(
                """
                INSERT INTO observations.hypotheses
                    (id, org_id, statement, confidence, prior, status, request_id, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """,
                uuid.UUID(hypothesis.id),
                org_id,
                hypothesis.statement,
                hypothesis.confidence,
                hypothesis.prior,
                hypothesis.status.value,
                request_id,
                hypothesis.created_at,
                hypothesis.updated_at,
            )
            await _insert_evidence(connection, org_id, hypothesis.id, hypothesis.evidence, "")
        return hypothesis

    async def change_hypothesis(
        self,
        org_id: str,
        hypothesis_id: str,
        decide: Callable[[Hypothesis], HypothesisChange],
        *,
        request_id: str = "",
    ) -> HypothesisChange:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await _locked(connection, "hypotheses", HYPOTHESIS_COLUMNS, org_id, hypothesis_id)
            if row is None:
                raise NotFound(
                    f"no hypothesis {hypothesis_id}", reason="HYPOTHESIS_NOT_FOUND", metadata={"id": hypothesis_id}
                )
            current = (await with_details(connection, org_id, [row]))[0]
            if request_id and await connection.fetchval(
                "SELECT 1 FROM observations.hypothesis_evidence WHERE org_id = $1 AND request_id = $2",
                org_id,
                request_id,
            ):
                return HypothesisChange(hypothesis=current)
            change = decide(current)
            await _persist_change(connection, org_id, change, request_id)
        return change

    async def add_unknown(
        self, org_id: str, request_id: str, now: datetime, decide: Callable[[int], Unknown]
    ) -> Unknown:
        async with tenant_transaction(self._pool, org_id) as connection:
            await _lock_engagement(connection, org_id, now)
            replayed = await _replayed(connection, "unknowns", UNKNOWN_COLUMNS, org_id, request_id)
            if replayed is not None:
                return unknown_from_row(replayed)
            open_count = await connection.fetchval(
                "SELECT count(*) FROM observations.unknowns WHERE org_id = $1 AND status = 'open'", org_id
            )
            unknown = decide(open_count)
            await connection.execute(
                """
                INSERT INTO observations.unknowns (id, org_id, question, why_it_matters, status, request_id, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """,
                uuid.UUID(unknown.id),
                org_id,
                unknown.question,
                unknown.why_it_matters,
                unknown.status.value,
                request_id,
                unknown.created_at,
            )
        return unknown

    async def change_unknown(self, org_id: str, unknown_id: str, decide: Callable[[Unknown], Unknown]) -> Unknown:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await _locked(connection, "unknowns", UNKNOWN_COLUMNS, org_id, unknown_id)
            if row is None:
                raise NotFound(f"no unknown {unknown_id}", reason="UNKNOWN_NOT_FOUND", metadata={"id": unknown_id})
            unknown = decide(unknown_from_row(row))
            await connection.execute(
                """
                UPDATE observations.unknowns SET status = $3, resolution = $4, resolved_at = $5
                WHERE org_id = $1 AND id = $2
                """,
                org_id,
                uuid.UUID(unknown_id),
                unknown.status.value,
                unknown.resolution,
                unknown.resolved_at,
            )
        return unknown

    async def advance_week(self, org_id: str, expected_week: int | None, now: datetime) -> int:
        async with tenant_transaction(self._pool, org_id) as connection:
            week = await _lock_engagement(connection, org_id, now)
            if expected_week is not None and expected_week != week:
                raise Conflict(
                    f"the week is {week}, not {expected_week}: another call advanced it",
                    reason="WEEK_MOVED",
                    metadata={"week_number": str(week)},
                )
            return await connection.fetchval(
                """
                UPDATE observations.engagements SET week_number = week_number + 1, week_started_at = $2, updated_at = $2
                WHERE org_id = $1 RETURNING week_number
                """,
                org_id,
                now,
            )


async def _lock_engagement(connection: asyncpg.Connection, org_id: str, now: datetime) -> int:
    """Create the org's state row on its first write and lock it; returns the current week."""
    await connection.execute(
        """
        INSERT INTO observations.engagements (org_id, week_number, week_started_at, created_at, updated_at)
        VALUES ($1, 1, $2, $2, $2)
        ON CONFLICT (org_id) DO NOTHING
        """,
        org_id,
        now,
    )
    return await connection.fetchval(
        "SELECT week_number FROM observations.engagements WHERE org_id = $1 FOR UPDATE", org_id
    )


async def _persist_change(
    connection: asyncpg.Connection, org_id: str, change: HypothesisChange, request_id: str
) -> None:
    hypothesis = change.hypothesis
    hypothesis_id = uuid.UUID(hypothesis.id)
    await _insert_evidence(connection, org_id, hypothesis.id, change.new_evidence, request_id)
    if change.new_revision is not None:
        await insert_revisions(connection, org_id, hypothesis.id, [(hypothesis.epoch, change.new_revision)])
    if change.finding is not None:
        finding = change.finding
        await connection.execute(
            """
            INSERT INTO observations.findings (id, org_id, hypothesis_id, statement, source, recorded_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            """,
            uuid.UUID(finding.id),
            org_id,
            hypothesis_id,
            finding.statement,
            finding.source,
            finding.recorded_at,
        )
    await connection.execute(
        """
        UPDATE observations.hypotheses
        SET statement = $3, confidence = $4, prior = $5, status = $6, archive_note = $7, finding_id = $8,
            updated_at = $9
        WHERE org_id = $1 AND id = $2
        """,
        org_id,
        hypothesis_id,
        hypothesis.statement,
        hypothesis.confidence,
        hypothesis.prior,
        hypothesis.status.value,
        hypothesis.archive_note,
        uuid.UUID(hypothesis.finding_id) if hypothesis.finding_id else None,
        hypothesis.updated_at,
    )


async def _insert_evidence(
    connection: asyncpg.Connection, org_id: str, hypothesis_id: str, lines: Sequence[EvidenceLine], request_id: str
) -> None:
    if not lines:
        return
    await connection.executemany(
        """
        INSERT INTO observations.hypothesis_evidence
            (id, org_id, hypothesis_id, statement, stance, weight, source, observed_at, recorded_at, epoch, request_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
        """,
        [
            (
                uuid.UUID(line.id),
                org_id,
                uuid.UUID(hypothesis_id),
                line.statement,
                line.stance.value,
                line.weight,
                line.source,
                line.observed_at,
                line.recorded_at,
                line.epoch,
                request_id,
            )
            for line in lines
        ],
    )


# ``table`` and ``columns`` below are fixed names of engagement_rows.py, never user input.


async def _open_then_closed(
    connection: asyncpg.Connection,
    table: str,
    columns: str,
    org_id: str,
    *,
    is_open: str,
    is_closed: str,
    closed_at: str,
    closed_shown: int,
) -> list[asyncpg.Record]:
    """Every open row (oldest first), then the ``closed_shown`` most recently closed ones: what
    GetEngagement lists. ``is_open`` and ``is_closed`` are conditions on ``status``, ``closed_at`` the
    column that dates the closing (fixed SQL of this module, like ``table``)."""
    return [
        *await connection.fetch(
            f"SELECT {columns} FROM observations.{table} WHERE org_id = $1 AND {is_open} ORDER BY created_at, id",
            org_id,
        ),
        *await connection.fetch(
            f"""
            SELECT {columns} FROM observations.{table}
            WHERE org_id = $1 AND {is_closed} ORDER BY {closed_at} DESC, id LIMIT $2
            """,
            org_id,
            closed_shown,
        ),
    ]


async def _replayed(
    connection: asyncpg.Connection, table: str, columns: str, org_id: str, request_id: str
) -> asyncpg.Record | None:
    """The row an earlier call with ``request_id`` wrote, if one committed (none without a request id)."""
    if not request_id:
        return None
    return await connection.fetchrow(
        f"SELECT {columns} FROM observations.{table} WHERE org_id = $1 AND request_id = $2", org_id, request_id
    )


async def _locked(
    connection: asyncpg.Connection, table: str, columns: str, org_id: str, record_id: str
) -> asyncpg.Record | None:
    """The row, locked for the rest of the transaction (``FOR UPDATE``), or None."""
    return await connection.fetchrow(
        f"SELECT {columns} FROM observations.{table} WHERE org_id = $1 AND id = $2 FOR UPDATE",
        org_id,
        uuid.UUID(record_id),
    )
