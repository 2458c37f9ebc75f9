"""``lore up``: the whole system on one machine, until Ctrl-C or SIGTERM.

Steps: back ends (configured or embedded) → migrations → the development key (and the
service token the gRPC services ask of every caller, lore_cli/service_token.py) → the
five services as child processes (logs in ``LORE_DATA_DIR/logs``) → wait until the
gateway's ``/v1/status`` is 200 → print where to go. Each gRPC service serves its Prometheus
page on its own loopback port (``LORE_<SVC>_METRICS_ADDR``; the defaults, or a free port when a
default is taken or the port is 0, so the banner names the port each page is served on; an empty
value turns one off). A service that exits before the stack is first ready fails ``lore up`` with
its log tail; one that dies later is started again with a backoff, and so is an embedded store
(lore_cli/supervisor.py). ``LORE_DATA_DIR`` is its owner's: 0711, everything below it owner-only,
tightened on every start, and ``lore up`` and its children run with an owner-only umask
(lore_cli/private_data.py). On Ctrl-C/SIGTERM every child gets SIGTERM (the gateway first,
so no request meets a stopped service), then the embedded back ends stop. Data stays in
``LORE_DATA_DIR``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from gateway_svc.adapters.postgres_key_admin import ensure_development_key
from lore_runtime.settings import LOCAL_METRICS_ADDRESSES

from lore_cli.backends import Backends, DevStackMissing, start_backends
from lore_cli.dev_key import DevKeyError, resolve_dev_key
from lore_cli.health import gateway_url, wait_until_serving
from lore_cli.migrate import apply_all
from lore_cli.private_data import OWNER_ONLY, secure_data_dir
from lore_cli.service_token import ensure_local_token
from lore_cli.supervisor import keep_running, keep_stores_running

# Start order; the gateway is stopped first, then the others together.
SERVICES = ("memory", "observations", "assembler", "agent", "gateway")
READY_TIMEOUT_SECONDS = 180.0
STOP_TIMEOUT_SECONDS = 30.0


@dataclass
class Child:
    name: str
    process: asyncio.subprocess.Process
    log_path: Path
    exited: asyncio.Task[int] = field(init=False)

    def __post_init__(self) -> None:
        self.exited = asyncio.ensure_future(self.process.wait())

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def child_environment(environ: Mapping[str, str], backends: Backends, data_dir: Path) -> dict[str, str]:
    env = dict(environ)
    env.update(
        LORE_DATABASE_URL=backends.app_database_url, LORE_REDIS_URL=backends.redis_url, LORE_DATA_DIR=str(data_dir)
    )
    if backends.qdrant_url:
        env["LORE_QDRANT_URL"] = backends.qdrant_url
    env.pop("LORE_MIGRATIONS_DATABASE_URL", None)
    if not env.get("LORE_SERVICE_TOKEN"):  # the credential of the services' loopback ports (service_token.py)
        env["LORE_SERVICE_TOKEN"] = ensure_local_token(data_dir)
    for service, address in LOCAL_METRICS_ADDRESSES.items():
        variable = f"LORE_{service.upper()}_METRICS_ADDR"
        if variable not in env:
            env[variable] = address if _bindable(address) else f"127.0.0.1:{_free_port()}"
        elif env[variable].endswith(":0"):  # "any port": chosen here, so the banner names the one served
            host = env[variable].rpartition(":")[0]
            env[variable] = f"{host}:{_free_port(host)}"
    return env


def _free_port(host: str = "127.0.0.1") -> int:
    """A port the kernel picks (not lore_devstack's: `lore up` against configured servers runs without it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _bindable(address: str) -> bool:
    host, _, port = address.rpartition(":")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, int(port)))
        except OSError:
            return False
    return True


def metrics_pages(env: Mapping[str, str]) -> str:
    """The banner's lines naming each service's /metrics page."""
    lines = []
    for service in LOCAL_METRICS_ADDRESSES:
        address = env.get(f"LORE_{service.upper()}_METRICS_ADDR")
        if address:
            lines.append(f"  metrics      {service:<13}http://{address}/metrics\n")
    return "".join(lines)


