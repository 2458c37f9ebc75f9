"""The embedded engine's optimisation, and a purge's compaction, off the memory service's process.

qdrant-edge keeps the interpreter for the whole of ``EdgeShard.optimize()`` (building HNSW after
30k new points: 15 s on an idle two-core machine, minutes on a busy one), so an optimisation in
the service's process answers no call meanwhile. Here a child process optimises a **copy**:

0. No run when there is nothing to optimise: no point added, replaced or deleted since the last
   run and the shard's segments and indexed vectors as that run left them
   (``EdgeShardStore.nothing_to_optimize``; the uses recorded on memories are payload writes,
   which the engine makes in place).
1. ``snapshot``: the live shard is flushed and its files copied to ``shard.optimizing/`` while
   writes go on (``edge_snapshot.precopy``); then new writes wait (reads go on) while the files
   written meanwhile are copied again (``catch_up``), and from then on every write to the live
   shard is also journaled, in the order applied. Writes resume. Nothing is flushed with writes
   held (a flush keeps the interpreter): the copy is what a killed process would leave, which the
   engine recovers on load.
2. ``optimizing``: a child process (``python -m memory_svc.adapters.edge_maintenance``, niced)
   loads the copy and optimises it. The service answers every call meanwhile. For a purge
   (``compact``) the child first rewrites the copy: a fresh shard holding only its points (none
   of the deleted ones, in its segments or its write-ahead log) is built beside it
   (``shard.compacting/``) and renamed over it; then it is optimised.
3. ``catching-up``: the journal is sent to the child (in messages of at most ``CHUNK_POINTS``
   points, pickled in a worker thread), which applies it to the copy, in rounds, while writes go
   on, until at most ``TAIL`` writes remain (or ``ROUNDS`` rounds were sent); the child flushes
   the copy and the service the live shard, then reads the copy's files into the page cache and
   writes the live shard's back, writes going on.
4. ``swap``: writes wait again; the child is no longer niced (where allowed); the rest of the
   journal is applied; the child flushes the copy and exits without closing it (a close would
   flush it again and evict its pages from the page cache). Then every call waits while the
   live shard is closed, the directories swap (``edge_shard_swap.swap_optimized``: marker,
   renames) and the copy opens in its place: the only pause of every call, as long as closing
   one shard and opening another takes (both keep the interpreter). Writes resume; then the
   replaced shard is deleted, before the run ends.

Nothing is lost and a crash at any step leaves a consistent store: until the marker is written
the live shard is untouched and holds every write (the copy only received them a second time), so
a failure, a killed child or a crash discards the copy; from the marker on the copy is complete,
and an interrupted swap is completed before the shard is next opened. When the child finds
nothing to optimise, the copy is dropped and nothing is swapped (a compaction always swaps).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import pickle
import shutil
import signal
import struct
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from memory_svc.adapters.edge_shard_swap import COMPACTING, OPTIMIZING
from memory_svc.adapters.edge_snapshot import precopy
from memory_svc.adapters.qdrant_edge_store import (
    SHARD_DIR,
    EdgeShardStore,
    Upsert,
    Write,
    operation,
    rewrite_live_points,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

# Writes left in the journal at which the catching up stops and the rest goes with writes held.
TAIL = 256
# Catching-up rounds at most: writes that keep arriving faster than the child applies them do not
# keep a run from ending (the rest then goes with writes held, which only writes wait for).
ROUNDS = 8
# Writes per message to the child, and points: a message is pickled (in a worker thread) while the
# event loop waits for the interpreter between objects, and 512 upserts of 50 points took 0.9 s.
CHUNK = 512
CHUNK_POINTS = 1024
_HEADER = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class Step:
    """Where a run is (``snapshot``, ``optimizing``, ``optimized``, ``catching-up``, ``swap``,
    ``done``) and the child's process id once there is one."""

    name: str
    child_pid: int | None = None


