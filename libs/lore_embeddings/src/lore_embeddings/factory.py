"""Choosing the Embedder: a remote OpenAI-compatible service when a base URL is given, else local ONNX."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from contextlib import AsyncExitStack

from lore_embeddings.onnx import DEFAULT_BATCH_SIZE, DIMENSION, MODEL_NAME, OnnxMiniLmEmbedder
from lore_embeddings.port import Embedder

LOCAL_MODEL_ALIASES = {MODEL_NAME, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}


def create_embedder(
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    *,
    dimension: int | None = None,
    intra_op_threads: int | None = None,
    batch_size: int | None = None,
) -> Embedder:
    """The local all-MiniLM-L6-v2 int8 embedder, or an OpenAI-compatible client if ``base_url`` is set.

    Remote: ``model`` defaults to ``all-MiniLM-L6-v2`` and ``dimension`` to 384 (give the
    real width for any other model). Local: ``model`` must be unset or name MiniLM; loading
    blocks for about 0.3 s.
    """
    if base_url:
        from lore_embeddings.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(
            base_url,
            model or "all-MiniLM-L6-v2",
            api_key=api_key,
            dimension=dimension or DIMENSION,
            batch_size=batch_size or 64,
        )
    if model and model not in LOCAL_MODEL_ALIASES:
        raise ValueError(
            f"local embeddings only run {MODEL_NAME}, not {model!r}; "
            "set LORE_EMBEDDINGS_BASE_URL to use another model through an API"
        )
    if dimension and dimension != DIMENSION:
        raise ValueError(f"{MODEL_NAME} has dimension {DIMENSION}, not {dimension}")
    return OnnxMiniLmEmbedder.load(intra_op_threads=intra_op_threads, batch_size=batch_size or DEFAULT_BATCH_SIZE)


def create_embedder_from_env(environ: Mapping[str, str]) -> Embedder:
    """:func:`create_embedder` configured by the environment.

    Reads ``LORE_EMBEDDINGS_{BASE_URL,MODEL,API_KEY,DIMENSION,THREADS,BATCH_SIZE}``; empty means unset.
    """

    def get(name: str) -> str | None:
        return environ.get(f"LORE_EMBEDDINGS_{name}") or None

    def number(name: str) -> int | None:
        raw = get(name)
        if raw is None:
            return None
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"LORE_EMBEDDINGS_{name} must be an integer, not {raw!r}") from None

    return create_embedder(
        get("BASE_URL"),
        get("MODEL"),
        get("API_KEY"),
        dimension=number("DIMENSION"),
        intra_op_threads=number("THREADS"),
        batch_size=number("BATCH_SIZE"),
    )


async def open_embedder(
    stack: AsyncExitStack,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    *,
    intra_op_threads: int | None = None,
) -> Embedder:
    """:func:`create_embedder` off the event loop (loading blocks), closed when ``stack`` unwinds."""
    embedder = await asyncio.to_thread(
        functools.partial(create_embedder, base_url, model, api_key, intra_op_threads=intra_op_threads)
    )
    stack.push_async_callback(embedder.aclose)
    return embedder
