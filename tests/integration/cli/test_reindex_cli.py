"""`lore reindex` as an operator runs it, against a memory service whose embedding model changed."""

import asyncio
import os
from contextlib import AsyncExitStack
from pathlib import Path

from tests.fakes import HashingEmbedder
from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.memory.reindex_harness import Backend, NewModelEmbedder, seed, start

LORE = str(Path(__file__).resolve().parents[3] / ".venv/bin/lore")


async def lore_reindex(address: str, *args: str) -> tuple[int, str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    process = await asyncio.create_subprocess_exec(
        LORE, "reindex", *args, env={**env, **SERVICE_TOKEN_ENV, "LORE_MEMORY_ADDR": address}, stdout=-1, stderr=-1
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    return process.returncode, out.decode(), err.decode()


async def test_reindex_re_embeds_through_the_running_service_and_reports_refusals(tmp_path: Path) -> None:
    backend = Backend("qdrant_edge", tmp_path)
    old, new = HashingEmbedder(), NewModelEmbedder()
    stores = await backend.open(old)
    async with AsyncExitStack() as stack:
        await seed(await start(stack, stores, old), "org-cli", items=3, episodes=1)
    await stores.close()

    stores = await backend.open(new)
    try:
        async with AsyncExitStack() as stack:
            service = await start(stack, stores, new)

            code, out, err = await lore_reindex(service.address)
            assert code == 0, err
            assert out.strip().splitlines()[-1] == "reindexed 3 items and 1 episodes with test/hashing-v2 (48-d)"
            assert "items" in err  # the progress bars

            stores.state.running = True  # another reindex holds the store
            code, out, err = await lore_reindex(service.address, "--force")
            assert code == 1
            assert "FAILED_PRECONDITION" in err and "already running" in err
    finally:
        stores.state.running = False
        await stores.close()
