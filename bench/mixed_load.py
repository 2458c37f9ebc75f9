"""Mixed load: does any call wait for the embedded engine's maintenance? A bulk import through the
CLI while clients talk and search, until the memory service has no optimisation or compaction
pending, and a while after.

    nice -n 5 .venv/bin/python -m bench.mixed_load [--turns 50000] [--import-rate 150] [--clients 4]
        [--pace 1.0] [--after 300] [--session-turns 1000] [--importers 2] [--json mixed.json]

Starts the whole stack as ``./lore up`` does (bench.local_stack: embedded back ends, a temporary
data directory, free ports), then, at once:

- imports ``--turns`` turns of its own generated sentences (people, what they did, where, when)
  with ``lore turns import`` (the CLI, as a user runs it, one subprocess per file), one file and
  one new session per ``--session-turns`` turns, spread over four users. A file is started every
  ``--session-turns / --import-rate`` seconds, and earlier ones still running go on beside it (at
  most ``--importers``), so the import is offered at no less than ``--import-rate`` turns/s; each
  CLI sends its batches of 200 back to back, retries a batch that outlasted the gateway's
  ``LORE_RPC_TIMEOUT_SECONDS`` (a 504; the turns that landed meanwhile are then "already there",
  and count as imported) and stops its file at the first refused batch (counted as an error, its
  turns not imported). A batch's latency is read from the CLI's progress bar,
  drawn with the seconds since it started (``TQDM_BAR_FORMAT``): the CLI's own clock between two
  updates, one ``POST …/turns:import`` each;
- ``--clients`` clients, each with a session of its own, call every ``--pace`` seconds (the next
  call waits for the last: a stalled call shows as a gap), alternately a ProcessTurn
  (``lore_client`` ``process_turn``, a remark of its own) and a memory search (``lore_client``
  ``search``, k=10, in the scope of a user being imported, a question of its own);
- a sampler reads the memory service's metrics page every second: its event-loop lag
  (``lore_event_loop_lag_seconds``, ``…_max_seconds``), its maintenance (``lore_memory_maintenance_*``,
  the optimisation's step, the writes each shard took and the last optimisation covered), the CPU
  of every process of the stack (bench.measure.CpuMeter; the optimiser child counted apart) and
  the memory service's resident memory (its own, and its children's: the optimiser holds a copy).

Once every import has ended and reflection has read every imported turn, it waits until the
memory service reports no optimisation or compaction running or due for those writes (every write
applied to the shards by then covered by a finished optimisation: the next one starts within
``LORE_QDRANT_OPTIMIZE_SECONDS``, ``--optimize-seconds`` to set it), then goes on ``--after``
seconds and stops.

What it prints:

- per 10 s of the run (by the call's start): for each kind (turn, search, import batch) the calls
  started, p50, p99 and max latency in ms; the memory service's event-loop lag in that window
  (wake-ups later than 250 ms, the largest: exact when it was the largest since the start, else the
  histogram bucket it fell in, "≤ x"); the stack's CPU in cores; the optimisation's steps seen;
- per kind over the run: calls, p50 / p95 / p99 / max, timeouts (no answer within ``--timeout``)
  and errors by code;
- the import's achieved turns/s (turns imported ÷ the time from the first file's start to the last
  one's end) against ``--import-rate``, and when reflection of the imported turns caught up;
- the memory service's event-loop lag over the run: the largest, p99 (from the histogram: "≤ the
  bucket's bound"), the windows where it exceeded 250 ms; the largest lag of the other services;
- CPU per call over every process of the stack from the start to the end (the optimiser child
  apart: sampled each second, so a lower bound; the rest of the memory service's CPU is its own),
  where a call is a client's turn or search or one imported turn;
- the memory service's peak resident memory, its own and its children's separately (sampled);
- how long the wait for maintenance took, and the optimisation runs seen (from their steps);
- per service and gRPC method, the calls answered over the run, their mean and the p99's bucket
  (``lore_grpc_server_handling_seconds``, server side): where a slow call spent its time.

``--json PATH`` writes every call (start offset, kind, ms, outcome), every sample and the windows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import statistics
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psutil
from lore_client import LoreApiError, LoreClient
from prometheus_client.parser import text_string_to_metric_families

from bench.local_stack import stack_environment, start, stop
from bench.measure import (
    OPTIMISER_MODULE,
    QUESTION_PREFIXES,
    QUESTION_SUFFIXES,
    REMARK_PREFIXES,
    REMARK_SUFFIXES,
    CpuMeter,
    CpuUse,
    UniqueTexts,
    percentile,
)

ROOT = Path(__file__).resolve().parents[1]
KEY = "bench-development-key-0123456789"
WINDOW = 10.0  # seconds per row of the series
SLOW_LAG = 0.25  # an event-loop lag above this is a stall a caller feels
IMPORT_USERS = [f"importer-{n}" for n in range(4)]
KINDS = ("turn", "search", "import batch")

PEOPLE = [
    "Marta", "Jonas", "Keiko", "Ravi", "Ingrid", "Tomasz", "Lucia", "Emeka",
    "Sanna", "Hugo", "Nadia", "Felix", "Yara", "Bruno", "Alma", "Dev",
]  # fmt: skip
DOINGS = [
    "repaired an old bicycle", "planted tomatoes", "joined a weekend pottery course", "lost a house key",
    "cooked a lentil stew", "watched a comet", "fixed the kitchen tap", "sold a record player",
    "learned to juggle", "wrote a letter to a cousin", "painted the fence blue", "found a stray kitten",
    "booked a train to the coast", "baked rye bread", "swam across the lake", "built a bookshelf",
    "started a vegetable box scheme", "climbed the old tower", "returned a library book late",
    "tried a new running route", "bought a second-hand piano", "organised a quiz night",
    "photographed some herons", "knitted a scarf", "changed jobs", "repainted the hallway",
    "adopted an old greyhound", "mended a torn sail", "ran a charity bake sale", "taught a chess club",
]  # fmt: skip
PLACES = [
    "near the harbour", "at the community hall", "in the back garden", "by the river", "at the market",
    "in the attic", "at the allotment", "on the night bus", "at the village fair", "in the workshop",
    "at the swimming pool", "on the hill path", "at the old station", "in the library", "at a friend's flat",
    "by the canal", "at the sports ground", "in the town square", "on the ferry", "at the bakery",
]  # fmt: skip
WHEN = [
    "on Monday", "on Tuesday evening", "last weekend", "this morning", "two days ago", "in early spring",
    "after work", "before breakfast", "during the storm", "on a rainy Sunday", "at midnight", "last month",
]  # fmt: skip
REMARKS = [
    f"I {doing} {place} {when}." for doing in DOINGS[:15] for place in PLACES[:8] for when in WHEN[:6]
]  # 720 remarks of the clients' users, before the prefixes and suffixes


def import_sentences(count: int, seed: int = 11) -> list[str]:
    """``count`` distinct sentences (someone did something somewhere at some time), shuffled."""
    every = [
        f"{person} {doing} {place} {when}."
        for person in PEOPLE
        for doing in DOINGS
        for place in PLACES
        for when in WHEN
    ]
    if count > len(every):
        raise SystemExit(f"at most {len(every)} distinct imported sentences: ask for fewer turns")
    return random.Random(seed).sample(every, count)


def questions() -> list[str]:
    """What the clients search for: about the imported people, doings, places and times."""
    return [
        *(f"What did {person} do {when}?" for person in PEOPLE for when in WHEN),
        *(f"Who {doing} {place}?" for doing in DOINGS for place in PLACES),
        *(f"Where did {person} go after they {doing}?" for person in PEOPLE for doing in DOINGS),
    ]


# ------------------------------------------------------------------------------ the calls


@dataclass(slots=True)
class Call:
    start: float  # seconds from the run's start
    kind: str
    ms: float
    outcome: str  # ok, timeout, or the error's code


@dataclass
class Run:
    began: float = field(default_factory=time.monotonic)
    calls: list[Call] = field(default_factory=list)

    def now(self) -> float:
        return time.monotonic() - self.began

    def add(self, kind: str, started: float, ms: float, outcome: str = "ok") -> None:
        self.calls.append(Call(round(started, 3), kind, round(ms, 2), outcome))


def outcome_of(error: LoreApiError) -> str:
    return "timeout" if error.code == "DEADLINE_EXCEEDED" else error.code


# ------------------------------------------------------------------------------ the import


@dataclass
class ImportFile:
    path: Path
    user: str
    turns: int


@dataclass
class ImportRun:
    file: str
    started: float
    ended: float = 0.0
    imported: int = 0
    session_id: str = ""
    exit_code: int | None = None
    error: str = ""


def write_import_files(directory: Path, turns: int, per_session: int) -> list[ImportFile]:
    """JSON lines of ``turns`` turns, ``per_session`` a file, users in turn; a user and an assistant
    alternate, 20 s apart, over the past weeks."""
    sentences = import_sentences(turns)
    said = datetime.now(UTC) - timedelta(seconds=20 * turns + 86_400)
    files = []
    for number, first in enumerate(range(0, turns, per_session)):
        path = directory / f"import-{number:03d}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for index in range(first, min(turns, first + per_session)):
                turn = {
                    "role": "user" if index % 2 == 0 else "assistant",
                    "content": sentences[index],
                    "createdAt": (said + timedelta(seconds=20 * index)).isoformat().replace("+00:00", "Z"),
                }
                out.write(json.dumps(turn) + "\n")
        files.append(ImportFile(path, IMPORT_USERS[number % len(IMPORT_USERS)], min(per_session, turns - first)))
    return files


# The CLI's progress bar, as the bench asks tqdm to draw it (TQDM_BAR_FORMAT): the CLI's own clock.
BAR_FORMAT = "{n}/{total} after {elapsed_s:.3f} s|"
PROGRESS = re.compile(rb"(\d+)/(\d+) after (\d+\.\d+) s\|")
# A batch retried after its answer was lost is "already there": it is in the session all the same.
IMPORTED = re.compile(r"imported (\d+) turns? \((\d+) already there\) into session (\S+)")


async def import_one(file: ImportFile, env: dict[str, str], run: Run) -> ImportRun:
    """``lore turns import FILE --user U --agent bench-agent``; each progress-bar update ends a batch,
    timed by the CLI's own clock (the bar's seconds since it was drawn, after the session started)."""
    result = ImportRun(file.path.name, run.now())
    process = await asyncio.create_subprocess_exec(
        str(ROOT / ".venv" / "bin" / "lore"),
        "turns",
        "import",
        str(file.path),
        "--user",
        file.user,
        "--agent",
        "bench-agent",
        env={**env, "LORE_API_KEY": KEY, "TQDM_MININTERVAL": "0", "TQDM_MINITERS": "1", "TQDM_BAR_FORMAT": BAR_FORMAT},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None and process.stdout is not None
    done, drawn, last, pending, tail = 0, None, 0.0, b"", b""
    while chunk := await process.stderr.read(4096):
        pending += chunk
        *updates, pending = re.split(rb"[\r\n]", pending)
        for update in updates:
            if not (match := PROGRESS.search(update)):
                tail = (tail + update)[-2000:]
                continue
            tail = (tail + update[match.end() :])[-2000:]  # what the CLI wrote after the bar, on its line
            count, elapsed = int(match.group(1)), float(match.group(3))
            if drawn is None:  # the bar's first line: the session is started, the first batch goes
                drawn = run.now() - elapsed
            elif count > done:
                run.add("import batch", drawn + last, (elapsed - last) * 1000)
                last = elapsed
            done = max(done, count)
    tail = (tail + b" " + pending)[-2000:]  # the last line (the CLI's error, when it failed)
    output = (await process.stdout.read()).decode(errors="replace")
    result.exit_code = await process.wait()
    result.ended = run.now()
    if match := IMPORTED.search(output):
        result.imported, result.session_id = int(match.group(1)) + int(match.group(2)), match.group(3)
    if result.exit_code != 0:
        result.error = (tail.decode(errors="replace") + output)[-500:]
        since = result.started if drawn is None else drawn + last
        run.add("import batch", since, (run.now() - since) * 1000, "error")
    return result


async def import_all(files: list[ImportFile], env: dict[str, str], run: Run, rate: float, most: int) -> list[ImportRun]:
    """A file every ``turns / rate`` seconds (the import offered at ``rate`` turns/s at least), at
    most ``most`` CLIs at once: one starts late when ``most`` are still running."""
    slots = asyncio.Semaphore(most)
    began = run.now()

    async def one(file: ImportFile) -> ImportRun:
        async with slots:
            return await import_one(file, env, run)

    tasks, due = [], began
    for file in files:
        await asyncio.sleep(max(0.0, due - run.now()))
        await slots.acquire()  # wait for a free slot before scheduling the next file
        slots.release()
        tasks.append(asyncio.create_task(one(file)))
        due += file.turns / rate
        await asyncio.sleep(0)  # let it take its slot
    return list(await asyncio.gather(*tasks))


# ------------------------------------------------------------------------------ the clients


async def client(
    number: int, lore: LoreClient, turns: UniqueTexts, searches: UniqueTexts, pace: float, stop: asyncio.Event, run: Run
) -> None:
    """Every ``pace`` seconds a call, alternately a turn and a search; the next waits for the last."""
    session_id = (await lore.start_session({"userId": f"talker-{number}", "agentId": "bench-agent"})).id
    began = run.now() + pace * number / 4  # the clients do not all call at the same instant
    await asyncio.sleep(max(0.0, began - run.now()))
    tick = 0
    while not stop.is_set():
        kind = "turn" if tick % 2 == 0 else "search"
        started, clock = run.now(), time.perf_counter()
        outcome = "ok"
        try:
            if kind == "turn":
                await lore.process_turn(session_id, turns.take(1)[0], turn_idempotency_key=f"c{number}-{tick}")
            else:
                user = IMPORT_USERS[(tick // 2 + number) % len(IMPORT_USERS)]
                await lore.search(searches.take(1)[0], {"userId": user}, k=10)
        except LoreApiError as error:
            outcome = outcome_of(error)
        run.add(kind, started, (time.perf_counter() - clock) * 1000, outcome)
        tick += 1
        next_tick = began + pace * max(tick, int((run.now() - began) / pace) + 1)  # missed ticks are skipped
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(0.0, next_tick - run.now()))


# ------------------------------------------------------------------------------ the sampler


@dataclass
class Sample:
    t: float
    page_ms: float | None  # how long the memory service's metrics page took (None: no answer in 5 s)
    lag: dict[str, float] | None  # cumulative histogram: le -> count, and "max"
    running: dict[str, float] | None
    pending: dict[str, float] | None
    step: str | None
    writes: dict[str, float] | None
    optimised: dict[str, float] | None
    cpu: dict[str, float]  # cumulative CPU seconds by process name (the optimiser apart)
    memory_rss_mib: float
    children_rss_mib: float


def parse_page(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {"lag": {}, "running": {}, "pending": {}, "step": None, "writes": {}, "optimised": {}}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name, labels, value = sample.name, sample.labels, sample.value
            if name == "lore_event_loop_lag_seconds_bucket":
                found["lag"][labels["le"]] = value
            elif name == "lore_event_loop_lag_max_seconds":
                found["lag"]["max"] = value
            elif name == "lore_memory_maintenance_running":
                found["running"][labels["kind"]] = value
            elif name == "lore_memory_maintenance_pending":
                found["pending"][labels["kind"]] = value
            elif name == "lore_memory_optimisation_step" and value == 1:
                found["step"] = labels["step"]
            elif name == "lore_memory_shard_writes":
                found["writes"][labels["collection"]] = value
            elif name == "lore_memory_shard_writes_optimised":
                found["optimised"][labels["collection"]] = value
    return found


class Sampler:
    """Every second: the memory service's metrics page, the stack's CPU and the memory service's RSS."""

    def __init__(self, run: Run, meter: CpuMeter, memory_pid: int, metrics_address: str) -> None:
        self.run = run
        self.meter = meter
        self.memory = psutil.Process(memory_pid)
        self.url = f"http://{metrics_address}/metrics"
        self.samples: list[Sample] = []
        self.optimiser_cpu: dict[int, float] = {}  # per optimiser child: the most CPU seen
        self.last: dict[str, Any] | None = None

    def optimisers(self) -> list[psutil.Process]:
        found = []
        for child in self.memory.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if any(part.encode().endswith(OPTIMISER_MODULE) for part in child.cmdline()):
                    found.append(child)
        return found

    def cpu_and_rss(self) -> tuple[dict[str, float], float, float]:
        for child in self.optimisers():
            with contextlib.suppress(psutil.Error):
                times = child.cpu_times()
                self.optimiser_cpu[child.pid] = max(self.optimiser_cpu.get(child.pid, 0.0), times.user + times.system)
        used = self.meter.reading()
        optimiser = sum(self.optimiser_cpu.values())
        live = used.pop("memory optimiser", 0.0)
        # A reaped child's CPU is in the memory service's own count: moved to the optimiser's.
        used["memory"] = used.get("memory", 0.0) - (optimiser - live)
        used["memory optimiser"] = optimiser
        own = children = 0.0
        with contextlib.suppress(psutil.Error):
            own = self.memory.memory_info().rss / 2**20
            for child in self.memory.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    children += child.memory_info().rss / 2**20
        return used, own, children

    async def sample(self, http: httpx.AsyncClient) -> Sample:
        t = self.run.now()
        began = time.perf_counter()
        page: dict[str, Any] | None = None
        try:
            page = parse_page((await http.get(self.url, timeout=5)).text)
            page_ms: float | None = (time.perf_counter() - began) * 1000
        except httpx.HTTPError:
            page_ms = None
        cpu, own, children = await asyncio.to_thread(self.cpu_and_rss)
        if page is not None:
            self.last = page
        sample = Sample(
            round(t, 3),
            None if page_ms is None else round(page_ms, 1),
            page and page["lag"],
            page and page["running"],
            page and page["pending"],
            page and page["step"],
            page and page["writes"],
            page and page["optimised"],
            {name: round(seconds, 3) for name, seconds in cpu.items()},
            round(own, 1),
            round(children, 1),
        )
        self.samples.append(sample)
        return sample

    async def forever(self, stop: asyncio.Event) -> None:
        async with httpx.AsyncClient() as http:
            while not stop.is_set():
                due = time.monotonic() + 1.0
                await self.sample(http)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), max(0.0, due - time.monotonic()))
            await self.sample(http)  # the end of the run


