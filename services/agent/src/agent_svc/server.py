from datetime import timedelta

from lore.agent.v1 import agent_service_pb2, agent_service_pb2_grpc
from lore_runtime.container_server import create_container_server
from lore_runtime.page_tokens import page_tokens_for
from lore_runtime.server import GrpcServer, Registration

from agent_svc.api.agent_servicer import AgentServicer
from agent_svc.bootstrap import Container


def create_server(container: Container, address: str) -> GrpcServer:
    return create_container_server(
        address,
        [
            Registration(
                AgentServicer(
                    container.transcript,
                    container.messages,
                    container.clock,
                    container.turns,
                    container.erasure,
                    container.job_queue,
                    page_tokens_for(container.settings),
                    # 0 keeps results forever (config.py): no retention to expire a context.
                    timedelta(days=container.settings.turn_result_days) or None,
                ),
                agent_service_pb2_grpc.add_AgentServiceServicer_to_server,
                agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"],
            ),
        ],
        container,
    )
