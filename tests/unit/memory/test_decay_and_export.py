import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from lore_runtime import errors
from memory_svc.api import memory_convert
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from memory_svc.domain.salience import salience_of_type
from memory_svc.usecases.decay import run_decay
from memory_svc.usecases.export import export_memories

from tests.fakes import FixedClock, InMemoryMemoryIndex, InMemoryOrderGenerations

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _item(org: str, memory_type: MemoryType = MemoryType.FACT, **fields) -> MemoryItem:
    values = dict(
        id=str(uuid.uuid4()),
        org_id=org,
        content="x",
        memory_type=memory_type,
        scope=Scope(user_id="u"),
        importance=0.5,
        status=MemoryStatus.ACTIVE,
        metadata={},
        provenance=Provenance(),
        entities=(),
        created_at=T0,
        valid_at=T0,
        last_accessed_at=T0,
    )
    values.update(fields)
    return MemoryItem(**values)


async def test_decay_materialises_salience_by_type_and_only_rewrites_what_faded():
    index, clock = InMemoryMemoryIndex(), FixedClock(T0)
    message, fact = _item("org-a", MemoryType.MESSAGE), _item("org-a", MemoryType.FACT)
    other = _item("org-b")
    await index.upsert([message, fact, other], np.eye(3, 4, dtype=np.float32))
    assert (
        await run_decay("org-a", catalog=index, clock=clock, generations=InMemoryOrderGenerations())
    ).updated == 0  # nothing faded at day 0
    clock.advance(days=30)
    overrides = {MemoryType.FACT: 90.0}  # LORE_HALF_LIFE_DAYS="fact=90"
    generations = InMemoryOrderGenerations()
    report = await run_decay("org-a", catalog=index, clock=clock, generations=generations, half_lives=overrides)
    assert (report.checked, report.updated) == (2, 2)
    (stored_message,), (stored_fact,) = await index.get("org-a", [message.id]), await index.get("org-a", [fact.id])
    assert stored_message.current_salience == pytest.approx(0.5)  # the default: 30 days for every type
    assert stored_fact.current_salience == pytest.approx(0.5 ** (30 / 90))  # the override
    assert (await index.get("org-b", [other.id]))[0].current_salience == 1.0  # another org is untouched


async def test_export_streams_every_status_in_pages():
    index = InMemoryMemoryIndex()
    items = [_item("org-a", status=status) for status in MemoryStatus for _ in range(2)]
    await index.upsert(items, np.ones((len(items), 4), dtype=np.float32) / 2)
    pages = [page async for page in export_memories("org-a", Scope(), 3, catalog=index)]
    assert [len(page) for page in pages] == [3] * (len(items) // 3) + ([len(items) % 3] if len(items) % 3 else [])
    assert {item.id for page in pages for item in page} == {item.id for item in items}
    with pytest.raises(errors.InvalidArgument):
        [page async for page in export_memories("org-a", Scope(), 5000, catalog=index)]


def test_every_memory_answered_carries_the_half_life_its_salience_fades_by():
    """A reader (the memory browser's decay curve) redraws salience from the answer alone: the
    deployment's half-life for the memory's type, the default where LORE_HALF_LIFE_DAYS sets none."""
    overrides = {MemoryType.FACT: 90.0}
    fact = _item("org-a", access_count=2, current_salience=0.6)
    preference = _item("org-a", MemoryType.PREFERENCE)

    printed = memory_convert.memory_to_pb(fact, overrides)

    assert printed.half_life_days == 90.0
    assert memory_convert.memory_to_pb(preference, overrides).half_life_days == 30.0
    assert memory_convert.memory_to_pb(fact).half_life_days == 30.0  # no overrides: the default
    later = T0 + timedelta(days=90)
    redrawn = max(0.01, (1 + 0.1 * printed.access_count) * 0.5 ** (90 / printed.half_life_days))
    assert redrawn == pytest.approx(salience_of_type(MemoryType.FACT, 2, T0, later, overrides))
