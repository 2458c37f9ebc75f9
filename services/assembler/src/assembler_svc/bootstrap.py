"""The only wiring of the assembler service: channels to the memory and observations services."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import grpc
from lore_runtime.channels import create_channel
from lore_runtime.health import check_upstream
from lore_runtime.server import DependencyCheck
from opentelemetry.sdk.trace import TracerProvider

from assembler_svc.config import Settings


@dataclass
class Container:
    settings: Settings
    memory: grpc.aio.Channel
    observations: grpc.aio.Channel
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)


async def build(settings: Settings, stack: AsyncExitStack, **overrides: Any) -> Container:
    provider = overrides.get("tracer_provider")
    memory = create_channel(settings.memory_addr, tracer_provider=provider)
    stack.push_async_callback(memory.close)
    observations = create_channel(settings.observations_addr, tracer_provider=provider)
    stack.push_async_callback(observations.close)
    return Container(
        settings=settings,
        memory=memory,
        observations=observations,
        tracer_provider=provider,
        checks={
            "memory": lambda: check_upstream(memory, "lore.memory.v1.MemoryService"),
            "observations": lambda: check_upstream(observations, "lore.observations.v1.ObservationService"),
        },
    )
