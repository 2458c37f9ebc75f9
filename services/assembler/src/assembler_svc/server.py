from lore.assembler.v1 import assembler_service_pb2, assembler_service_pb2_grpc
from lore_runtime.container_server import create_container_server
from lore_runtime.server import GrpcServer, Registration

from assembler_svc.api.assembler_servicer import AssemblerServicer
from assembler_svc.bootstrap import Container
from assembler_svc.usecases.ports import AssemblyServices


def create_server(container: Container, address: str) -> GrpcServer:
    servicer = AssemblerServicer(
        services=AssemblyServices(
            container.memory_sources, container.observation_sources, container.counter, container.clock
        ),
        policy=container.policy,
        source_timeout=container.settings.source_timeout_ms / 1000,
        engagement_agents=container.settings.engagement_agents,
        prime_limits=container.settings.prime_limits(),
        profile_max_tokens=container.settings.profile_max_tokens,
    )
    return create_container_server(
        address,
        [
            Registration(
                servicer,
                assembler_service_pb2_grpc.add_AssemblerServiceServicer_to_server,
                assembler_service_pb2.DESCRIPTOR.services_by_name["AssemblerService"],
            ),
        ],
        container,
    )
