"""The Embedder contract: the same assertions against the fake and every real adapter.

A test module subclasses :class:`EmbedderContract` and provides an ``embedder`` fixture.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from lore_embeddings import Embedder

TEXTS = [
    "When did Noor first volunteer at the animal shelter?",
    "Noor volunteered at the animal shelter for the first time yesterday.",
    "I adore hiking in the mountains",
    "",
    "a",
    "Tomasz painted a sunset over the lake last summer, and he is planning another painting "
    "of the same view at dawn because the light was so different that morning. " * 3,
]


class EmbedderContract:
    async def test_matches_the_port(self, embedder) -> None:
        assert isinstance(embedder, Embedder)
        assert isinstance(embedder.model_name, str) and embedder.model_name
        assert isinstance(embedder.dimension, int) and embedder.dimension > 0

    async def test_shape_dtype_and_unit_rows(self, embedder) -> None:
        vectors = await embedder.embed(TEXTS)
        assert vectors.shape == (len(TEXTS), embedder.dimension)
        assert vectors.dtype == np.float32
        nonzero = np.linalg.norm(vectors, axis=1) > 0
        assert nonzero[[0, 1, 2, 4, 5]].all()
        np.testing.assert_allclose(np.linalg.norm(vectors[nonzero], axis=1), 1.0, atol=1e-5)

    async def test_empty_input(self, embedder) -> None:
        vectors = await embedder.embed([])
        assert vectors.shape == (0, embedder.dimension)
        assert vectors.dtype == np.float32

    async def test_deterministic(self, embedder) -> None:
        first = await embedder.embed(TEXTS)
        second = await embedder.embed(TEXTS)
        np.testing.assert_array_equal(first, second)

    async def test_batch_equals_one_by_one(self, embedder) -> None:
        batched = await embedder.embed(TEXTS)
        single = np.vstack([await embedder.embed([text]) for text in TEXTS])
        np.testing.assert_allclose(batched, single, atol=1e-5)

    async def test_accepts_a_tuple_and_keeps_order(self, embedder) -> None:
        forward = await embedder.embed(tuple(TEXTS))
        backward = await embedder.embed(list(reversed(TEXTS)))
        np.testing.assert_allclose(forward, backward[::-1], atol=1e-5)

    async def test_concurrent_callers_get_their_own_vectors(self, embedder) -> None:
        expected = await embedder.embed(TEXTS)
        results = await asyncio.gather(*(embedder.embed([text]) for text in TEXTS))
        np.testing.assert_allclose(np.vstack(results), expected, atol=1e-5)


@pytest.fixture
def texts() -> list[str]:
    return list(TEXTS)
