"""The only wiring of the agent service: stores, use cases and servicers."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from lore_runtime.server import DependencyCheck
from lore_runtime.stores import open_postgres, ping_postgres
from opentelemetry.sdk.trace import TracerProvider

from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.adapters.system_clock import SystemClock
from agent_svc.config import Settings
from agent_svc.usecases.ports import Clock, Transcript


@dataclass
class Container:
    settings: Settings
    postgres: asyncpg.Pool
    transcript: Transcript
    clock: Clock
    tracer_provider: TracerProvider | None = None
    checks: dict[str, DependencyCheck] = field(default_factory=dict)


async def build(settings: Settings, stack: AsyncExitStack, **overrides: Any) -> Container:
    postgres = overrides.get("postgres") or await open_postgres(stack, settings.database_url, vectors=False)
    return Container(
        settings=settings,
        postgres=postgres,
        transcript=overrides.get("transcript") or PostgresTranscript(postgres),
        clock=overrides.get("clock") or SystemClock(),
        tracer_provider=overrides.get("tracer_provider"),
        checks={"postgres": lambda: ping_postgres(postgres)},
    )