async def start_child(name: str, env: Mapping[str, str], logs: Path) -> Child:
    log_path = logs / f"{name}.log"
    with open(log_path, "ab") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            f"{name}_svc",
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
            # Own process group: the terminal's Ctrl-C reaches only us; we stop children in order.
            start_new_session=True,
        )
    return Child(name, process, log_path)


async def stop_children(children: list[Child]) -> None:
    """SIGTERM the gateway first (no new request reaches a stopping service), then the rest together."""
    front = [child for child in children if child.name == "gateway"]
    back = [child for child in children if child.name != "gateway"]
    for tier in (front, back):
        running = [child for child in tier if child.process.returncode is None]
        for child in running:
            with contextlib.suppress(ProcessLookupError):
                child.process.terminate()
        if running:
            await asyncio.wait([child.exited for child in running], timeout=STOP_TIMEOUT_SECONDS)
    for child in children:
        if child.process.returncode is None:
            child.process.kill()
            await child.exited


def _print(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


async def run(environ: Mapping[str, str]) -> int:
    started = time.monotonic()
    data_dir = Path(environ.get("LORE_DATA_DIR") or ".lore").resolve()
    os.umask(OWNER_ONLY)  # everything the stack writes (logs, stores, the services' files) is the owner's
    secure_data_dir(data_dir)
    logs = data_dir / "logs"
    logs.mkdir(exist_ok=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        api_key = resolve_dev_key(environ, data_dir)
    except DevKeyError as error:
        _print(f"lore up: {error}")
        return 2
    children: list[Child] = []
    async with AsyncExitStack() as stack:
        try:
            backends = await start_backends(environ, data_dir, stack)
        except DevStackMissing as error:
            _print(f"lore up: {error}")
            return 2
        if backends.embedded:
            _print(f"lore up: embedded {', '.join(backends.embedded)} under {data_dir}")
        await apply_all(backends.owner_database_url, quiet=True)
        await ensure_development_key(backends.owner_database_url, api_key)
        env = child_environment(environ, backends, data_dir)
        try:
            for name in SERVICES:
                children.append(await start_child(name, env, logs))
            url = gateway_url(environ)
            ready = asyncio.ensure_future(wait_until_serving(url, READY_TIMEOUT_SECONDS))
            watched = [ready, asyncio.ensure_future(stop.wait()), *(child.exited for child in children)]
            await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            if not ready.done() or ready.result()[0] != 200:
                ready.cancel()
                return _report_failure(children, stop.is_set(), url)
            _print(
                f"\nLore is up in {time.monotonic() - started:.1f} s.\n"
                f"  gateway      {url}\n"
                f"  API docs     {url}/docs\n"
                f"  browser      {url}/ui/   (memories, beliefs, sessions; sign in with the key)\n"
                f"  status       {url}/v1/status\n"
                f"  dev API key  {api_key}   (org dev; Authorization: Bearer <key>)\n"
                f"  metrics      {'gateway':<13}{url}/metrics\n"
                f"{metrics_pages(env)}"
                f"  logs         {logs}\n"
                "Press Ctrl-C to stop.\n"
            )
            stores = asyncio.ensure_future(keep_stores_running(backends.stores, stop))
            try:
                await keep_running(children, lambda name: start_child(name, env, logs), stop)
            finally:
                await _finish(stores)
            _print("lore up: stopping")
            return 0
        finally:
            await stop_children(children)


async def _finish(task: asyncio.Future[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def _report_failure(children: list[Child], interrupted: bool, url: str) -> int:
    if interrupted:
        _print("lore up: interrupted")
        return 0
    for child in children:
        if child.process.returncode is not None:
            _print(
                f"lore up: {child.name} exited with status {child.process.returncode}; its log ends with:\n"
                f"{child.tail()}"
            )
            return 1
    _print(f"lore up: {url}/v1/status did not report every service SERVING within {READY_TIMEOUT_SECONDS:.0f} s")
    return 1
