"""An Embedder over an OpenAI-compatible ``POST /v1/embeddings`` endpoint (OpenAI, vLLM, TEI, Ollama...)."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import numpy as np

from lore_embeddings.port import EmbeddingError, check_texts, normalise_rows


class OpenAICompatibleEmbedder:
    """Vectors from a remote service; rows are re-normalised here and their width checked.

    ``base_url`` is the server root (``https://api.openai.com``); a trailing ``/v1`` is
    accepted too. ``dimension`` must be the model's output width.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        dimension: int,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        root = base_url.rstrip("/")
        self._url = root + "/embeddings" if root.endswith("/v1") else root + "/v1/embeddings"
        self.model_name = model
        self.dimension = dimension
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(headers=headers, timeout=timeout, transport=transport)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        out = np.empty((len(items), self.dimension), dtype=np.float32)
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            out[start : start + len(batch)] = await self._post(batch)
        return out

    async def _post(self, batch: list[str]) -> np.ndarray:
        try:
            response = await self._client.post(self._url, json={"model": self.model_name, "input": batch})
        except httpx.HTTPError as error:
            raise EmbeddingError(f"embedding service {self._url} unreachable: {error}") from error
        if response.status_code != 200:
            raise EmbeddingError(
                f"embedding service {self._url} answered {response.status_code}: {response.text[:300]}"
            )
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            vectors = np.array([item["embedding"] for item in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as error:
            raise EmbeddingError(f"embedding service {self._url} sent a malformed answer") from error
        if vectors.shape != (len(batch), self.dimension):
            raise EmbeddingError(
                f"embedding service {self._url} sent shape {vectors.shape}, "
                f"expected {(len(batch), self.dimension)} for model {self.model_name}"
            )
        return normalise_rows(vectors)

    async def aclose(self) -> None:
        await self._client.aclose()
