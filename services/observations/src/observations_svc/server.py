from lore.observations.v1 import (
    engagement_service_pb2,
    engagement_service_pb2_grpc,
    observation_service_pb2,
    observation_service_pb2_grpc,
)
from lore_runtime.container_server import create_container_server
from lore_runtime.server import GrpcServer, Registration

from observations_svc.api.engagement_servicer import EngagementServicer
from observations_svc.api.observation_servicer import ObservationServicer
from observations_svc.bootstrap import Container


def create_server(container: Container, address: str) -> GrpcServer:
    return create_container_server(
        address,
        [
            Registration(
                ObservationServicer(
                    container.store, container.archive, container.embedder, container.clock, container.page_tokens
                ),
                observation_service_pb2_grpc.add_ObservationServiceServicer_to_server,
                observation_service_pb2.DESCRIPTOR.services_by_name["ObservationService"],
            ),
            Registration(
                EngagementServicer(container.engagement, container.engagement_archive, container.clock),
                engagement_service_pb2_grpc.add_EngagementServiceServicer_to_server,
                engagement_service_pb2.DESCRIPTOR.services_by_name["EngagementService"],
            ),
        ],
        container,
    )