Observer = Callable[[Step], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class OptimizeRun:
    """One run: whether the child changed anything (else nothing was swapped), the seconds it took,
    the seconds writes waited (snapshot + tail) and the seconds every call waited (the swap); for a
    compaction the points the swapped-in shard holds (``kept``)."""

    label: str
    optimized: bool
    seconds: float
    writes_held_seconds: float
    calls_held_seconds: float
    journaled: int
    kept: int | None = None
    snapshot_held_seconds: float = 0.0  # of ``writes_held_seconds``, the snapshot's


class ChildFailed(RuntimeError):
    """The maintenance child exited or answered out of turn; the copy is discarded."""


class _Child:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, shard_dir: os.PathLike[str], niceness: int, *, compact: bool) -> _Child:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            __name__,
            os.fspath(shard_dir),
            str(niceness),
            *(["compact"] if compact else []),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        return cls(process)

    @property
    def pid(self) -> int:
        return self.process.pid

    async def send(self, message: tuple[Any, ...]) -> None:
        assert self.process.stdin is not None
        data = await asyncio.to_thread(pickle.dumps, message, pickle.HIGHEST_PROTOCOL)
        try:
            self.process.stdin.write(_HEADER.pack(len(data)) + data)
            await self.process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            raise ChildFailed(f"the maintenance child is gone: {error}") from error

    async def receive(self, expected: str) -> tuple[Any, ...]:
        assert self.process.stdout is not None
        try:
            header = await self.process.stdout.readexactly(_HEADER.size)
            message = pickle.loads(await self.process.stdout.readexactly(_HEADER.unpack(header)[0]))
        except asyncio.IncompleteReadError as error:
            code = await self.process.wait()
            raise ChildFailed(f"the maintenance child exited with {code} before {expected!r}") from error
        if message[0] != expected:
            raise ChildFailed(f"the maintenance child answered {message[0]!r}, not {expected!r}")
        return message

    async def apply(self, writes: list[Write]) -> None:
        for chunk in _chunks(writes):
            await self.send(("apply", chunk))
            await self.receive("applied")

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        await self.process.wait()


def _chunks(writes: list[Write]) -> list[list[Write]]:
    """``writes`` in order, at most ``CHUNK`` writes and (but for a single large upsert)
    ``CHUNK_POINTS`` points a chunk."""
    chunks: list[list[Write]] = []
    points = 0
    for write in writes:
        weight = len(write.points) if isinstance(write, Upsert) else 1
        if not chunks or len(chunks[-1]) >= CHUNK or points + weight > CHUNK_POINTS:
            chunks.append([])
            points = 0
        chunks[-1].append(write)
        points += weight
    return chunks


