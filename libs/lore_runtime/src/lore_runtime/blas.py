"""One BLAS thread per service process, set before numpy is first imported.

OpenBLAS starts a thread per core and keeps it spinning after every product, waiting for the
next one. The services' products are small (a 113 × 384 cosine matrix, a batch of vectors)
and their processes share the node's cores with each other and with the embedding model:
measured on the assembler (bench/assembler_load.py), the spinning threads cost 50 ms of CPU
per AssembleContext (74 → 23 ms per call with one thread) and bought no latency. Concurrency
comes from the requests, not from inside one product. An operator can still set
``OPENBLAS_NUM_THREADS`` (or the other pools' variables) explicitly: ``setdefault`` keeps it.
"""

from __future__ import annotations

import os
import sys

POOL_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def use_one_thread() -> None:
    if "numpy" in sys.modules:
        raise RuntimeError("lore_runtime.blas.use_one_thread() must run before numpy is imported")
    for variable in POOL_VARIABLES:
        os.environ.setdefault(variable, "1")
