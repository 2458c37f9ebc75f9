"""The HashingEmbedder fake keeps the Embedder contract (so unit tests using it stay honest)."""

from __future__ import annotations

import pytest

from tests.fakes import HashingEmbedder
from tests.integration.embeddings.contract_embedder import EmbedderContract


class TestHashingEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self) -> HashingEmbedder:
        return HashingEmbedder()
