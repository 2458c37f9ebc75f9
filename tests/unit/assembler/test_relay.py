"""The ``Relay`` of a fan-out: one source's by-product (recall's query vector) handed to another
source, which waits for it at most its share of its own deadline."""

from __future__ import annotations

import asyncio

import pytest
from assembler_svc.usecases.fan_out import Relay


async def test_the_taker_gets_what_the_giver_found_and_the_time_left() -> None:
    relay = Relay()
    taken: list[tuple[object, float]] = []

    async def recall() -> dict[str, object]:
        return {"memories": ["m-1"], "vector": [0.1, 0.2]}

    async def search(vector: object, left: float) -> str:
        taken.append((vector, left))
        return "beliefs"

    found, searched = await asyncio.gather(
        relay.giving(recall(), lambda found: found["vector"]), relay.taking(2.0, search)
    )
    assert found == {"memories": ["m-1"], "vector": [0.1, 0.2]}
    assert searched == "beliefs"
    assert taken[0][0] == [0.1, 0.2]
    assert 1.5 < taken[0][1] <= 2.0


async def test_a_failed_giver_releases_the_taker_at_once_with_nothing() -> None:
    relay = Relay()
    given_up = asyncio.Event()

    async def recall() -> dict[str, object]:
        await given_up.wait()
        raise RuntimeError("recall is down")

    async def search(vector: object, left: float) -> tuple[object, float]:
        return vector, left

    taker = asyncio.ensure_future(relay.taking(30.0, search))
    giver = asyncio.ensure_future(relay.giving(recall(), lambda found: found))
    given_up.set()
    with pytest.raises(RuntimeError):
        await giver
    vector, left = await asyncio.wait_for(taker, 5)  # far sooner than its share of 30 s
    assert vector is None
    assert left > 29


async def test_a_slow_giver_costs_the_taker_its_share_of_the_deadline_only() -> None:
    relay = Relay(share=0.1)  # a giver that never gives

    async def search(vector: object, left: float) -> tuple[object, float]:
        return vector, left

    vector, left = await asyncio.wait_for(relay.taking(1.0, search), 5)
    assert vector is None
    assert 0.0 < left <= 0.9 + 0.05
