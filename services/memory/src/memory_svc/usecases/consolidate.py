"""RunConsolidation: fold near-duplicate memories of one organisation (domain/consolidation.py).

Reads the active items of the chosen types with their stored vectors, groups them by exact
scope and type, finds the folds, then writes each survivor before its members: a crash in
between leaves a survivor that already holds the union and members still active, which
the next run folds again without counting anything twice. Writes are partial (only the
fields consolidation owns), so an UpdateMemory racing with the job keeps its content.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from lore_runtime.clock import Clock
from opentelemetry import trace

from memory_svc.domain.consolidation import DEFAULT_EXCLUDED_TYPES, Fold, find_folds
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope
from memory_svc.domain.salience import salience_of_type
from memory_svc.usecases.memory_ports import MemoryCatalog

tracer = trace.get_tracer(__name__)
BATCH = 500
SURVIVOR_FIELDS = ("provenance", "entities", "importance", "access_count", "last_accessed_at", "current_salience")
MEMBER_FIELDS = ("status", "provenance")


@dataclass(frozen=True, slots=True)
class ConsolidationReport:
    examined: int
    groups: int
    consolidated: int
    dry_run: bool


def default_types() -> tuple[MemoryType, ...]:
    return tuple(kind for kind in MemoryType if kind not in DEFAULT_EXCLUDED_TYPES)


async def run_consolidation(
    org_id: str,
    *,
    scope: Scope | None,
    memory_types: Sequence[MemoryType],
    threshold: float,
    dry_run: bool,
    catalog: MemoryCatalog,
    clock: Clock,
    half_lives: Mapping[MemoryType, float] | None = None,
) -> ConsolidationReport:
    """Fold the near-duplicates of ``org_id``: of exactly ``scope`` when given, else of every scope."""
    types = tuple(memory_types) or default_types()
    with tracer.start_as_current_span("memory.run_consolidation") as span:
        span.set_attribute("lore.org_id", org_id)
        groups = await _active_groups(org_id, scope, types, catalog)
        folds: list[Fold] = []
        for items, vectors in groups.values():
            folds += find_folds(items, np.vstack(vectors), threshold)
        examined = sum(len(items) for items, _ in groups.values())
        consolidated = sum(len(fold.members) for fold in folds)
        span.set_attribute("lore.examined", examined)
        span.set_attribute("lore.consolidated", consolidated)
        if folds and not dry_run:
            now = clock.now()
            survivors = [_with_salience(fold.survivor, now, half_lives) for fold in folds]
            await catalog.replace_payloads(org_id, survivors, fields=SURVIVOR_FIELDS)
            members = [member for fold in folds for member in fold.members]
            await catalog.replace_payloads(org_id, members, fields=MEMBER_FIELDS)
    return ConsolidationReport(examined, len(folds), consolidated, dry_run)


async def _active_groups(
    org_id: str, scope: Scope | None, types: tuple[MemoryType, ...], catalog: MemoryCatalog
) -> dict[tuple[Scope, MemoryType], tuple[list[MemoryItem], list[np.ndarray]]]:
    groups: dict[tuple[Scope, MemoryType], tuple[list[MemoryItem], list[np.ndarray]]] = {}
    batches = catalog.iterate_vectors(org_id, scope or Scope(), types, (MemoryStatus.ACTIVE,), BATCH)
    async for items, vectors in batches:
        for item, vector in zip(items, vectors, strict=True):
            if scope is not None and item.scope != scope:
                continue  # the filter matches a superset (scope fields that are set); folding wants exact
            members, rows = groups.setdefault((item.scope, item.memory_type), ([], []))
            members.append(item)
            rows.append(vector)
    return groups


def _with_salience(item: MemoryItem, now, half_lives: Mapping[MemoryType, float] | None) -> MemoryItem:
    value = salience_of_type(item.memory_type, item.access_count, item.last_accessed_at, now, half_lives)
    return dataclasses.replace(item, current_salience=value)
