"""Degradation on real services: stop the observations service under a running assembler and
the context is still assembled from memory, with the missing sources named in the manifest."""

from contextlib import AsyncExitStack

import assembler_svc.bootstrap
import assembler_svc.config
import assembler_svc.server
import observations_svc.bootstrap
import observations_svc.config
import observations_svc.server
from lore.assembler.v1 import assembler_service_pb2 as pb
from lore.assembler.v1 import assembler_service_pb2_grpc
from lore.common.v1 import context_pb2, scope_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc

from tests.grpc_harness import start_service

UNAVAILABLE = context_pb2.MANIFEST_OUTCOME_SOURCE_UNAVAILABLE


async def test_a_stopped_dependency_is_reported_and_the_rest_assembled(services, migrated_pg, tmp_path) -> None:
    tenant = (("x-lore-org-id", "org-degrade"), ("x-lore-principal", "test"))
    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    await memories.Remember(
        memory_service_pb2.RememberRequest(
            memories=[
                memory_service_pb2.MemoryInput(
                    content="The quarterly report is due on the 5th.",
                    memory_type=memory_service_pb2.MEMORY_TYPE_FACT,
                    scope=scope_pb2.Scope(user_id="u-1"),
                    importance=0.9,
                )
            ]
        ),
        metadata=tenant,
    )
    environ = {"LORE_DATABASE_URL": migrated_pg.app_dsn, "LORE_REVALIDATION_INTERVAL_SECONDS": "0"}
    async with AsyncExitStack() as stack:
        observations = await start_service(
            stack,
            "observations",
            observations_svc.bootstrap,
            observations_svc.server,
            observations_svc.config.Settings,
            {**environ, "LORE_DATA_DIR": str(tmp_path)},
        )
        assembler = await start_service(
            stack,
            "assembler",
            assembler_svc.bootstrap,
            assembler_svc.server,
            assembler_svc.config.Settings,
            {
                "LORE_MEMORY_ADDR": services["memory"].address,
                "LORE_OBSERVATIONS_ADDR": observations.address,
                "LORE_ASSEMBLER_SOURCE_TIMEOUT_MS": "500",
                "LORE_ENGAGEMENT_AGENTS": "aria",  # its contexts read the engagement state too
            },
        )
        stub = assembler_service_pb2_grpc.AssemblerServiceStub(assembler.channel)
        request = pb.AssembleContextRequest(
            message="When is the quarterly report due?", scope=scope_pb2.Scope(user_id="u-1", agent_id="aria")
        )
        healthy = (await stub.AssembleContext(request, metadata=tenant)).context
        assert not [e for e in healthy.manifest if e.outcome == UNAVAILABLE]

        await observations.server.stop(grace=None)
        degraded = (await stub.AssembleContext(request, metadata=tenant, timeout=5)).context
        primed = await stub.Prime(pb.PrimeRequest(scope=scope_pb2.Scope(user_id="u-1")), metadata=tenant, timeout=5)

    missing = [(e.source, e.reason.split(":")[0]) for e in degraded.manifest if e.outcome == UNAVAILABLE]
    # Each call that failed is named: the belief search, the profile's belief read and engagement.
    assert sorted(missing) == sorted(
        [
            (context_pb2.CANDIDATE_SOURCE_OBSERVATION, "beliefs"),
            (context_pb2.CANDIDATE_SOURCE_OBSERVATION, "profile_beliefs"),
            (context_pb2.CANDIDATE_SOURCE_ENGAGEMENT, "engagement"),
        ]
    )
    assert "quarterly report is due on the 5th" in degraded.text
    assert not degraded.first_session, "an unavailable source is not the same as knowing nothing"
    assert "quarterly report" in primed.formatted_context
    assert [e.source for e in primed.manifest if e.outcome == UNAVAILABLE] == [context_pb2.CANDIDATE_SOURCE_OBSERVATION]
