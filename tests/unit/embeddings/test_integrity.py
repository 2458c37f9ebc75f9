"""The sha256 check and lazy import, without running the model."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from lore_embeddings import ModelIntegrityError
from lore_embeddings.onnx import MODEL_SHA256, verify_model


def test_verify_model_accepts_the_matching_hash(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"weights")
    verify_model(path, hashlib.sha256(b"weights").hexdigest())


def test_verify_model_refuses_a_different_file(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"other weights")
    with pytest.raises(ModelIntegrityError, match=f"expected {MODEL_SHA256}"):
        verify_model(path)


def test_verify_model_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelIntegrityError, match="not found"):
        verify_model(tmp_path / "nothing.onnx")


def test_import_loads_neither_onnxruntime_nor_httpx() -> None:
    code = "import sys, lore_embeddings; print('onnxruntime' in sys.modules, 'httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
