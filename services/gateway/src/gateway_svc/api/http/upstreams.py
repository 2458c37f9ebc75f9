"""The services behind the gateway, one ``Service`` per gRPC service the routes call: the channel
it is reached on (``Settings.upstreams``) and its stub."""

from __future__ import annotations

from lore.agent.v1 import agent_service_pb2_grpc
from lore.assembler.v1 import assembler_service_pb2_grpc
from lore.memory.v1 import episode_service_pb2_grpc, memory_service_pb2_grpc
from lore.observations.v1 import engagement_service_pb2_grpc, observation_service_pb2_grpc

from gateway_svc.api.http.forwarding import Service

MEMORY = Service("memory", memory_service_pb2_grpc.MemoryServiceStub)
EPISODES = Service("memory", episode_service_pb2_grpc.EpisodeServiceStub)
OBSERVATIONS = Service("observations", observation_service_pb2_grpc.ObservationServiceStub)
ENGAGEMENT = Service("observations", engagement_service_pb2_grpc.EngagementServiceStub)
ASSEMBLER = Service("assembler", assembler_service_pb2_grpc.AssemblerServiceStub)
AGENT = Service("agent", agent_service_pb2_grpc.AgentServiceStub)
