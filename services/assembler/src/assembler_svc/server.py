from lore.assembler.v1 import assembler_service_pb2, assembler_service_pb2_grpc
from lore_runtime.server import GrpcServer, Registration, create_grpc_server

from assembler_svc.api.servicers import AssemblerServicer
from assembler_svc.bootstrap import Container

ASSEMBLER_ISSUE = "the assembler service (ranked, deduplicated, token-budgeted context with a manifest; priming)"


def create_server(container: Container, address: str) -> GrpcServer:
    return create_grpc_server(
        address,
        [
            Registration(
                AssemblerServicer(),
                assembler_service_pb2_grpc.add_AssemblerServiceServicer_to_server,
                assembler_service_pb2.DESCRIPTOR.services_by_name["AssemblerService"],
                pending=ASSEMBLER_ISSUE,
            ),
        ],
        tracer_provider=container.tracer_provider,
        checks=container.checks,
    )
