"""Keyset paging of memory listings, identical for both Qdrant adapters.

Order: the sort field (``created_at`` for newest, ``current_salience`` for salience) descending,
ties by point id ascending. Qdrant's ordered scroll (``order_by``) gives the field's order but no
tie order and no offset; its plain scroll walks point ids upwards from a given id (``offset``,
inclusive), index-backed. So a page is at most three reads, each bounded by the page size:

1. the rest of the cursor's tie group: sort field == the cursor's value, point ids after its id;
2. sort field < the cursor's value, ordered descending, as many as still fit and one more;
3. when the one more has the value of the last that fits, that value group may have been cut
   anywhere: it is dropped from (2) and read again in point-id order from its start, as many as
   still fit. When the one more has a lower value (or there is none), the group ended inside (2)
   (equal values come together in that order), so (2) alone is the page: one read, where sort
   values seldom tie (creation times), instead of two.

While the sort values do not change, every item is returned exactly once, whatever the ties and
the page size (the offsets this replaced skipped and repeated items among ties).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from memory_svc.adapters.memory_payload import format_timestamp, point_id
from memory_svc.adapters.qdrant_engine import DatetimeRange, FloatRange
from memory_svc.domain.model import MemoryItem
from memory_svc.usecases.memory_ports import MemoryCursor, MemoryOrder, SortValue

# ``below(conditions, limit)``: the listing's items that also meet ``conditions``, ordered by the sort
# field descending (ties in any order), at most ``limit``; ``tied(condition, start_id, limit)``: its
# items that meet ``condition`` (one sort value), in point-id order from ``start_id`` (inclusive;
# None: the first), at most ``limit``.
Below = Callable[[list[DatetimeRange | FloatRange], int], Awaitable[list[MemoryItem]]]
Tied = Callable[[DatetimeRange | FloatRange, str | None, int], Awaitable[list[MemoryItem]]]

SORT_FIELDS = {MemoryOrder.NEWEST: "created_at", MemoryOrder.SALIENCE: "current_salience"}


def sort_value(item: MemoryItem, order: MemoryOrder) -> SortValue:
    return item.created_at if order is MemoryOrder.NEWEST else item.current_salience


def _exactly(order: MemoryOrder, value: SortValue) -> DatetimeRange | FloatRange:
    field = SORT_FIELDS[order]
    if isinstance(value, datetime):
        stamp = format_timestamp(value)
        return DatetimeRange(field, gte=stamp, lte=stamp)
    return FloatRange(field, gte=float(value), lte=float(value))


def _below(order: MemoryOrder, value: SortValue) -> DatetimeRange | FloatRange:
    field = SORT_FIELDS[order]
    if isinstance(value, datetime):
        return DatetimeRange(field, lt=format_timestamp(value))
    return FloatRange(field, lt=float(value))


def _in_order(items: list[MemoryItem], order: MemoryOrder) -> list[MemoryItem]:
    by_id = sorted(items, key=lambda item: point_id(item.id))
    # A stable sort keeps the id order within each value, descending or not.
    return sorted(by_id, key=lambda item: sort_value(item, order), reverse=True)


async def keyset_page(
    below: Below, tied: Tied, order: MemoryOrder, limit: int, after: MemoryCursor | None
) -> list[MemoryItem]:
    """Up to ``limit`` items in (sort value desc, point id asc) order, strictly after ``after``."""
    if limit <= 0:
        return []
    found: list[MemoryItem] = []
    extra: list[DatetimeRange | FloatRange] = []
    if after is not None:
        last = point_id(after.item_id)
        # One more than asked: the cursor's own item comes first when it still has its value.
        group = await tied(_exactly(order, after.value), last, limit + 1)
        found = [item for item in group if point_id(item.id) > last][:limit]
        if len(found) == limit:
            return found
        extra = [_below(order, after.value)]
    need = limit - len(found)
    rest = await below(extra, need + 1)  # one more: whether the last value group that fits ends there
    if len(rest) > need and sort_value(rest[need], order) == sort_value(rest[need - 1], order):
        boundary = sort_value(rest[need - 1], order)
        kept = [item for item in rest[:need] if sort_value(item, order) != boundary]
        return found + _in_order(kept, order) + await tied(_exactly(order, boundary), None, need - len(kept))
    return found + _in_order(rest[:need], order)
