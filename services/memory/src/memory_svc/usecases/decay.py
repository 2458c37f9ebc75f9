"""RunDecay: materialise ``current_salience`` so ``min_salience`` filters stay index-backed.

Recall computes salience exactly at query time; this job only refreshes the stored copy
(ARCHITECTURE.md §3). Items whose stored value is already within ``TOLERANCE`` are left
alone, so a daily run rewrites only what actually faded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from lore_runtime.clock import Clock
from opentelemetry import trace

from memory_svc.domain.model import MemoryType, Scope
from memory_svc.domain.salience import salience_of_type
from memory_svc.usecases.memory_ports import MemoryCatalog, OrderGenerations

tracer = trace.get_tracer(__name__)
TOLERANCE = 1e-3
BATCH = 500


@dataclass(frozen=True, slots=True)
class DecayReport:
    checked: int
    updated: int
    computed_at: datetime


async def run_decay(
    org_id: str,
    *,
    catalog: MemoryCatalog,
    clock: Clock,
    generations: OrderGenerations,
    half_lives: Mapping[MemoryType, float] | None = None,
) -> DecayReport:
    """Salience-ordered page tokens cut before the first rewrite, or during the run, are stale:
    the generation advances before the first write and again after the last."""
    now = clock.now()
    checked = updated = 0
    with tracer.start_as_current_span("memory.run_decay") as span:
        span.set_attribute("lore.org_id", org_id)
        async for batch in catalog.iterate(org_id, Scope(), BATCH):
            checked += len(batch)
            faded = []
            for item in batch:
                value = salience_of_type(item.memory_type, item.access_count, item.last_accessed_at, now, half_lives)
                if abs(value - item.current_salience) > TOLERANCE:
                    faded.append(dataclasses.replace(item, current_salience=value))
            if faded:
                if not updated:
                    await generations.advance_salience(org_id)
                await catalog.replace_payloads(org_id, faded)
                updated += len(faded)
        if updated:
            await generations.advance_salience(org_id)
        span.set_attribute("lore.checked", checked)
        span.set_attribute("lore.updated", updated)
    return DecayReport(checked, updated, now)
