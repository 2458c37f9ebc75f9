from lore.observations.v1 import (
    engagement_service_pb2,
    engagement_service_pb2_grpc,
    observation_service_pb2,
    observation_service_pb2_grpc,
)
from lore_runtime.server import GrpcServer, Registration, create_grpc_server

from observations_svc.api.servicers import EngagementServicer, ObservationServicer
from observations_svc.bootstrap import Container

OBSERVATIONS_ISSUE = "the observations service (evidence, confidence, freshness, supersession, engagement state)"


def create_server(container: Container, address: str) -> GrpcServer:
    return create_grpc_server(
        address,
        [
            Registration(
                ObservationServicer(),
                observation_service_pb2_grpc.add_ObservationServiceServicer_to_server,
                observation_service_pb2.DESCRIPTOR.services_by_name["ObservationService"],
                pending=OBSERVATIONS_ISSUE,
            ),
            Registration(
                EngagementServicer(),
                engagement_service_pb2_grpc.add_EngagementServiceServicer_to_server,
                engagement_service_pb2.DESCRIPTOR.services_by_name["EngagementService"],
                pending=OBSERVATIONS_ISSUE,
            ),
        ],
        tracer_provider=container.tracer_provider,
        checks=container.checks,
    )
