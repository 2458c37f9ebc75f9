"""`lore erasure purge` against the running memory service and the real Postgres: the memory
service's stores are compacted and rewritten, then every Lore table is vacuumed and the WAL
checkpointed and switched, as the schema owner."""

from tests.integration.cli.test_org_transfer_cli import lore


async def test_a_purge_compacts_the_memory_stores_then_vacuums_and_checkpoints_postgres(services, migrated_pg):
    env = {"LORE_MEMORY_ADDR": services["memory"].address, "LORE_MIGRATIONS_DATABASE_URL": migrated_pg.owner_dsn}

    code, out, err = await lore(env, "erasure", "purge")

    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("qdrant.items: compacted, ") and lines[1].startswith("qdrant.episodes: compacted, ")
    assert lines[2].startswith("redis: ")
    assert lines[3].startswith("postgres: VACUUM (ANALYZE) of ") and int(lines[3].split()[4]) >= 20
    assert lines[4] == "postgres: checkpoint, WAL switch, checkpoint: the old segments can be recycled"


async def test_an_unreachable_memory_service_is_named_with_its_setting():
    code, _, err = await lore({"LORE_MEMORY_ADDR": "127.0.0.1:9"}, "erasure", "purge")

    assert code == 1 and "LORE_MEMORY_ADDR" in err
