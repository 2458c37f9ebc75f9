"""The only wiring of the assembler service: channels to the memory and observations services,
the sources over them, the token counter and the assembly policy."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import grpc
from lore_runtime.channels import open_service_channel
from lore_runtime.clock import Clock, SystemClock
from lore_runtime.health import check_upstream
from lore_runtime.metrics import ServiceMetrics
from lore_runtime.server import DependencyCheck
from opentelemetry.sdk.trace import TracerProvider

from assembler_svc.adapters.grpc_sources import GrpcMemorySources, GrpcObservationSources
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.config import Settings
from assembler_svc.domain.model import AssemblyPolicy, TokenCounter, Weights
from assembler_svc.usecases.ports import MemorySources, ObservationSources


@dataclass(frozen=True, slots=True, kw_only=True)
class AssemblerOverrides:
    """What a test puts in place of the real thing; each left None is built from the settings."""

    memory_sources: MemorySources | None = None
    observation_sources: ObservationSources | None = None
    counter: TokenCounter | None = None
    clock: Clock | None = None


@dataclass
class Container:
    settings: Settings
    memory: grpc.aio.Channel
    observations: grpc.aio.Channel
    memory_sources: MemorySources
    observation_sources: ObservationSources
    counter: TokenCounter
    clock: Clock
    policy: AssemblyPolicy
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)
    metrics: ServiceMetrics = field(default_factory=ServiceMetrics)


async def build(
    settings: Settings,
    stack: AsyncExitStack,
    overrides: AssemblerOverrides | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
) -> Container:
    overrides = overrides or AssemblerOverrides()
    memory = open_service_channel(stack, "memory", settings.memory_addr, settings, tracer_provider)
    observations = open_service_channel(stack, "observations", settings.observations_addr, settings, tracer_provider)
    policy = AssemblyPolicy(
        weights=Weights(settings.weight_similarity, settings.weight_recency, settings.weight_importance),
        min_score=settings.min_score,
        duplicate_cosine=settings.duplicate_cosine,
        share_spare=settings.share_unused_budget,
    )
    return Container(
        settings=settings,
        memory=memory,
        observations=observations,
        memory_sources=overrides.memory_sources or GrpcMemorySources(memory),
        observation_sources=overrides.observation_sources or GrpcObservationSources(observations),
        counter=overrides.counter or TiktokenCounter(),
        clock=overrides.clock or SystemClock(),
        policy=policy,
        tracer_provider=tracer_provider,
        checks={
            "memory": lambda: check_upstream(memory, "lore.memory.v1.MemoryService"),
            "observations": lambda: check_upstream(observations, "lore.observations.v1.ObservationService"),
        },
    )
