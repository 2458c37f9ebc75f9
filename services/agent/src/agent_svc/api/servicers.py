"""gRPC transport of the agent service. RPCs not defined here answer UNIMPLEMENTED
with the capability still to come (``lore_runtime.pending``)."""

from lore.agent.v1 import agent_service_pb2_grpc


class AgentServicer(agent_service_pb2_grpc.AgentServiceServicer):
    """Sessions, the transcript and the per-turn loop."""
