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


def tree_rss_mib(root_pid: int) -> float:
    """Resident memory of a process and all its descendants."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
        children.setdefault(ppid, []).append(pid)
    total_kib, pending = 0, [root_pid]
    while pending:
        pid = pending.pop()
        pending += children.get(pid, [])
        total_kib += _status_kib(pid, "VmRSS")
    return total_kib / 1024


def _status_kib(pid: int, field: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith(f"{field}:")), 0)
