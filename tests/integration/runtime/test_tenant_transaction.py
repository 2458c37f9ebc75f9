"""``tenant_transaction`` on a real Postgres: the org and the settings it opens with, in one round
trip, reach the transaction exactly as given, live only as long as it, and the transaction commits
or rolls back as asyncpg's own would."""

from __future__ import annotations

import asyncpg
import pytest
from lore_devstack import DatabaseUrls
from lore_runtime.errors import Conflict
from lore_runtime.stores import tenant_transaction, transaction_opening

# Values a literal must survive: quotes, backslashes (meaningful in escape strings, and in plain ones
# when standard_conforming_strings is off), a statement's end, and text outside ASCII.
AWKWARD = ["org-1", "o'brien", "back\\slash", "\\'; SELECT 1; --", "''", "ünïcødé 組織", "tab\tand\nline"]


@pytest.mark.parametrize("conforming", ["on", "off"])
async def test_the_org_reaches_the_transaction_exactly_as_given(pg_dsns: DatabaseUrls, conforming: str) -> None:
    settings = {"standard_conforming_strings": conforming}
    async with asyncpg.create_pool(pg_dsns.app_dsn, min_size=1, max_size=1, server_settings=settings) as pool:
        for org_id in AWKWARD:
            async with tenant_transaction(pool, org_id) as connection:
                assert await connection.fetchval("SELECT current_setting('lore.org_id')") == org_id


async def test_settings_hold_for_the_transaction_only(pg_dsns: DatabaseUrls) -> None:
    async with asyncpg.create_pool(pg_dsns.app_dsn, min_size=1, max_size=1) as pool:
        scan = {"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "80"}
        async with tenant_transaction(pool, "org-a", scan) as connection:
            assert await connection.fetchval("SELECT current_setting('hnsw.ef_search')") == "80"
            assert await connection.fetchval("SELECT current_setting('hnsw.iterative_scan')") == "relaxed_order"
        async with pool.acquire() as connection:  # the same connection, after the transaction
            assert not connection.is_in_transaction()
            assert await connection.fetchval("SELECT current_setting('lore.org_id', true)") in (None, "")
            assert await connection.fetchval("SELECT current_setting('hnsw.ef_search', true)") in (None, "", "40")


async def test_the_block_commits_and_a_raise_rolls_it_back(pg_dsns: DatabaseUrls) -> None:
    async with asyncpg.create_pool(pg_dsns.app_dsn, min_size=1, max_size=1) as pool:
        async with pool.acquire() as connection:  # one connection: its temporary table outlives releases
            await connection.execute("CREATE TEMPORARY TABLE written (body text)")
        with pytest.raises(RuntimeError):
            async with tenant_transaction(pool, "org-a") as connection:
                await connection.execute("INSERT INTO written VALUES ('rolled back')")
                raise RuntimeError("the caller's own failure")
        async with tenant_transaction(pool, "org-a") as connection:
            await connection.execute("INSERT INTO written VALUES ('kept')")
        with pytest.raises(asyncpg.UndefinedTableError):  # a failed statement: the rest rolls back too
            async with tenant_transaction(pool, "org-a") as connection:
                await connection.execute("INSERT INTO written VALUES ('rolled back')")
                await connection.execute("SELECT * FROM no_such_table")
        async with pool.acquire() as connection:
            assert not connection.is_in_transaction()
            assert [row["body"] for row in await connection.fetch("SELECT body FROM written")] == ["kept"]


async def test_a_refusal_a_schema_raises_on_purpose_is_a_conflict(pg_dsns: DatabaseUrls) -> None:
    async with asyncpg.create_pool(pg_dsns.app_dsn, min_size=1, max_size=1) as pool:
        with pytest.raises(Conflict) as refused:
            async with tenant_transaction(pool, "org-a") as connection:
                await connection.execute(
                    "DO $$ BEGIN RAISE EXCEPTION 'erasing' USING ERRCODE = 'LR409', HINT = 'SUBJECT_ERASING'; END $$"
                )
        assert refused.value.reason == "SUBJECT_ERASING"
        async with tenant_transaction(pool, "org-b") as connection:  # the connection is usable again
            assert await connection.fetchval("SELECT current_setting('lore.org_id')") == "org-b"


@pytest.mark.parametrize(
    ("org_id", "settings"),
    [("nul\x00org", None), ("org", {"not a name; DROP": "x"}), ("org", {"hnsw.ef_search": "8\x000"})],
)
def test_an_opening_that_cannot_be_written_safely_is_refused(org_id: str, settings: dict[str, str] | None) -> None:
    with pytest.raises(ValueError):
        transaction_opening(org_id, settings)
