"""``lore erasure purge``: after erasures, rewrite the stores' files so the erased text is gone from
the disk too, not only from every query (docs/operations.md, "Erasure and purge").

1. ``MemoryService.PurgeErased`` (``LORE_MEMORY_ADDR``): the memory service copies its embedded
   Qdrant shards without their deleted points (fresh segments and write-ahead log) and has Redis
   rewrite its append-only file (and RDB snapshot); it is the one process that may open them.
2. Postgres, as the schema owner (``LORE_MIGRATIONS_DATABASE_URL``, else ``LORE_DATABASE_URL``,
   else the local stack's): ``VACUUM`` of every Lore table (``--full``: ``VACUUM FULL``, which
   rewrites each table into new files and locks it meanwhile), then ``CHECKPOINT``, a WAL switch and
   another ``CHECKPOINT`` so the segments that held the erased rows can be recycled. The last two
   need the ``pg_checkpoint`` role and ``EXECUTE`` on ``pg_switch_wal()`` (the local stack grants
   both to its owner); without them the command says so and still exits 0.

The erase job asks the memory service for the same purge (deferred) when an erasure completes;
Postgres vacuums on its own schedule (autovacuum), so run this for a purge you can vouch for.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import asyncpg
import grpc
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc

from lore_cli.keys import owner_database_url
from lore_cli.schemas import SCHEMAS
from lore_cli.service_calls import address, dial, report_rpc_error, tenant

# Copying the shards takes ~1 s per 10,000 points; Redis's rewrite is as fast as its data.
TIMEOUT_SECONDS = 3600.0
DATABASE_FAILURES = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)


async def purge(environ: Mapping[str, str], *, full: bool = False) -> int:
    where = address(environ, "memory")
    async with dial(environ, where) as channel:
        stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
        try:
            done = await stub.PurgeErased(
                memory_service_pb2.PurgeErasedRequest(), metadata=tenant("system"), timeout=TIMEOUT_SECONDS
            )
        except grpc.aio.AioRpcError as error:
            return report_rpc_error("lore erasure purge", "memory", where, error)
    for part in done.stores:
        kept = f", {part.kept} points kept" if part.outcome == "compacted" and part.store.startswith("qdrant") else ""
        detail = f" ({part.detail})" if part.detail else ""
        print(f"{part.store}: {part.outcome}{kept}{detail}")
    try:
        async with owner_database_url(environ) as dsn:
            for line in await vacuum_and_checkpoint(dsn, full=full):
                print(line)
    except DATABASE_FAILURES as error:
        print(f"lore erasure purge: postgres: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


async def vacuum_and_checkpoint(owner_dsn: str, *, full: bool = False) -> list[str]:
    """VACUUM every table of Lore's schemas, then checkpoint and switch the WAL; one line per step."""
    connection = await asyncpg.connect(owner_dsn)
    try:
        tables = await connection.fetch(
            "SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ANY($1::text[]) ORDER BY 1, 2",
            list(SCHEMAS),
        )
        verb = "VACUUM (FULL, ANALYZE)" if full else "VACUUM (ANALYZE)"
        for table in tables:  # VACUUM runs outside a transaction: asyncpg's execute opens none
            await connection.execute(f'{verb} "{table["schemaname"]}"."{table["tablename"]}"')
        lines = [f"postgres: {verb} of {len(tables)} tables"]
        try:
            await connection.execute("CHECKPOINT")
            await connection.fetchval("SELECT pg_switch_wal()")
            await connection.execute("CHECKPOINT")
            lines.append("postgres: checkpoint, WAL switch, checkpoint: the old segments can be recycled")
        except asyncpg.InsufficientPrivilegeError as error:
            lines.append(
                f"postgres: checkpoint skipped ({error}); grant pg_checkpoint and EXECUTE on pg_switch_wal() to "
                "this role, or Postgres recycles the segments after its own checkpoints (checkpoint_timeout)"
            )
        return lines
    finally:
        await connection.close()
