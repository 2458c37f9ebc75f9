"""Dynamic batching: concurrent calls share rounds, every call gets exactly its rows back."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from lore_embeddings.batching import RowBatcher


class Model:
    """Vectors [row, row] for integer rows; records every round; can hold a round or fail one."""

    def __init__(self) -> None:
        self.rounds: list[list[int]] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail_next = False

    async def run(self, rows: list[int]) -> np.ndarray:
        self.rounds.append(list(rows))
        await self.gate.wait()
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("model crashed")
        return np.asarray([[row, row] for row in rows], dtype=np.float32)


def rows_of(vectors: np.ndarray) -> list[int]:
    return [int(vector[0]) for vector in vectors]


async def test_a_lone_call_runs_at_once_in_one_round():
    model = Model()
    batcher = RowBatcher(model.run, batch_size=8, dimension=2)
    assert rows_of(await batcher.submit([1, 2, 3])) == [1, 2, 3]
    assert model.rounds == [[1, 2, 3]]


async def test_calls_arriving_during_a_round_share_the_next_one():
    model = Model()
    batcher = RowBatcher(model.run, batch_size=8, dimension=2)
    model.gate.clear()
    first = asyncio.create_task(batcher.submit([1]))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(batcher.submit([10 + n])) for n in range(4)]
    await asyncio.sleep(0)
    model.gate.set()

    assert rows_of(await first) == [1]
    assert [rows_of(await task) for task in waiting] == [[10], [11], [12], [13]]
    assert model.rounds == [[1], [10, 11, 12, 13]]


async def test_a_long_call_spans_rounds_and_a_short_one_does_not_wait_for_all_of_it():
    model = Model()
    batcher = RowBatcher(model.run, batch_size=4, dimension=2)
    model.gate.clear()
    long = asyncio.create_task(batcher.submit(list(range(10))))
    await asyncio.sleep(0)
    short = asyncio.create_task(batcher.submit([99]))
    await asyncio.sleep(0)
    model.gate.set()

    assert rows_of(await long) == list(range(10))
    assert rows_of(await short) == [99]
    assert model.rounds == [[0, 1, 2, 3], [99, 4, 5, 6], [7, 8, 9]]


async def test_a_query_behind_bulk_writes_goes_in_the_next_round():
    model = Model()
    batcher = RowBatcher(model.run, batch_size=4, dimension=2)
    model.gate.clear()
    bulk = [asyncio.create_task(batcher.submit(list(range(start, start + 12)))) for start in (0, 100)]
    await asyncio.sleep(0)
    queries = [asyncio.create_task(batcher.submit([row])) for row in (900, 901)]
    turn = asyncio.create_task(batcher.submit([950, 951, 952]))
    await asyncio.sleep(0)
    model.gate.set()

    assert [rows_of(await task) for task in queries] == [[900], [901]]
    assert rows_of(await turn) == [950, 951, 952]
    assert model.rounds[1] == [900, 901, 950, 951]  # the short requests, before the bulk's rows
    assert model.rounds[2][0] == 952
    assert [rows_of(await task) for task in bulk] == [list(range(12)), list(range(100, 112))]
    assert sorted(row for round_ in model.rounds for row in round_) == sorted(
        [*range(12), *range(100, 112), 900, 901, 950, 951, 952]
    )


async def test_a_failed_round_fails_its_calls_only():
    model = Model()
    batcher = RowBatcher(model.run, batch_size=2, dimension=2)
    model.gate.clear()
    model.fail_next = True
    doomed = asyncio.create_task(batcher.submit([1, 2]))
    await asyncio.sleep(0)
    later = asyncio.create_task(batcher.submit([3]))
    await asyncio.sleep(0)
    model.gate.set()

    with pytest.raises(RuntimeError, match="model crashed"):
        await doomed
    assert rows_of(await later) == [3]


async def test_a_cancelled_call_gives_up_its_remaining_rows():
    model = Model()
    batcher = RowBatcher(model.run, batch_size=2, dimension=2)
    model.gate.clear()
    first = asyncio.create_task(batcher.submit([1]))
    await asyncio.sleep(0)
    cancelled = asyncio.create_task(batcher.submit([5, 6, 7, 8]))
    await asyncio.sleep(0)
    cancelled.cancel()
    kept = asyncio.create_task(batcher.submit([9]))
    await asyncio.sleep(0)
    model.gate.set()

    assert rows_of(await first) == [1] and rows_of(await kept) == [9]
    assert [5, 6] not in model.rounds and all(5 not in batch for batch in model.rounds)


async def test_an_empty_call_needs_no_round():
    model = Model()
    batcher = RowBatcher(model.run, batch_size=2, dimension=2)
    assert (await batcher.submit([])).shape == (0, 2)
    assert model.rounds == []
