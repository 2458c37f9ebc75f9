"""A Qdrant server that is not there (killed, or never started): the qdrant-client adapters raise
``DependencyUnavailable`` naming Qdrant (reason ``QDRANT_UNAVAILABLE``, metadata ``store``), which the
services answer as UNAVAILABLE and the gateway as a 503 with ``Retry-After``, never a 500.

No Qdrant server runs in the test suite (the embedded engine is in-process, and dies only with its
service), so the dead server is a port nobody listens on: what a client sees of a killed one."""

from __future__ import annotations

import pytest
from lore_devstack import free_port
from lore_runtime.errors import DependencyUnavailable
from memory_svc.adapters.qdrant_client_index import QdrantClientMemoryIndex
from qdrant_client import AsyncQdrantClient


async def test_a_qdrant_server_that_is_not_there_is_unavailable_naming_qdrant() -> None:
    # No version check: it runs in a thread of its own and would warn after the test.
    client = AsyncQdrantClient(url=f"http://127.0.0.1:{free_port()}", timeout=2, check_compatibility=False)
    with pytest.raises(DependencyUnavailable) as raised:
        await QdrantClientMemoryIndex.open(client, embedding_model="test-model", dimension=4, owns_client=True)
    assert raised.value.reason == "QDRANT_UNAVAILABLE"
    assert raised.value.metadata["store"] == "qdrant"
