"""The engagement state in Postgres schema ``observations``, behind row-level security keyed on org.

Every statement names the org as well (RLS is the second wall). Mutations lock the row they
change (``FOR UPDATE``) and run the domain's decision inside the same transaction, so
concurrent calls on one hypothesis, unknown or week are serialised and none is lost.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

import asyncpg
from lore_runtime.errors import Conflict, InvalidArgument, NotFound
from lore_runtime.stores import tenant_transaction

from observations_svc.adapters.postgres_observations import taken
from observations_svc.adapters.rows import from_row
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
    HypothesisStatus,
    Revision,
    Stance,
    Unknown,
    UnknownStatus,
)
from observations_svc.domain.restore import EngagementRow
from observations_svc.usecases.engagement_ports import RestoreCounts

_HYPOTHESIS_COLUMNS = "id, statement, confidence, prior, status, archive_note, finding_id, created_at, updated_at"
_UNKNOWN_COLUMNS = "id, question, why_it_matters, status, resolution, created_at, resolved_at"

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
                _HYPOTHESIS_COLUMNS,
                org_id,
                is_open="status = 'active'",
                is_closed="status <> 'active'",
                closed_at="updated_at",
                closed_shown=limits.CLOSED_HYPOTHESES_SHOWN,
            )
            hypotheses = await _with_details(connection, org_id, hypothesis_rows)
            unknown_rows = await _open_then_closed(
                connection,
                "unknowns",
                _UNKNOWN_COLUMNS,
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
            unknowns=tuple(_unknown(row) for row in unknown_rows),
            findings=tuple(_finding(row) for row in finding_rows),
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
            replayed = await _replayed(connection, "hypotheses", _HYPOTHESIS_COLUMNS, org_id, request_id)
            if replayed is not None:
                return (await _with_details(connection, org_id, [replayed]))[0]
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
            row = await _locked(connection, "hypotheses", _HYPOTHESIS_COLUMNS, org_id, hypothesis_id)
            if row is None:
                raise NotFound(
                    f"no hypothesis {hypothesis_id}", reason="HYPOTHESIS_NOT_FOUND", metadata={"id": hypothesis_id}
                )
            current = (await _with_details(connection, org_id, [row]))[0]
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
            replayed = await _replayed(connection, "unknowns", _UNKNOWN_COLUMNS, org_id, request_id)
            if replayed is not None:
                return _unknown(replayed)
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
            row = await _locked(connection, "unknowns", _UNKNOWN_COLUMNS, org_id, unknown_id)
            if row is None:
                raise NotFound(f"no unknown {unknown_id}", reason="UNKNOWN_NOT_FOUND", metadata={"id": unknown_id})
            unknown = decide(_unknown(row))
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

    # ------------------------------------------------------------------ export and import

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
            rows = await _export_page(connection, "hypotheses", _HYPOTHESIS_COLUMNS, org_id, after, limit)
            hypotheses = await _with_details(connection, org_id, rows)
            finding_ids = [uuid.UUID(hypothesis.finding_id) for hypothesis in hypotheses if hypothesis.finding_id]
            findings = {
                finding.id: finding
                for finding in map(
                    _finding,
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
            rows = await _export_page(connection, "unknowns", _UNKNOWN_COLUMNS, org_id, after, limit)
        return [_unknown(row) for row in rows]

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
        await _insert_revisions(connection, org_id, hypothesis.id, [(hypothesis.epoch, change.new_revision)])
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


async def _with_details(
    connection: asyncpg.Connection, org_id: str, rows: Sequence[asyncpg.Record]
) -> list[Hypothesis]:
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


def _unknown(row: asyncpg.Record) -> Unknown:
    return from_row(Unknown, row, id=str(row["id"]), status=UnknownStatus(row["status"]))


def _finding(row: asyncpg.Record) -> Finding:
    return from_row(Finding, row, id=str(row["id"]), hypothesis_id=str(row["hypothesis_id"]))


def _after(after: tuple[datetime, str] | None) -> tuple[datetime | None, uuid.UUID | None]:
    return (after[0], uuid.UUID(after[1])) if after is not None else (None, None)


# ``table`` and ``columns`` below are this module's fixed names, never user input.


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


async def _insert_revisions(
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
            uuid.UUID(hypothesis.id),
            [uuid.UUID(line.id) for line in hypothesis.evidence],
            [line.statement for line in hypothesis.evidence],
            [line.stance.value for line in hypothesis.evidence],
            [line.weight for line in hypothesis.evidence],
            [line.source for line in hypothesis.evidence],
            [line.observed_at for line in hypothesis.evidence],
            [line.recorded_at for line in hypothesis.evidence],
            [line.epoch for line in hypothesis.evidence],
        )
        if len(rows) < len(hypothesis.evidence):
            inserted_ids = {str(row["id"]) for row in rows}
            raise taken("evidence line", next(line.id for line in hypothesis.evidence if line.id not in inserted_ids))
    if hypothesis.revisions:
        await _insert_revisions(connection, org_id, hypothesis.id, list(enumerate(hypothesis.revisions, start=1)))
    if promoted and finding is not None:
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