# ------------------------------------------------------------------------------ waiting


async def still_behind(lore: LoreClient, session_ids: set[str]) -> set[str]:
    """Of ``session_ids``, those with turns reflection has not read yet."""
    behind = set()
    for session_id in session_ids:
        session = await lore.get_session(session_id)
        if session.reflected_turns < session.turn_count:
            behind.add(session_id)
    return behind


async def maintained(sampler: Sampler, lore: LoreClient, session_ids: list[str], limit: float) -> dict[str, float]:
    """Seconds until reflection read every imported turn, then until every write the shards had
    taken by then is covered by a finished optimisation and no optimisation or compaction runs or
    is due; or until ``limit`` seconds."""
    began = sampler.run.now()
    waited: dict[str, float] = {}
    behind = set(session_ids)
    while behind := await still_behind(lore, behind):
        if sampler.run.now() - began > limit:
            return {**waited, "gave up": sampler.run.now() - began}
        await asyncio.sleep(3)
    waited["reflection"] = sampler.run.now() - began
    while sampler.last is None or not sampler.last["writes"]:  # the embedded stores' page
        if sampler.run.now() - began > limit:
            return {**waited, "gave up": sampler.run.now() - began}
        await asyncio.sleep(1)
    target = dict(sampler.last["writes"])
    while True:
        page = sampler.last
        if (
            all(page["optimised"].get(name, 0) >= writes for name, writes in target.items())
            and not any(page["running"].values())
            and not page["pending"].get("compaction")
        ):
            waited["maintenance"] = sampler.run.now() - began
            return waited
        if sampler.run.now() - began > limit:
            return {**waited, "gave up": sampler.run.now() - began}
        await asyncio.sleep(1)


