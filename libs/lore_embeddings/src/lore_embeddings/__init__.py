"""Text embeddings for Lore: the :class:`Embedder` port and its adapters.

Nothing is loaded at import time: :func:`create_embedder` (or
:meth:`OnnxMiniLmEmbedder.load`) builds an embedder explicitly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lore_embeddings.caching import (
    CachingEmbedder,
    cached_for_queries,
    open_query_embedder,
    register_cache_metrics,
)
from lore_embeddings.factory import create_embedder, create_embedder_from_env, open_embedder
from lore_embeddings.onnx import (
    DIMENSION,
    MODEL_NAME,
    MODEL_SHA256,
    ModelIntegrityError,
    OnnxMiniLmEmbedder,
)
from lore_embeddings.port import Embedder, EmbeddingError

if TYPE_CHECKING:
    from lore_embeddings.openai_compat import OpenAICompatibleEmbedder

__all__ = [
    "DIMENSION",
    "MODEL_NAME",
    "MODEL_SHA256",
    "CachingEmbedder",
    "Embedder",
    "EmbeddingError",
    "ModelIntegrityError",
    "OnnxMiniLmEmbedder",
    "OpenAICompatibleEmbedder",
    "cached_for_queries",
    "create_embedder",
    "create_embedder_from_env",
    "open_embedder",
    "open_query_embedder",
    "register_cache_metrics",
]


def __getattr__(name: str) -> Any:
    # httpx is only needed for the remote embedder: import it on first use.
    if name == "OpenAICompatibleEmbedder":
        from lore_embeddings.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder
    raise AttributeError(f"module 'lore_embeddings' has no attribute {name!r}")
