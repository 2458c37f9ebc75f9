"""OpenAICompatibleEmbedder against httpx.MockTransport, and the factory's choice."""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest
from lore_embeddings import Embedder, EmbeddingError, OpenAICompatibleEmbedder, create_embedder
from lore_embeddings.factory import create_embedder_from_env
from lore_embeddings.port import check_texts, normalise_rows


def service(requests: list[httpx.Request], dimension: int = 3, status: int = 200):
    def handle(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if status != 200:
            return httpx.Response(status, json={"error": {"message": "invalid api key"}})
        body = json.loads(request.content)
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(text)) + 1.0] + [1.0] * (dimension - 1)}
            for i, text in enumerate(body["input"])
        ]
        return httpx.Response(200, json={"object": "list", "model": body["model"], "data": data[::-1]})

    return httpx.MockTransport(handle)


async def test_posts_model_and_key_and_normalises() -> None:
    requests: list[httpx.Request] = []
    embedder = OpenAICompatibleEmbedder(
        "http://embed.local:8000/",
        "text-embedding-3-small",
        dimension=3,
        api_key="sk-test",
        batch_size=2,
        transport=service(requests),
    )
    assert isinstance(embedder, Embedder)
    vectors = await embedder.embed(["a", "bbb", "cc"])
    assert vectors.shape == (3, 3) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    expected = normalise_rows(np.array([[2, 1, 1], [4, 1, 1], [3, 1, 1]], dtype=np.float32))
    np.testing.assert_allclose(vectors, expected, atol=1e-6)  # answers come back out of order
    assert [str(r.url) for r in requests] == ["http://embed.local:8000/v1/embeddings"] * 2
    assert requests[0].headers["authorization"] == "Bearer sk-test"
    assert json.loads(requests[0].content) == {"model": "text-embedding-3-small", "input": ["a", "bbb"]}
    await embedder.aclose()


async def test_base_url_with_v1_is_not_doubled_and_no_key_sends_no_header() -> None:
    requests: list[httpx.Request] = []
    embedder = OpenAICompatibleEmbedder("http://tei/v1", "m", dimension=3, transport=service(requests))
    await embedder.embed(["x"])
    assert str(requests[0].url) == "http://tei/v1/embeddings"
    assert "authorization" not in requests[0].headers
    await embedder.aclose()


async def test_empty_input_makes_no_request() -> None:
    requests: list[httpx.Request] = []
    embedder = OpenAICompatibleEmbedder("http://tei", "m", dimension=3, transport=service(requests))
    assert (await embedder.embed([])).shape == (0, 3)
    assert requests == []
    await embedder.aclose()


async def test_http_error_is_an_embedding_error() -> None:
    embedder = OpenAICompatibleEmbedder("http://tei", "m", dimension=3, transport=service([], status=401))
    with pytest.raises(EmbeddingError, match=r"401.*invalid api key"):
        await embedder.embed(["x"])
    await embedder.aclose()


async def test_wrong_width_is_an_embedding_error() -> None:
    embedder = OpenAICompatibleEmbedder("http://tei", "m", dimension=384, transport=service([], dimension=3))
    with pytest.raises(EmbeddingError, match=r"shape \(1, 3\), expected \(1, 384\)"):
        await embedder.embed(["x"])
    await embedder.aclose()


async def test_unreachable_service_is_an_embedding_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    embedder = OpenAICompatibleEmbedder("http://tei", "m", dimension=3, transport=httpx.MockTransport(refuse))
    with pytest.raises(EmbeddingError, match="unreachable"):
        await embedder.embed(["x"])
    await embedder.aclose()


async def test_factory_with_base_url_builds_the_http_client() -> None:
    embedder = create_embedder("https://api.example.com", "text-embedding-3-small", "sk-x", dimension=1536)
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert (embedder.model_name, embedder.dimension) == ("text-embedding-3-small", 1536)
    await embedder.aclose()
    default = create_embedder_from_env({"LORE_EMBEDDINGS_BASE_URL": "http://tei:8080"})
    assert (default.model_name, default.dimension) == ("all-MiniLM-L6-v2", 384)
    await default.aclose()


def test_factory_refuses_other_local_models() -> None:
    with pytest.raises(ValueError, match="LORE_EMBEDDINGS_BASE_URL"):
        create_embedder(model="BAAI/bge-small-en-v1.5")
    with pytest.raises(ValueError, match="dimension 384"):
        create_embedder(dimension=768)
    with pytest.raises(ValueError, match="LORE_EMBEDDINGS_THREADS must be an integer"):
        create_embedder_from_env({"LORE_EMBEDDINGS_THREADS": "two"})


def test_check_texts() -> None:
    assert check_texts(("a", "b")) == ["a", "b"]
    with pytest.raises(TypeError, match="single string"):
        check_texts("abc")
    with pytest.raises(TypeError, match=r"texts\[1\] is int"):
        check_texts(["a", 1])  # type: ignore[list-item]


def test_normalise_rows_keeps_zero_rows() -> None:
    rows = normalise_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.0, 0.0]])
    assert rows.dtype == np.float32
