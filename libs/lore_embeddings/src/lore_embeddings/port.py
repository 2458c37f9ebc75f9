"""The Embedder port: texts in, unit vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed width.

    ``embed`` returns an array of shape ``(len(texts), dimension)``; an empty input gives
    shape ``(0, dimension)``. Vectors are only comparable between embedders with the same
    ``model_name``.
    """

    model_name: str
    dimension: int

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    async def aclose(self) -> None: ...


class EmbeddingError(RuntimeError):
    """An embedder cannot produce vectors (bad model file, failing service, closed embedder)."""


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list, refusing a bare string (which would be embedded character by character)."""
    if isinstance(texts, str | bytes):
        raise TypeError("embed() takes a sequence of strings, not a single string; wrap it in a list")
    items = list(texts)
    for position, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"embed() texts[{position}] is {type(text).__name__}, not str")
    return items


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """float32 rows scaled to unit L2 norm (all-zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
