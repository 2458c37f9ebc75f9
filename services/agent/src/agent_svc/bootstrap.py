"""The only wiring of the agent service: stores, use cases and servicers."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from lore.memory.v1 import memory_service_pb2
from lore_runtime.channels import create_channel
from lore_runtime.clock import SystemClock
from lore_runtime.health import check_upstream
from lore_runtime.server import DependencyCheck
from lore_runtime.stores import open_postgres, ping_postgres
from opentelemetry.sdk.trace import TracerProvider

from agent_svc.adapters.grpc_messages import GrpcMessageIndex
from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.config import Settings
from agent_svc.usecases.ports import Clock, MessageIndex, Transcript


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    transcript: Transcript
    messages: MessageIndex
    clock: Clock
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)


async def build(settings: Settings, stack: AsyncExitStack, **overrides: Any) -> Container:
    provider = overrides.get("tracer_provider")
    postgres = overrides.get("postgres") or await open_postgres(stack, settings.database_url, vectors=False)
    memory = create_channel(
        settings.memory_addr,
        services=list(memory_service_pb2.DESCRIPTOR.services_by_name.values()),
        tracer_provider=provider,
    )
    stack.push_async_callback(memory.close)
    return Container(
        settings=settings,
        postgres=postgres,
        transcript=overrides.get("transcript") or PostgresTranscript(postgres),
        messages=overrides.get("messages") or GrpcMessageIndex(memory),
        clock=overrides.get("clock") or SystemClock(),
        tracer_provider=provider,
        checks={
            "postgres": lambda: ping_postgres(postgres),
            "memory": lambda: check_upstream(memory, "lore.memory.v1.MemoryService"),
        },
    )
