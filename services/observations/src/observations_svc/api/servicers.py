"""gRPC transport of the observations service. RPCs not defined here answer UNIMPLEMENTED
with the capability still to come (``lore_runtime.pending``)."""

from lore.observations.v1 import engagement_service_pb2_grpc, observation_service_pb2_grpc


class ObservationServicer(observation_service_pb2_grpc.ObservationServiceServicer):
    """Knowledge observations with evidence, confidence and supersession."""


class EngagementServicer(engagement_service_pb2_grpc.EngagementServiceServicer):
    """Per-org engagement state: week, hypotheses, findings, unknowns."""
