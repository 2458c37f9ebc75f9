"""Memory index adapters under test: the fake, qdrant-edge in a tmp dir, qdrant-client local mode."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from memory_svc.adapters.qdrant_client_index import QdrantClientMemoryIndex
from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
from qdrant_client import AsyncQdrantClient

from tests.fakes import InMemoryMemoryIndex

DIMENSION = 8
MODEL = "test/random-unit"


@pytest.fixture(params=["fake", "qdrant_edge", "qdrant_client_local"])
async def memory_index(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[object]:
    if request.param == "fake":
        yield InMemoryMemoryIndex()
    elif request.param == "qdrant_edge":
        index = await QdrantEdgeMemoryIndex.open(tmp_path / "memory", embedding_model=MODEL, dimension=DIMENSION)
        yield index
        await index.close()
    else:
        index = await QdrantClientMemoryIndex.open(
            AsyncQdrantClient(location=":memory:"), embedding_model=MODEL, dimension=DIMENSION, owns_client=True
        )
        yield index
        await index.close()
