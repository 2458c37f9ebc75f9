from contextlib import AsyncExitStack

import agent_svc.bootstrap
import agent_svc.config
import agent_svc.server
import assembler_svc.bootstrap
import assembler_svc.config
import assembler_svc.server
import memory_svc.bootstrap
import memory_svc.config
import memory_svc.server
import observations_svc.bootstrap
import observations_svc.config
import observations_svc.server
import pytest

from tests.grpc_harness import RunningService, start_service


@pytest.fixture(scope="session")
async def services(migrated_pg, redis_url, tmp_path_factory) -> dict[str, RunningService]:
    """The four gRPC services, started once in-process on real stores."""
    base = {
        "LORE_DATABASE_URL": migrated_pg.app_dsn,
        "LORE_REDIS_URL": redis_url,
        "LORE_DATA_DIR": str(tmp_path_factory.mktemp("lore-data")),
        # Tests run decay, consolidation and revalidation themselves: no background run may touch their data.
        "LORE_MAINTENANCE_INTERVAL_SECONDS": "0",
        "LORE_REVALIDATION_INTERVAL_SECONDS": "0",
        # Tests end idle sessions themselves (the scan's use case), at the time they choose.
        "LORE_IDLE_SCAN_SECONDS": "0",
        "LORE_DIGEST_INTERVAL_SECONDS": "0",
        # A failing job is retried within the test's patience.
        "LORE_AGENT_JOB_BACKOFF_MS": "200",
    }
    async with AsyncExitStack() as stack:
        running = {}
        # In dependency order; each later service is told where the earlier ones listen.
        for name, package in (
            ("memory", memory_svc),
            ("observations", observations_svc),
            ("assembler", assembler_svc),
            ("agent", agent_svc),
        ):
            addresses = {f"LORE_{started.upper()}_ADDR": service.address for started, service in running.items()}
            running[name] = await start_service(
                stack, name, package.bootstrap, package.server, package.config.Settings, {**base, **addresses}
            )
        yield running
