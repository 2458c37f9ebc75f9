"""The embedding LRU: one-text calls and each text of a small call are answered from it, in LRU
order, without letting a caller change what the next one gets; large calls bypass it; 0 turns it
off."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import numpy as np
import pytest
from lore_embeddings import (
    CachingEmbedder,
    Embedder,
    cached_for_queries,
    register_cache_metrics,
)
from lore_embeddings.caching import SMALL_CALL
from prometheus_client import CollectorRegistry


class Model:
    """A 3-d embedder whose vector depends on the text and the model name; counts every text it runs
    and can hold its runs until released."""

    dimension = 3

    def __init__(self, model_name: str = "model-a") -> None:
        self.model_name = model_name
        self.runs: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail_next = False
        self.closed = False

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.runs += list(texts)
        await self.gate.wait()
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("model crashed")
        seed = len(self.model_name)
        return np.asarray([[len(text), seed, sum(map(ord, text)) % 97] for text in texts], dtype=np.float32)

    async def aclose(self) -> None:
        self.closed = True


async def test_a_repeated_query_returns_the_same_vector_without_running_the_model():
    model = Model()
    cache = CachingEmbedder(model, 8)
    first = await cache.embed(["how is Tom?"])
    again = await cache.embed(["how is Tom?"])
    assert np.array_equal(first, again) and first.shape == (1, 3) and first.dtype == np.float32
    assert model.runs == ["how is Tom?"]
    assert (cache.hits, cache.misses) == (1, 1)
    assert isinstance(cache, Embedder) and (cache.model_name, cache.dimension) == ("model-a", 3)


async def test_the_exact_text_is_the_key():
    model = Model()
    cache = CachingEmbedder(model, 8)
    for text in ["how is Tom?", "how is Tom? ", "How is Tom?", "how is Tom?"]:
        await cache.embed([text])
    assert model.runs == ["how is Tom?", "how is Tom? ", "How is Tom?"]


async def test_a_caller_cannot_change_what_the_next_one_gets():
    cache = CachingEmbedder(Model(), 8)
    first = await cache.embed(["q"])
    expected = first.copy()
    first[0, 0] = 1000.0  # the caller's own copy
    hit = await cache.embed(["q"])
    assert np.array_equal(hit, expected)
    hit[0] += 5  # a hit is a copy too
    assert np.array_equal(await cache.embed(["q"]), expected)


async def test_the_least_recently_used_entry_is_evicted_first():
    model = Model()
    cache = CachingEmbedder(model, 2)
    await cache.embed(["a"])
    await cache.embed(["b"])
    await cache.embed(["a"])  # a is now the most recent: b goes next
    await cache.embed(["c"])
    assert len(cache) == 2
    model.runs.clear()
    await cache.embed(["a"])
    await cache.embed(["c"])
    assert model.runs == []
    await cache.embed(["b"])
    assert model.runs == ["b"]  # evicted, computed again; it pushes out a, now the oldest
    model.runs.clear()
    await cache.embed(["a"])
    assert model.runs == ["a"]


async def test_size_zero_disables_it():
    model = Model()
    assert cached_for_queries(model, 0) is model
    cache = CachingEmbedder(model, 0)
    await cache.embed(["q"])
    await cache.embed(["q"])
    assert model.runs == ["q", "q"] and len(cache) == 0 and (cache.hits, cache.misses) == (0, 0)
    assert isinstance(cached_for_queries(model, 5), CachingEmbedder)
    with pytest.raises(ValueError):
        CachingEmbedder(model, -1)


async def test_large_calls_bypass_it():
    model = Model()
    cache = CachingEmbedder(model, 64)
    docs = [f"doc {number}" for number in range(SMALL_CALL + 1)]
    batch = await cache.embed(docs)
    assert batch.shape == (len(docs), 3) and len(cache) == 0
    await cache.embed(docs)
    assert model.runs == docs + docs
    assert (await cache.embed([])).shape[0] == 0
    with pytest.raises(TypeError):
        await cache.embed("a bare string")  # type: ignore[arg-type]


async def test_a_small_call_runs_only_the_texts_not_held_in_one_model_call():
    model = Model()
    cache = CachingEmbedder(model, 8)
    query = await cache.embed(["I moved to Porto."])
    written = await cache.embed(["I moved to Porto.", "The user lives in Porto.", "I moved to Porto."])
    assert model.runs == ["I moved to Porto.", "The user lives in Porto."]
    expected = await model.embed(["I moved to Porto.", "The user lives in Porto.", "I moved to Porto."])
    assert np.array_equal(written, expected) and np.array_equal(written[0], query[0])
    again = await cache.embed(["The user lives in Porto.", "I moved to Porto."])
    assert len(model.runs) == 5  # the two texts, then the three of the expected vectors above
    assert np.array_equal(again, expected[[1, 0]])
    assert (cache.hits, cache.misses) == (4, 2)  # a text said twice in one call is one run, two hits
    again[0, 0] = -1.0
    assert (await cache.embed(["The user lives in Porto.", "x"]))[0, 0] != -1.0


async def test_another_model_is_another_key():
    """Vectors of two models never mix, even when the wrapped embedder changes model."""
    model = Model("model-a")
    cache = CachingEmbedder(model, 8)
    of_a = await cache.embed(["q"])
    model.model_name = "model-bb"
    of_b = await cache.embed(["q"])
    assert model.runs == ["q", "q"] and not np.array_equal(of_a, of_b)
    assert cache.model_name == "model-bb"
    model.model_name = "model-a"
    assert np.array_equal(await cache.embed(["q"]), of_a) and cache.hits == 1


async def test_concurrent_calls_for_one_text_share_one_run():
    model = Model()
    model.gate.clear()
    cache = CachingEmbedder(model, 8)
    calls = [asyncio.create_task(cache.embed([text])) for text in ["q", "q", "r", "q"]]
    await asyncio.sleep(0)
    model.gate.set()
    results = await asyncio.gather(*calls)
    assert sorted(model.runs) == ["q", "r"]
    assert np.array_equal(results[0], results[1]) and np.array_equal(results[0], results[3])
    results[0][0, 0] = -1  # each caller has its own array
    assert results[1][0, 0] != -1
    assert (cache.hits, cache.misses) == (2, 2)  # a miss is a model run; joining one is a hit


async def test_a_caller_giving_up_does_not_cancel_the_others_run():
    model = Model()
    model.gate.clear()
    cache = CachingEmbedder(model, 8)
    leaving = asyncio.create_task(cache.embed(["q"]))
    staying = asyncio.create_task(cache.embed(["q"]))
    await asyncio.sleep(0)
    leaving.cancel()
    await asyncio.sleep(0)
    model.gate.set()
    assert (await staying).shape == (1, 3)
    assert model.runs == ["q"] and len(cache) == 1


async def test_a_failure_is_not_cached():
    model = Model()
    model.fail_next = True
    cache = CachingEmbedder(model, 8)
    with pytest.raises(RuntimeError, match="crashed"):
        await cache.embed(["q"])
    assert len(cache) == 0
    assert (await cache.embed(["q"])).shape == (1, 3)
    assert model.runs == ["q", "q"]


def test_threads_with_their_own_loops_share_it_safely():
    model = Model()
    cache = CachingEmbedder(model, 16)
    texts = [f"q{n}" for n in range(32)]
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        async def calls() -> None:
            for round_ in range(20):
                for text in texts[offset : offset + 24]:
                    (vector,) = await cache.embed([text])
                    assert vector[0] == len(text), round_

        try:
            asyncio.run(calls())
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(offset,)) for offset in (0, 4, 8, 0)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache) <= 16
    assert cache.hits + cache.misses == 4 * 20 * 24


async def test_closing_clears_it_and_closes_the_model():
    model = Model()
    cache = CachingEmbedder(model, 8)
    await cache.embed(["q"])
    await cache.aclose()
    assert model.closed and len(cache) == 0


def test_the_size_is_a_lore_setting_of_the_memory_and_observations_services():
    from lore_runtime.settings import SettingsError, load_settings
    from memory_svc.config import Settings as MemorySettings
    from observations_svc.config import Settings as ObservationsSettings

    needed = {"LORE_DATABASE_URL": "postgresql://db/x", "LORE_REDIS_URL": "redis://r", "LORE_SERVICE_TOKEN": "t" * 32}
    for service in (MemorySettings, ObservationsSettings):
        assert load_settings(service, needed).embedding_cache_size == 1024
        assert load_settings(service, {**needed, "LORE_EMBEDDING_CACHE_SIZE": "0"}).embedding_cache_size == 0
        with pytest.raises(SettingsError) as raised:
            load_settings(service, {**needed, "LORE_EMBEDDING_CACHE_SIZE": "-1"})
        assert any(problem.startswith("LORE_EMBEDDING_CACHE_SIZE:") for problem in raised.value.problems)


async def test_a_negative_size_is_refused_before_the_model_loads():
    from contextlib import AsyncExitStack

    from lore_embeddings import open_query_embedder

    async with AsyncExitStack() as stack:
        with pytest.raises(ValueError, match="cache_size"):
            await open_query_embedder(stack, None, None, None, cache_size=-1)


async def test_hits_and_misses_reach_the_metrics_page():
    registry = CollectorRegistry()
    cache = CachingEmbedder(Model(), 8)
    register_cache_metrics(registry, cache)
    register_cache_metrics(registry, Model())  # no cache: nothing registered, no clash
    await cache.embed(["q"])
    await cache.embed(["q"])
    await cache.embed(["r"])
    assert registry.get_sample_value("lore_embedding_cache_hits_total") == 1
    assert registry.get_sample_value("lore_embedding_cache_misses_total") == 2
    assert registry.get_sample_value("lore_embedding_cache_entries") == 2