async def optimize_in_child(
    store: EdgeShardStore,
    *,
    compact: bool = False,
    niceness: int = 10,
    tail: int = TAIL,
    observe: Observer | None = None,
) -> OptimizeRun | None:
    """Optimise ``store``'s shard in a child process and swap the result in (see the module's
    docstring); with ``compact`` (a purge) the child first rewrites the copy without its deleted
    points, and the run always swaps. None when nothing was written since the last run and there
    is nothing to compact. Raises on a failure, the live shard as it was (every write in it)."""
    if not compact and (store.maintained_writes == store.writes or await store.nothing_to_optimize()):
        store.maintained_writes = store.writes
        return None
    assert store.journal_length() == 0, "one optimisation of a store at a time"
    began = time.perf_counter()
    copy = store.path / OPTIMIZING
    child: _Child | None = None
    held = 0.0

    async def step(name: str) -> None:
        if observe is not None:
            await observe(Step(name, None if child is None else child.pid))

    try:
        await step("snapshot")
        # Writes go on: the flush keeps the interpreter as long as it writes, but no write waits for
        # it, and the swap's close of this shard then finds only the run's writes to flush.
        await store.flush()
        manifest = await _uncancellable(asyncio.to_thread(precopy, store.path / SHARD_DIR, copy))
        held_at = time.perf_counter()
        await store.hold_writes()
        try:
            writes, point_writes = store.writes, store.point_writes
            await _uncancellable(asyncio.to_thread(store.snapshot_sync, copy, manifest))
            shape = await store.shape()
        finally:
            store.release_writes()
            held += time.perf_counter() - held_at
        snapshot_held = held
        child = await _Child.start(copy, niceness, compact=compact)
        await step("optimizing")
        (_, changed) = await child.receive("optimized")
        await step("optimized")
        if not changed and not compact:
            store.mark_maintained(writes, point_writes, shape)
            took = time.perf_counter() - began
            return OptimizeRun(store.label, False, took, held, 0.0, store.journal_length(), None, held)
        sent = 0
        await step("catching-up")
        for _ in range(ROUNDS):
            if store.journal_length() - sent <= tail:
                break
            batch = store.journal(sent)
            await child.apply(batch)
            sent += len(batch)
        # Most of the flushing done before writes wait: the copy's by the child, the live shard's
        # here (the swap closes it, and a close flushes it, with every call waiting).
        await child.send(("flush",))
        await store.flush()
        await child.receive("flushed")
        await _uncancellable(store.prepare_swap(copy))  # the tail leaves little to read or write back
        held_at = time.perf_counter()
        await store.hold_writes()
        try:
            await child.send(("hurry",))  # writes wait for it now: no longer niced, where allowed
            rest = store.journal(sent)
            await child.apply(rest)
            journaled = sent + len(rest)
            await child.send(("finish",))
            (_, kept) = await child.receive("closed")
            await child.process.wait()
            await step("swap")
            swap_at = time.perf_counter()
            shape = await _uncancellable(store.swap_in(copy))
            swapped = time.perf_counter() - swap_at
            store.mark_maintained(store.writes, store.point_writes, shape)
        finally:
            store.release_writes()
            held += time.perf_counter() - held_at
        await store.remove_replaced()  # before the run ends: a purge's erased points go with it
        await step("done")
        took = time.perf_counter() - began
        return OptimizeRun(store.label, True, took, held, swapped, journaled, kept if compact else None, snapshot_held)
    finally:
        store.stop_journal()
        if child is not None:
            await child.stop()
        for leftover in (copy, store.path / COMPACTING):
            await asyncio.to_thread(shutil.rmtree, leftover, True)


async def _uncancellable(work: Awaitable[T]) -> T:
    """Run ``work`` to its end even when the caller is cancelled (shutdown): a copy or a swap
    left half done in a worker thread would race the clean-up."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


# ---------------------------------------------------------------------------- the child


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the service that started it dies (no orphan holds the copy)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _send(out: Any, message: tuple[Any, ...]) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEADER.pack(len(data)) + data)
    out.flush()


def _receive(source: Any) -> tuple[Any, ...] | None:
    header = source.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    return pickle.loads(source.read(_HEADER.unpack(header)[0]))


def main(argv: list[str]) -> int:
    """``<shard dir> <niceness> [compact]``: (rewrite it without its deleted points,) load,
    optimise, report; then apply the journal sent on stdin (``flush`` when asked, no longer niced
    on ``hurry``) until ``finish`` (flush, report the points held, exit). Exits non-zero if the
    parent goes away first."""
    _die_with_parent()
    shard_dir, niceness, *mode = argv
    os.nice(int(niceness))
    source, out = sys.stdin.buffer, sys.stdout.buffer
    if mode == ["compact"]:
        copy = Path(shard_dir)
        rewrite_live_points(copy, copy.with_name(COMPACTING))
    shard = qe.EdgeShard.load(shard_dir, None)
    try:
        _send(out, ("optimized", bool(shard.optimize())))
        while (message := _receive(source)) is not None:
            if message[0] == "apply":
                for write in message[1]:
                    shard.update(operation(write))
                _send(out, ("applied", len(message[1])))
            elif message[0] == "flush":
                shard.flush()
                _send(out, ("flushed",))
            elif message[0] == "hurry":
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, 0, 0)
            elif message[0] == "finish":
                shard.flush()
                kept = shard.count(qe.CountRequest(exact=True))
                _send(out, ("closed", kept))
                # Flushed: exiting releases the copy without closing it, which would flush it again
                # and evict its pages from the page cache, that the service is about to read.
                os._exit(0)
        return 1
    finally:
        shard.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
