"""What every benchmark measures the same way: latency percentiles and resident memory."""

from __future__ import annotations

import os
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


def service_cpu_seconds(root_pid: int) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each Lore service under ``root_pid``, by name
    (``memory``, ``gateway``…, from ``-m <name>_svc`` on its command line; everything else,
    the embedded stores, as ``stores``): what a call costs each process, as opposed to how long
    the caller waited."""
    ticks = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = {}
    for pid in _descendants(root_pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        names = [part.decode().removesuffix("_svc") for part in command if part.endswith(b"_svc")]
        name = names[0] if names else "stores"  # embedded Postgres and Redis, the launcher
        used[name] = used.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return used


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
