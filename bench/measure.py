"""What every benchmark measures the same way: latency percentiles, resident memory, and the CPU
each service spends per call (``CpuMeter``, printed by ``CpuUse.line`` in one format everywhere)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
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


def service_cpu_seconds(root_pid: int, *, include_root: bool = True) -> dict[str, float]:
    """CPU seconds (user + system, with the reaped children's) used so far by each Lore service
    under ``root_pid``, by name (``memory``, ``gateway``…, from ``-m <name>_svc`` on its command
    line; everything else, the embedded stores, as ``stores``): what a call costs each process, as
    opposed to how long the caller waited. ``include_root=False`` leaves the root out (a benchmark
    that starts the services itself is not one of them)."""
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