# ------------------------------------------------------------------------------ the figures


def latency_cells(cell: dict[str, Any]) -> str:
    if not cell["count"]:
        return f"{0:>5} {'':>7} {'':>7} {'':>8}"
    return f"{cell['count']:>5} {cell['p50_ms']:>7.0f} {cell['p99_ms']:>7.0f} {cell['max_ms']:>8.0f}"


LAG_BOUNDS = ("0.001", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0", "30.0")


def lag_between(first: dict[str, float], last: dict[str, float]) -> dict[str, float]:
    """The histogram's counts (cumulative by bound) for the wake-ups between two readings."""
    return {le: last.get(le, 0.0) - first.get(le, 0.0) for le in (*LAG_BOUNDS, "+Inf")}


def lag_quantile(counts: dict[str, float], q: float) -> str:
    total = counts["+Inf"]
    if total <= 0:
        return "—"
    for le in LAG_BOUNDS:
        if counts[le] >= q * total:
            return f"≤ {float(le) * 1000:g} ms"
    return f"> {float(LAG_BOUNDS[-1]):g} s"


def lag_largest(counts: dict[str, float], first: dict[str, float], last: dict[str, float]) -> str:
    """The largest lag between two readings: exact when the since-start maximum rose, else its bucket."""
    if last.get("max", 0.0) > first.get("max", 0.0):
        return f"{last['max'] * 1000:.0f} ms"
    below = 0.0
    largest = None
    for le in (*LAG_BOUNDS, "+Inf"):
        if counts[le] > below:
            largest = le
        below = counts[le]
    if largest is None:
        return "—"
    return f"≤ {float(largest) * 1000:g} ms" if largest != "+Inf" else f"> {float(LAG_BOUNDS[-1]):g} s"


def with_lag(samples: Iterable[Sample]) -> list[Sample]:
    return [sample for sample in samples if sample.lag]


def reading_at(samples: list[Sample], t: float) -> Sample | None:
    """The last sample taken at or before ``t`` (the first one when none was)."""
    chosen = None
    for sample in samples:
        if sample.t <= t or chosen is None:
            chosen = sample
        if sample.t > t:
            break
    return chosen


def windows(run: Run, samples: list[Sample], end: float) -> list[dict[str, Any]]:
    lagged = with_lag(samples)
    rows = []
    for index in range(int(end // WINDOW) + 1):
        low, high = index * WINDOW, (index + 1) * WINDOW
        row: dict[str, Any] = {"from_s": low}
        for kind in KINDS:
            ms = [call.ms for call in run.calls if call.kind == kind and low <= call.start < high]
            failed = sum(
                1 for call in run.calls if call.kind == kind and low <= call.start < high and call.outcome != "ok"
            )
            row[kind] = {
                "count": len(ms),
                "p50_ms": percentile(ms, 50) if ms else None,
                "p99_ms": percentile(ms, 99) if ms else None,
                "max_ms": max(ms) if ms else None,
                "failed": failed,
            }
        first, last = reading_at(lagged, low), reading_at(lagged, high)
        if first is not None and last is not None and first.lag and last.lag:
            counts = lag_between(first.lag, last.lag)
            row["lag"] = {
                "wakeups": counts["+Inf"],
                "above_250ms": counts["+Inf"] - counts["0.25"],
                "largest": lag_largest(counts, first.lag, last.lag),
            }
        within = [sample for sample in samples if low <= sample.t < high]
        cpu_first, cpu_last = reading_at(samples, low), reading_at(samples, high)
        if cpu_first is not None and cpu_last is not None and cpu_last.t > cpu_first.t:
            row["cores"] = round(
                (sum(cpu_last.cpu.values()) - sum(cpu_first.cpu.values())) / (cpu_last.t - cpu_first.t), 2
            )
        row["steps"] = sorted({sample.step for sample in within if sample.step})
        row["page_unanswered"] = sum(1 for sample in within if sample.page_ms is None)
        rows.append(row)
    return rows


def print_windows(rows: list[dict[str, Any]]) -> None:
    head = "  ".join(f"{kind:^30}" for kind in KINDS)
    print(f"{'':>6}  {head}  {'memory event loop':^26}")
    cells = "  ".join(f"{'n':>5} {'p50':>7} {'p99':>7} {'max':>8}" for _ in KINDS)
    print(f"{'from s':>6}  {cells}  {'>250ms':>6} {'largest':>12}  {'cores':>5}  optimisation steps")
    for row in rows:
        parts = [latency_cells(row[kind]) for kind in KINDS]
        lag = row.get("lag") or {}
        above = f"{lag['above_250ms']:.0f}" if lag else "—"
        largest = lag.get("largest", "—")
        cores = f"{row['cores']:.2f}" if "cores" in row else "—"
        notes = ",".join(row["steps"])
        if row["page_unanswered"]:
            notes += f" (metrics page unanswered {row['page_unanswered']}×)"
        print(f"{row['from_s']:>6.0f}  {'  '.join(parts)}  {above:>6} {largest:>12}  {cores:>5}  {notes}")


def print_kinds(run: Run, seconds: float) -> None:
    print(f"per kind over the run ({seconds:.0f} s):")
    for kind in KINDS:
        calls = [call for call in run.calls if call.kind == kind]
        ms = [call.ms for call in calls if call.outcome == "ok"]
        failures: dict[str, int] = {}
        for call in calls:
            if call.outcome != "ok":
                failures[call.outcome] = failures.get(call.outcome, 0) + 1
        timeouts = failures.pop("timeout", 0)
        figures = (
            f"p50 {statistics.median(ms):.1f} / p95 {percentile(ms, 95):.1f} / p99 {percentile(ms, 99):.1f} / "
            f"max {max(ms):.1f} ms"
            if ms
            else "none answered"
        )
        print(f"  {kind:<13} {len(calls):>6} calls, {figures}; timeouts {timeouts}, errors {failures or 0}")


def optimisation_runs(samples: list[Sample]) -> list[str]:
    """Each run seen on the page: when it started, its steps with the second each was first seen, its end."""
    runs, current, since = [], [], None
    for sample in samples:
        if sample.running is None:
            continue
        if sample.running.get("optimisation") and since is None:
            since, current = sample.t, []
        if since is not None and sample.step and (not current or current[-1][0] != sample.step):
            current.append((sample.step, sample.t))
        if since is not None and not sample.running.get("optimisation"):
            steps = ", ".join(f"{step} {t:.0f}" for step, t in current)
            runs.append(f"{since:.0f}–{sample.t:.0f} s ({sample.t - since:.0f} s): {steps or 'nothing to do'}")
            since = None
    if since is not None:
        runs.append(f"{since:.0f} s–: still running at the end")
    return runs


SERVICES = ("memory", "observations", "assembler", "agent")


def handling(env: dict[str, str]) -> dict[str, dict[str, dict[str, float]]]:
    """Each gRPC service's time answering each method so far (its
    ``lore_grpc_server_handling_seconds`` histogram): service -> method -> le/sum/count."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for name in SERVICES:
        with contextlib.suppress(httpx.HTTPError):
            page = httpx.get(f"http://{env[f'LORE_{name.upper()}_METRICS_ADDR']}/metrics", timeout=10).text
            for family in text_string_to_metric_families(page):
                if family.name != "lore_grpc_server_handling_seconds":
                    continue
                for sample in family.samples:
                    method = found.setdefault(name, {}).setdefault(sample.labels["grpc_method"], {})
                    key = sample.labels.get("le", sample.name.rsplit("_", 1)[-1])
                    method[key] = method.get(key, 0.0) + sample.value
    return found


def print_handling(before: dict[str, Any], after: dict[str, Any]) -> None:
    """Per service and method over the run: calls, mean, and the p99's histogram bucket."""
    print("time the services spent answering, per gRPC method over the run (server side):")
    for service, methods in after.items():
        cells = []
        for method, counts in sorted(methods.items(), key=lambda item: -item[1].get("count", 0.0)):
            earlier = before.get(service, {}).get(method, {})
            count = counts.get("count", 0.0) - earlier.get("count", 0.0)
            if count < 1:
                continue
            mean = (counts.get("sum", 0.0) - earlier.get("sum", 0.0)) / count * 1000
            buckets = sorted(
                (float(le), n - earlier.get(le, 0.0))
                for le, n in counts.items()
                if le not in ("sum", "count", "created")
            )
            p99 = next((le for le, n in buckets if n >= 0.99 * count), float("inf"))
            bound = "above the largest bucket" if p99 == float("inf") else f"≤ {p99 * 1000:g} ms"
            cells.append(f"{method} {count:.0f}× mean {mean:.0f} ms p99 {bound}")
        for first in range(0, len(cells), 4):
            print(f"  {service if first == 0 else '':<12} " + "; ".join(cells[first : first + 4]))


def other_lags(env: dict[str, str]) -> str:
    found = []
    for name in ("observations", "assembler", "agent"):
        address = env.get(f"LORE_{name.upper()}_METRICS_ADDR")
        with contextlib.suppress(httpx.HTTPError):
            page = parse_page(httpx.get(f"http://{address}/metrics", timeout=5).text)
            found.append(f"{name} {page['lag'].get('max', float('nan')) * 1000:.0f} ms")
    return ", ".join(found)


def memory_pid(launcher: int) -> int:
    for child in psutil.Process(launcher).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "memory_svc" in child.cmdline():
                return child.pid
    raise SystemExit("no memory service under `lore up`")


# ------------------------------------------------------------------------------ the run


async def exercise(args: argparse.Namespace, env: dict[str, str], url: str, data_dir: Path, launcher: int) -> None:
    files = write_import_files(data_dir.parent, args.turns, args.session_turns)
    meter = CpuMeter.of_stack(launcher, data_dir)
    run = Run()
    sampler = Sampler(run, meter, memory_pid(launcher), env["LORE_MEMORY_METRICS_ADDR"])
    turns = UniqueTexts(REMARKS, seed=5, prefixes=REMARK_PREFIXES, suffixes=REMARK_SUFFIXES)
    searches = UniqueTexts(questions(), seed=6, prefixes=QUESTION_PREFIXES, suffixes=QUESTION_SUFFIXES)
    limits = httpx.Limits(max_connections=16)
    async with LoreClient(url, KEY, timeout=args.timeout, max_retries=0, limits=limits) as lore:
        await lore.search("warm up the query path", {"userId": IMPORT_USERS[0]}, k=10)
        handled = await asyncio.to_thread(handling, env)
        stop_clients, stop_sampler = asyncio.Event(), asyncio.Event()
        meter.start()
        run.began = time.monotonic()
        sampling = asyncio.create_task(sampler.forever(stop_sampler))
        clients = [
            asyncio.create_task(client(n, lore, turns, searches, args.pace, stop_clients, run))
            for n in range(args.clients)
        ]
        imports = await import_all(files, env, run, args.import_rate, args.importers)
        imported_at = run.now()
        session_ids = [one.session_id for one in imports if one.session_id]
        waited = await maintained(sampler, lore, session_ids, args.max_wait)
        settled_at = run.now()
        await asyncio.sleep(args.after)
        stop_clients.set()
        await asyncio.gather(*clients)
        end = run.now()
        stop_sampler.set()
        await sampling
    report(args, env, run, sampler, meter, imports, imported_at, waited, settled_at, end)
    print_handling(handled, await asyncio.to_thread(handling, env))


def report(
    args: argparse.Namespace,
    env: dict[str, str],
    run: Run,
    sampler: Sampler,
    meter: CpuMeter,
    imports: list[ImportRun],
    imported_at: float,
    waited: dict[str, float],
    settled_at: float,
    end: float,
) -> None:
    samples = sampler.samples
    rows = windows(run, samples, end)
    print_windows(rows)
    print()
    print_kinds(run, end)

    imported = sum(one.imported for one in imports)
    first, last = min(one.started for one in imports), max(one.ended for one in imports)
    achieved = imported / max(1e-9, last - first)
    verdict = "met" if achieved >= args.import_rate else "NOT met"
    print(
        f"import: {imported} of {args.turns} turns in {len(imports)} sessions through `lore turns import`, "
        f"{last - first:.0f} s: {achieved:.1f} turns/s (offered at {args.import_rate:g}: {verdict})"
    )
    for failed in (one for one in imports if one.exit_code != 0):
        print(f"  {failed.file}: exit {failed.exit_code}: {failed.error.strip()[-300:]}")
    wait = ", ".join(f"{what} {seconds:.0f} s" for what, seconds in waited.items())
    print(f"after the import ({imported_at:.0f} s into the run): {wait} (then {args.after:.0f} s more)")

    lagged = with_lag(samples)
    if lagged:
        counts = lag_between(lagged[0].lag or {}, lagged[-1].lag or {})
        slow = [f"{row['from_s']:.0f}" for row in rows if row.get("lag", {}).get("above_250ms")]
        largest = lag_largest(counts, lagged[0].lag or {}, lagged[-1].lag or {})
        print(
            f"memory service event-loop lag over the run: largest {largest}, p99 {lag_quantile(counts, 0.99)}, "
            f"{counts['+Inf'] - counts['0.25']:.0f} of {counts['+Inf']:.0f} wake-ups above 250 ms; "
            f"windows with one: {', '.join(slow) + ' s' if slow else 'none'}"
        )
    unanswered = sum(1 for sample in samples if sample.page_ms is None)
    page_ms = [sample.page_ms for sample in samples if sample.page_ms is not None]
    if page_ms:
        print(
            f"  its metrics page (a thread of its own, so it answers unless the interpreter is held): "
            f"max {max(page_ms):.0f} ms, unanswered within 5 s {unanswered}×"
        )
    print(f"  largest lag since start of the other services: {other_lags(env)}")

    start_cpu, end_cpu = samples[0].cpu, samples[-1].cpu
    spent = {name: end_cpu.get(name, 0.0) - start_cpu.get(name, 0.0) for name in end_cpu}
    calls = sum(1 for call in run.calls if call.kind != "import batch") + imported
    use = CpuUse(spent, calls, f"{meter.what}, the optimiser apart (a lower bound), over the run's {end:.0f} s")
    print(use.line(unit="call"))
    cores = sum(spent.values()) / end
    print(f"  (a call: a client's turn or search, or one imported turn; {cores:.2f} cores on average)")
    peak_own = max(sample.memory_rss_mib for sample in samples)
    peak_children = max(sample.children_rss_mib for sample in samples)
    print(f"memory service peak RSS (sampled): {peak_own:.0f} MiB its own, {peak_children:.0f} MiB its children")
    runs = optimisation_runs(samples)
    print("optimisation runs seen (step and the second it was first seen):")
    for line in runs or ["none"]:
        print(f"  {line}")

    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "args": vars(args),
                    "import": [asdict(one) for one in imports],
                    "waited": waited,
                    "imported_at": imported_at,
                    "settled_at": settled_at,
                    "end": end,
                    "windows": rows,
                    "calls": [asdict(call) for call in run.calls],
                    "samples": [asdict(sample) for sample in samples],
                },
                indent=1,
            )
        )
        print(f"series written to {args.json}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50_000, help="turns imported through `lore turns import`")
    parser.add_argument("--import-rate", type=float, default=150.0, help="turns/s the import is offered at, at least")
    parser.add_argument("--session-turns", type=int, default=1_000, help="turns per imported file (one session each)")
    parser.add_argument("--importers", type=int, default=2, help="CLI processes at most at once")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between a client's calls")
    parser.add_argument("--after", type=float, default=300.0, help="seconds to go on once no maintenance is pending")
    parser.add_argument("--max-wait", type=float, default=3600.0, help="seconds to wait for maintenance at most")
    parser.add_argument("--timeout", type=float, default=30.0, help="a call's timeout (a timeout is counted)")
    parser.add_argument("--optimize-seconds", type=float, help="LORE_QDRANT_OPTIMIZE_SECONDS (the default: 300)")
    parser.add_argument("--json", help="write the series here")
    args = parser.parse_args()
    extra = {} if args.optimize_seconds is None else {"LORE_QDRANT_OPTIMIZE_SECONDS": str(args.optimize_seconds)}
    with tempfile.TemporaryDirectory(prefix="lore-mixed-") as temporary:
        data_dir = Path(temporary) / "data"
        env, url = stack_environment(data_dir, KEY, **extra)
        process, ready = start(data_dir, env, url)
        print(f"stack ready in {ready:.1f} s")
        try:
            asyncio.run(exercise(args, env, url, data_dir, process.pid))
        finally:
            stop(process)


if __name__ == "__main__":
    main()
