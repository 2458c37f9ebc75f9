"""gRPC transport of the assembler service. RPCs not defined here answer UNIMPLEMENTED
with the capability still to come (``lore_runtime.pending``)."""

from lore.assembler.v1 import assembler_service_pb2_grpc


class AssemblerServicer(assembler_service_pb2_grpc.AssemblerServiceServicer):
    """Context assembly and priming: the read side."""
