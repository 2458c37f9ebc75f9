"""``keyset_page``'s reads, over an in-memory listing that returns ties in a shuffled order as
Qdrant's ordered scroll may: every page in (value desc, id asc) order, and the tie group re-read
only when it may go on past the page."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from lore_runtime.timestamps import stored_text
from memory_svc.adapters.memory_keyset import keyset_page
from memory_svc.adapters.qdrant_engine import DatetimeRange
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from memory_svc.usecases.memory_ports import MemoryCursor, MemoryOrder

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _item(number: int, created_at: datetime) -> MemoryItem:
    return MemoryItem(
        id=str(uuid.UUID(int=number + 1)),
        org_id="org",
        content=f"item {number}",
        memory_type=MemoryType.FACT,
        scope=Scope(),
        importance=0.5,
        status=MemoryStatus.ACTIVE,
        metadata={},
        provenance=Provenance(),
        entities=(),
        created_at=created_at,
        valid_at=created_at,
        last_accessed_at=created_at,
    )


class Listing:
    """``below`` and ``tied`` over ``items`` (newest order), counting the reads."""

    def __init__(self, items: list[MemoryItem], seed: int) -> None:
        self.items = items
        self.rng = random.Random(seed)
        self.reads: list[str] = []

    @staticmethod
    def _meets(item: MemoryItem, condition: DatetimeRange) -> bool:
        stamp = stored_text(item.created_at)
        return (
            (condition.lt is None or stamp < condition.lt)
            and (condition.gte is None or stamp >= condition.gte)
            and (condition.lte is None or stamp <= condition.lte)
        )

    async def below(self, extra: list, count: int) -> list[MemoryItem]:
        self.reads.append("below")
        chosen = [item for item in self.items if all(self._meets(item, condition) for condition in extra)]
        self.rng.shuffle(chosen)  # ties in any order, values descending
        return sorted(chosen, key=lambda item: item.created_at, reverse=True)[:count]

    async def tied(self, condition: DatetimeRange, start: str | None, count: int) -> list[MemoryItem]:
        self.reads.append("tied")
        chosen = sorted((item for item in self.items if self._meets(item, condition)), key=lambda item: item.id)
        return [item for item in chosen if start is None or item.id >= start][:count]


def _expected(items: list[MemoryItem]) -> list[str]:
    return [item.id for item in sorted(sorted(items, key=lambda i: i.id), key=lambda i: i.created_at, reverse=True)]


async def _all_pages(listing: Listing, size: int) -> list[str]:
    seen: list[str] = []
    after = None
    while True:
        page = await keyset_page(listing.below, listing.tied, MemoryOrder.NEWEST, size, after)
        seen += [item.id for item in page]
        if len(page) < size:
            return seen
        after = MemoryCursor(page[-1].created_at, page[-1].id)


@pytest.mark.parametrize("seed", range(20))
async def test_every_item_once_in_order_whatever_the_ties_and_the_page_size(seed: int) -> None:
    rng = random.Random(seed)
    items = [_item(n, T0 + timedelta(microseconds=rng.randrange(1 + seed % 6))) for n in range(rng.randrange(1, 30))]
    for size in (1, 2, 3, 5, 8, 29, 30, 31):
        assert await _all_pages(Listing(items, seed), size) == _expected(items), f"page size {size}"


async def test_a_first_page_of_distinct_values_is_one_read() -> None:
    listing = Listing([_item(n, T0 + timedelta(seconds=n)) for n in range(10)], seed=1)
    page = await keyset_page(listing.below, listing.tied, MemoryOrder.NEWEST, 4, None)
    assert [item.content for item in page] == ["item 9", "item 8", "item 7", "item 6"]
    assert listing.reads == ["below"]


async def test_a_tie_across_the_page_end_is_read_again_in_id_order() -> None:
    items = [_item(n, T0 + timedelta(seconds=n // 3)) for n in range(9)]  # three items per second
    listing = Listing(items, seed=2)
    page = await keyset_page(listing.below, listing.tied, MemoryOrder.NEWEST, 4, None)
    assert [item.id for item in page] == _expected(items)[:4]
    assert listing.reads == ["below", "tied"]
