"""What every benchmark measures the same way: latency percentiles, resident memory, the CPU
each service spends per call (``CpuMeter``, printed by ``CpuUse.line`` in one format everywhere),
and texts asked once per run (``UniqueTexts``: the services keep an LRU of query embeddings, so a
repeated text would measure the cache)."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path


def percentile(samples: list[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile of ``samples``."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def rss_mib(pid: int | None = None) -> float:
    """Resident memory of one process (this one by default)."""
    return _status_kib(pid or os.getpid(), "VmRSS") / 1024


def rss_breakdown(pid: int) -> str:
    """Resident memory split into anonymous (heap) and file-backed (mmapped files) parts."""
    anon, file = _status_kib(pid, "RssAnon") / 1024, _status_kib(pid, "RssFile") / 1024
    return f"{anon + file:.0f} MiB (anonymous {anon:.0f}, file-backed {file:.0f})"


def tree_rss_mib(root_pid: int) -> float:
    """Resident memory of a process and all its descendants."""
    return sum(_status_kib(pid, "VmRSS") for pid in _descendants(root_pid)) / 1024


# The memory service's child that optimises a copy of an embedded shard (edge_maintenance.py).
OPTIMISER_MODULE = b"memory_svc.adapters.edge_maintenance"


def service_cpu_seconds(root_pid: int, *, include_root: bool = True) -> dict[str, float]:
    """CPU seconds (user + system, with the reaped children's) used so far by each Lore service
    under ``root_pid``, by name (``memory``, ``gateway``…, from ``-m <name>_svc`` on its command
    line; the memory service's optimising child, ``memory optimiser``, while it lives: once reaped
    its CPU is the memory service's; everything else, the embedded stores, as ``stores``): what a
    call costs each process, as opposed to how long the caller waited. ``include_root=False``
    leaves the root out (a benchmark that starts the services itself is not one of them)."""
    ticks = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = {}
    for pid in _descendants(root_pid):
        if pid == root_pid and not include_root:
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        names = [part.decode().removesuffix("_svc") for part in command if part.endswith(b"_svc")]
        if any(part.endswith(OPTIMISER_MODULE) for part in command):
            names = ["memory optimiser"]
        name = names[0] if names else "stores"  # embedded Postgres and Redis, the launcher
        used[name] = used.get(name, 0.0) + sum(int(field) for field in fields[11:15]) / ticks
    return used


def postmaster_of(data_dir: Path) -> int | None:
    """The embedded Postgres whose cluster is ``data_dir / "postgres"`` (``lore up``'s data
    directory, or bench.memory_process's): it detaches (its parent is init), so a walk of its
    starter's descendants misses it; found by its data directory on its command line."""
    wanted = str(data_dir / "postgres").encode()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            command = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if command[0].endswith(b"/postgres") and wanted in command:
            return int(cmdline.parent.name)
    return None


# How a text is varied once every plain one is used: what people add around a question or a remark.
# The suffixes start in lower case: the memory service embeds a query without its capitalised
# words after the first (``memory_embeds``), which would drop a " Thanks!" and leave the text's
# embedding as it was.
QUESTION_PREFIXES = (
    "",
    "Remind me: ",
    "Quick question: ",
    "Do you remember: ",
    "Sorry if I asked before: ",
    "Can you check: ",
    "One more thing: ",
    "Before I forget: ",
)
QUESTION_SUFFIXES = ("", " thanks!", " just curious.", " no rush.", " it's for the weekly notes.", " if you know.")
REMARK_PREFIXES = ("", "Also, ", "OK. ", "Hmm. ", "Right. ", "One more thing: ", "So. ", "Well, ", "Oh, and ", "Btw: ")
REMARK_SUFFIXES = (
    "",
    " thanks.",
    " :)",
    " anyway.",
    " just so you know.",
    " does that make sense?",
    " sorry for the typos.",
    " more later.",
    " talk soon.",
    " cheers.",
    " hope that's OK.",
    " that's all for now.",
)


def memory_embeds(text: str) -> str:
    """The text the memory service embeds for a Recall (or an episode search) of ``text``, and
    so its key in the service's LRU: without the names (``memory_svc.domain.dense_query``), so
    "How is Tom doing?" and "How is Aiko doing?" are one embedding."""
    from memory_svc.domain.dense_query import dense_query

    return dense_query(text)


class UniqueTexts:
    """Texts each embedded once per run, so no timed call is answered from the services' LRU of
    query embeddings (LORE_EMBEDDING_CACHE_SIZE, keyed by the exact text embedded): first every
    text of ``base`` (in a shuffled order), then every one again with the next (prefix, suffix)
    pair, as people rephrase ("Remind me: … thanks!"), each pass reshuffled; a text whose
    ``key`` (what the service embeds: ``memory_embeds`` by default, the text itself with
    ``key=None``) was already handed out is skipped. ``take`` goes on where the last one stopped,
    so a warm-up never shares a text with the measured phases after it; once every pair is used
    it stops the run rather than repeat one."""

    def __init__(
        self,
        base: Iterable[str],
        *,
        seed: int = 0,
        prefixes: tuple[str, ...] = QUESTION_PREFIXES,
        suffixes: tuple[str, ...] = QUESTION_SUFFIXES,
        key: Callable[[str], str] | None = memory_embeds,
    ) -> None:
        self._base = list(dict.fromkeys(base))
        self._rng = random.Random(seed)
        self._variants = [(prefix, suffix) for suffix in suffixes for prefix in prefixes]
        self._key = key or (lambda text: text)
        self._texts = self._generate()
        self._seen: set[str] = set()

    def _generate(self) -> Iterator[str]:
        for prefix, suffix in self._variants:
            order = list(self._base)
            self._rng.shuffle(order)
            for text in order:
                yield f"{prefix}{text}{suffix}"

    def take(self, count: int) -> list[str]:
        taken: list[str] = []
        while len(taken) < count:
            text = next(self._texts, None)
            if text is None:
                raise SystemExit(f"only {len(self._seen)} distinct texts for this benchmark: ask for fewer calls")
            if (key := self._key(text)) not in self._seen:
                self._seen.add(key)
                taken.append(text)
        return taken


def rephrase_repeats(
    texts: Iterable[str],
    *,
    prefixes: tuple[str, ...] = QUESTION_PREFIXES,
    suffixes: tuple[str, ...] = QUESTION_SUFFIXES,
    key: Callable[[str], str] | None = memory_embeds,
) -> list[str]:
    """``texts`` as drawn (their mix of topics kept), one whose ``key`` (see ``UniqueTexts``) was
    already given rephrased with the first (prefix, suffix) pair that makes it new, so each
    embedding is computed once."""
    variants = [(prefix, suffix) for suffix in suffixes for prefix in prefixes]
    embedded = key or (lambda text: text)
    seen: set[str] = set()
    unique = []
    for text in texts:
        new = next((f"{p}{text}{s}" for p, s in variants if embedded(f"{p}{text}{s}") not in seen), None)
        if new is None:
            raise SystemExit(f"{text!r} drawn more than {len(variants)} times: ask for fewer calls")
        seen.add(embedded(new))
        unique.append(new)
    return unique


class EmbeddingCacheMeter:
    """Hits and misses of the services' LRUs of query embeddings over a phase, read from their
    Prometheus pages (``lore_embedding_cache_{hits,misses}_total``): that the timed calls were
    not answered from the cache, printed by ``line``. ``addresses``: service → host:port of its
    /metrics page; ``of_env`` takes the memory and observations services' from a stack's
    environment (``LORE_<SVC>_METRICS_ADDR``), and counts nothing when neither is set."""

    SERVICES = ("memory", "observations")

    def __init__(self, addresses: dict[str, str]) -> None:
        self.addresses = addresses
        self._start: dict[str, tuple[float, float]] = {}

    @classmethod
    def of_env(cls, env: dict[str, str]) -> EmbeddingCacheMeter:
        return cls(
            {
                name: env[f"LORE_{name.upper()}_METRICS_ADDR"]
                for name in cls.SERVICES
                if env.get(f"LORE_{name.upper()}_METRICS_ADDR")
            }
        )

    def _read(self) -> dict[str, tuple[float, float]]:
        import httpx

        counts = {}
        for name, address in self.addresses.items():
            page = httpx.get(f"http://{address}/metrics", timeout=10).text
            values = dict(line.rsplit(" ", 1) for line in page.splitlines() if line.startswith("lore_embedding_cache_"))
            hits = float(values.get("lore_embedding_cache_hits_total", "nan"))
            counts[name] = (hits, float(values.get("lore_embedding_cache_misses_total", "nan")))
        return counts

    def start(self) -> None:
        self._start = self._read()

    def line(self, indent: str = "  ") -> str:
        """``query-embedding cache since the phase's start: memory 0 hits, 60 misses; …``."""
        now = self._read()
        parts = [
            f"{name} {hits - self._start[name][0]:.0f} hits, {misses - self._start[name][1]:.0f} misses"
            for name, (hits, misses) in now.items()
        ]
        return f"{indent}query-embedding cache since the phase's start: {'; '.join(parts) or 'not read'}"


IDLE_WINDOW_S = 0.5  # services are idle again after two windows in a row each under IDLE_CORES
IDLE_CORES = 0.05  # an idle stack uses ~0.01 (timers, health checks): 10 ms ticks over 0.5 s
IDLE_TIMEOUT_S = 120.0  # reflection of a large import can take a minute


@dataclass(frozen=True, slots=True)
class CpuUse:
    """CPU seconds by process over a measured span, the calls made in it, and which span it was."""

    seconds: dict[str, float]
    calls: int
    span: str

    def per_call_ms(self) -> dict[str, float]:
        """Milliseconds per call by process, most first (those under 0.05 ms left out), then ``total``."""
        spent = {name: seconds * 1000 / max(1, self.calls) for name, seconds in self.seconds.items()}
        ordered = {name: ms for name, ms in sorted(spent.items(), key=lambda item: -item[1]) if ms >= 0.05}
        return {**ordered, "total": sum(spent.values())}

    def line(self, indent: str = "  ", unit: str = "call") -> str:
        """The line every benchmark prints next to its latencies:
        ``CPU per call (ms): memory 4.1, gateway 2.0, stores 0.8, total 6.9 (…span…; N calls)``
        (``unit``: what was counted, when not calls: ``item``, ``turn``)."""
        parts = ", ".join(f"{name} {ms:.{2 if ms < 1 else 1}f}" for name, ms in self.per_call_ms().items())
        return f"{indent}CPU per {unit} (ms): {parts} ({self.span}; {self.calls} {unit}s)"


class CpuMeter:
    """The CPU of a set of processes over a timed phase, divided by its calls.

    ``start()`` at the phase's start; ``stop(calls)`` (``await stop_async(calls)`` in a coroutine)
    at its end: by default it then waits until the services are idle again (background work a
    call left behind included: reflection, write-behind flushes, indexing) and ends the span when
    they last did work, or at ``IDLE_TIMEOUT_S``; ``idle=False`` ends it with the phase. The span
    is named in the printed line."""

    def __init__(self, read: Callable[[], dict[str, float]], what: str) -> None:
        self._read = read
        self.what = what  # whose CPU, for the printed line
        self._start: dict[str, float] = {}

    @classmethod
    def of_stack(cls, launcher_pid: int, data_dir: Path) -> CpuMeter:
        """``lore up``'s processes: every service and store under the launcher (itself counted as
        ``stores``) and the embedded Postgres of ``data_dir`` (``LORE_DATA_DIR``), which detaches."""
        return cls._with_postgres(lambda: service_cpu_seconds(launcher_pid), data_dir, "all service processes")

    @classmethod
    def of_children(cls, data_dir: Path) -> CpuMeter:
        """The processes this benchmark started itself (services, Redis; this process left out)
        and the embedded Postgres of ``data_dir`` (its cluster in ``data_dir / "postgres"``)."""
        pid = os.getpid()
        return cls._with_postgres(
            lambda: service_cpu_seconds(pid, include_root=False), data_dir, "all service processes"
        )

    @classmethod
    def of_this_process(cls) -> CpuMeter:
        """An in-process benchmark has no services: this process's CPU (``time.process_time``)."""
        return cls(lambda: {"this process": time.process_time()}, "in-process, no services: this process")

    @classmethod
    def _with_postgres(cls, read: Callable[[], dict[str, float]], data_dir: Path, what: str) -> CpuMeter:
        postgres = postmaster_of(data_dir)
        if postgres is None:
            return cls(read, f"{what}, its embedded Postgres not found: not counted")

        def with_postgres() -> dict[str, float]:
            used = read()
            used["stores"] = used.get("stores", 0.0) + sum(service_cpu_seconds(postgres).values())
            return used

        return cls(with_postgres, what)

    def start(self) -> None:
        self._start = self._read()

    def reading(self) -> dict[str, float]:
        """CPU seconds used so far by each process name (not from ``start()``): for a series."""
        return self._read()

    def stop(self, calls: int, *, idle: bool = True) -> CpuUse:
        span: list[tuple[dict[str, float], str]] = []
        for seconds in self._settling(idle, span):
            time.sleep(seconds)
        return self._use(*span[0], calls)

    async def stop_async(self, calls: int, *, idle: bool = True) -> CpuUse:
        span: list[tuple[dict[str, float], str]] = []
        for seconds in self._settling(idle, span):
            await asyncio.sleep(seconds)
        return self._use(*span[0], calls)

    def _settling(self, idle: bool, span: list[tuple[dict[str, float], str]]) -> Iterator[float]:
        """Yields the seconds to sleep; appends to ``span`` the reading that ends it, and its name."""
        end, ended = self._read(), time.monotonic()
        if not idle:
            span.append((end, f"{self.what}, over the timed phase"))
            return
        last, quiet, busy_until = end, 0, ended
        while (now := time.monotonic()) - ended < IDLE_TIMEOUT_S:
            yield IDLE_WINDOW_S
            reading, window = self._read(), time.monotonic() - now
            if sum(reading.values()) - sum(last.values()) < IDLE_CORES * window:
                quiet += 1
                if quiet == 2:
                    after = f"until idle again {busy_until - ended:.1f} s after its end"
                    span.append((end, f"{self.what}, from the phase's start {after}"))
                    return
            else:
                quiet, end, busy_until = 0, reading, time.monotonic()
            last = reading
        span.append((end, f"{self.what}, from the phase's start; not idle {IDLE_TIMEOUT_S:.0f} s after its end"))

    def _use(self, end: dict[str, float], span: str, calls: int) -> CpuUse:
        spent = {name: end[name] - self._start.get(name, 0.0) for name in end}
        return CpuUse(spent, calls, span)


def _descendants(root_pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
        children.setdefault(ppid, []).append(pid)
    found, pending = [], [root_pid]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending += children.get(pid, [])
    return found


def _status_kib(pid: int, field: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith(f"{field}:")), 0)
