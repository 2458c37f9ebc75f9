"""Services run numpy with one BLAS thread unless the operator says otherwise."""

import os
import subprocess
import sys

import pytest
from lore_runtime import blas

PROBE = (
    "from lore_runtime import blas; blas.use_one_thread(); import os, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
)


def _probe(**environ: str) -> str:
    env = {key: value for key, value in os.environ.items() if key not in blas.POOL_VARIABLES}
    completed = subprocess.run([sys.executable, "-c", PROBE], env={**env, **environ}, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


def test_a_fresh_process_gets_one_blas_thread() -> None:
    assert _probe() == "1"


def test_an_operators_explicit_setting_is_kept() -> None:
    assert _probe(OPENBLAS_NUM_THREADS="2") == "2"


def test_too_late_once_numpy_is_loaded() -> None:
    import numpy  # noqa: F401 - the situation under test

    with pytest.raises(RuntimeError, match="before numpy"):
        blas.use_one_thread()
