"""Idempotency records in Postgres (``gateway.caller_idempotency_records``, one namespace per caller:
org, principal and pinned user), every statement in the caller's tenant transaction:
``api/http/idempotency.py`` says when a record is claimed, kept, replayed and dropped, and
``domain/idempotency_subjects.py`` whom a record concerns.

``gateway.idempotency_records`` is the previous release's table, keyed by org and principal only,
still written by its gateways during a rolling upgrade: erasure deletes from it too, and the purge
empties it as its records expire (migration ``0005_idempotency_per_caller.sql``).

Each new record also purges up to ``PURGE_BATCH`` expired records of any tenant
(``gateway.purge_expired_idempotency_records``, the schema owner's function), so the table never
outgrows its live records by much, with no background job.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg
from lore_runtime import errors
from lore_runtime.stores import tenant_transaction

from gateway_svc.domain.idempotency import HEADER, Claim, IdempotencyRecord, Namespace

PURGE_BATCH = 100


class PostgresIdempotencyStore:
    """Records in ``gateway.caller_idempotency_records``, every statement in the caller's tenant transaction."""

    def __init__(self, pool: asyncpg.Pool, *, ttl_seconds: float, in_progress_seconds: float) -> None:
        self._pool = pool
        self._ttl_seconds = ttl_seconds
        self._in_progress_seconds = in_progress_seconds

    async def claim(
        self,
        namespace: Namespace,
        key: str,
        method: str,
        path: str,
        request_hash: bytes,
        subjects: Sequence[str] = (),
    ) -> Claim | IdempotencyRecord:
        """This request's claim on ``namespace``'s key (it is first, or the record there had expired or
        was abandoned), else the live record another request of the namespace left. ``subjects``: whom
        the request names (idempotency_subjects.py), so an erasure finds the record."""
        for _ in range(3):
            async with tenant_transaction(self._pool, namespace.org_id) as connection:
                created_at = await connection.fetchval(
                    """
                    INSERT INTO gateway.caller_idempotency_records AS r
                        (org_id, principal, user_id, key, method, path, request_hash, state, expires_at, subjects)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, 'in_progress', now() + make_interval(secs => $8),
                            $10::text[])
                    ON CONFLICT (org_id, principal, user_id, key) DO UPDATE
                        SET method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
                            state = 'in_progress', status_code = NULL, content_type = NULL, body = NULL,
                            created_at = now(), expires_at = EXCLUDED.expires_at, subjects = EXCLUDED.subjects
                        WHERE r.expires_at <= now()
                           OR (r.state = 'in_progress' AND r.created_at < now() - make_interval(secs => $9))
                    RETURNING created_at
                    """,
                    namespace.org_id,
                    namespace.principal,
                    namespace.user_id,
                    key,
                    method,
                    path,
                    request_hash,
                    float(self._ttl_seconds),
                    float(self._in_progress_seconds),
                    list(subjects),
                )
                if created_at is not None:
                    await connection.fetchval("SELECT gateway.purge_expired_idempotency_records($1)", PURGE_BATCH)
                    return Claim(namespace, key, created_at)
                row = await connection.fetchrow(
                    """
                    SELECT request_hash, state, status_code, content_type, body
                    FROM gateway.caller_idempotency_records
                    WHERE org_id = $1 AND principal = $2 AND user_id = $3 AND key = $4
                    """,
                    namespace.org_id,
                    namespace.principal,
                    namespace.user_id,
                    key,
                )
            if row is not None:
                return IdempotencyRecord(
                    row["request_hash"], row["state"], row["status_code"], row["content_type"], row["body"]
                )
            # The record went between the two statements (its request failed): try again.
        raise errors.Conflict(
            f"another request with this {HEADER} is being processed; retry shortly",
            reason="IDEMPOTENCY_KEY_IN_USE",
            metadata={"header": HEADER},
        )

    async def complete(
        self, claim: Claim, status_code: int, content_type: str | None, body: bytes, subjects: Sequence[str] = ()
    ) -> None:
        """Keep the response; ``subjects`` adds whom the response names to whom the request did."""
        namespace = claim.namespace
        async with tenant_transaction(self._pool, namespace.org_id) as connection:
            await connection.execute(
                """
                UPDATE gateway.caller_idempotency_records
                SET state = 'completed', status_code = $6, content_type = $7, body = $8,
                    subjects = ARRAY(SELECT DISTINCT s FROM unnest(subjects || $9::text[]) AS s ORDER BY s)
                WHERE org_id = $1 AND principal = $2 AND user_id = $3 AND key = $4 AND created_at = $5
                  AND state = 'in_progress'
                """,
                namespace.org_id,
                namespace.principal,
                namespace.user_id,
                claim.key,
                claim.created_at,
                status_code,
                content_type,
                body,
                list(subjects),
            )

    async def release(self, claim: Claim) -> None:
        """Drop the claim, so a retry runs the request again."""
        namespace = claim.namespace
        async with tenant_transaction(self._pool, namespace.org_id) as connection:
            await connection.execute(
                """
                DELETE FROM gateway.caller_idempotency_records
                WHERE org_id = $1 AND principal = $2 AND user_id = $3 AND key = $4 AND created_at = $5
                  AND state = 'in_progress'
                """,
                namespace.org_id,
                namespace.principal,
                namespace.user_id,
                claim.key,
                claim.created_at,
            )

    async def forget(self, org_id: str, subject: list[str], session_ids: list[str]) -> int:
        """Delete the org's records that name the whole ``subject`` or one of its sessions, the previous
        release's table's too; how many went."""
        if not subject and not session_ids:
            return 0
        gone = 0
        async with tenant_transaction(self._pool, org_id) as connection:
            for table in ("gateway.caller_idempotency_records", "gateway.idempotency_records"):
                status = await connection.execute(
                    f"""
                    DELETE FROM {table}
                    WHERE org_id = $1
                      AND ((cardinality($2::text[]) > 0 AND subjects @> $2::text[]) OR subjects && $3::text[])
                    """,  # the table: one of the two constants above
                    org_id,
                    subject,
                    [f"session:{session_id}" for session_id in session_ids],
                )
                gone += int(status.rsplit(" ", 1)[-1])
        return gone
