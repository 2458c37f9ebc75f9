"""The local stack is its owner's, keeps its embedded stores running, and names its metrics ports.

One stack (`./lore up`, embedded Postgres, Valkey and Qdrant) in a data directory an older version
could have left: 0755, with a log file 0644. Another local account (``nobody``, switched to by a
forked probe: tests/other_account.py) then reads no file, lists no directory, logs in to no
Postgres and runs no Redis command; the gRPC and metrics ports stay reachable, which is fine.
Killing the embedded postmaster or Valkey is survived: ``lore up`` says so and starts it again.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import signal
import stat
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import psutil
import pytest
from lore_client import LoreClient, NewMemory

from tests.e2e.test_local_stack import DEV_KEY, Stack, start_stack
from tests.other_account import Targets, open_ancestors_to_traverse, under, what_another_account_can_do
from tests.polling import eventually

pytestmark = pytest.mark.e2e

SERVICES = ("memory", "observations", "assembler", "agent")


@pytest.fixture(scope="module")
def data_dir() -> Iterator[Path]:
    """A data directory as an older version left it: open to everyone, with a readable log.

    Not under pytest's base directory: every pytest session that starts on the machine makes that
    0700 again, which can take the traverse bit from the embedded Postgres' account mid-start."""
    base = Path(tempfile.mkdtemp(prefix="lore-owner-"))
    data_dir = base / ".lore"
    (data_dir / "logs").mkdir(parents=True)
    (data_dir / "logs" / "memory.log").write_text('{"message": "a line from an older start"}\n')
    for path, mode in ((data_dir, 0o755), (data_dir / "logs", 0o755), (data_dir / "logs" / "memory.log", 0o644)):
        path.chmod(mode)
    open_ancestors_to_traverse(data_dir)
    yield data_dir
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def stack(data_dir: Path) -> Iterator[Stack]:
    # "Any port" for one metrics page: the banner must name the port the page is served on.
    running = start_stack(data_dir, data_dir.parent / "lore-up-owner.log", {"LORE_MEMORY_METRICS_ADDR": "127.0.0.1:0"})
    yield running
    if running.process.poll() is None:
        running.stop()


@pytest.fixture
async def lore(stack: Stack) -> AsyncIterator[LoreClient]:
    async with LoreClient(stack.url, DEV_KEY, timeout=30, max_retries=0) as client:
        yield client


def _postmaster(data_dir: Path) -> tuple[int, str]:
    """The embedded postmaster's pid and socket, from its postmaster.pid."""
    lines = (data_dir / "postgres" / "postmaster.pid").read_text().splitlines()
    return int(lines[0]), f"{lines[4]}/.s.PGSQL.{lines[3]}"


def _valkey_port(data_dir: Path) -> int:
    config = (data_dir / "redis" / "valkey.conf").read_text()
    return int(re.search(r"^port (\d+)$", config, re.MULTILINE).group(1))


def _valkey(stack: Stack) -> psutil.Process:
    children = psutil.Process(stack.process.pid).children()
    return next(child for child in children if child.name().startswith("valkey"))


async def test_lore_up_names_the_metrics_port_it_bound(stack: Stack) -> None:
    banner = await eventually(lambda: "Press Ctrl-C" in stack.log.read_text() and stack.log.read_text(), timeout=30)
    pages = dict(re.findall(r"metrics\s+(\w+)\s+(http://\S+/metrics)", banner))
    assert set(pages) == {"gateway", *SERVICES}, banner
    assert not [url for url in pages.values() if url.endswith(":0/metrics")], banner
    async with httpx.AsyncClient(timeout=10) as http:
        for service in SERVICES:
            answer = await http.get(pages[service])
            assert answer.status_code == 200 and "# HELP" in answer.text, (service, answer.status_code)


async def test_another_local_account_reads_nothing_and_uses_no_store(
    stack: Stack, data_dir: Path, lore: LoreClient
) -> None:
    await lore.remember(NewMemory(content="Mira keeps her diary in Welsh.", memory_type="fact", scope="u-mira"))
    headers = {"Authorization": f"Bearer {DEV_KEY}"}
    async with httpx.AsyncClient(base_url=stack.url, headers=headers, timeout=60) as http:
        session = (await http.post("/v1/sessions", json={"scope": {"userId": "u-mira", "agentId": "aria"}})).json()
        turn = {"turn": {"role": "TURN_ROLE_USER", "content": "My diary is private.", "idempotencyKey": "t1"}}
        assert (await http.post(f"/v1/sessions/{session['session']['id']}/turns", json=turn)).status_code == 200

    listed = under(data_dir)
    _, postgres_socket = _postmaster(data_dir)
    targets = Targets(
        files=listed.files,
        dirs=listed.dirs,
        postgres_sockets=[*listed.postgres_sockets, postgres_socket],
        redis_ports=[("127.0.0.1", _valkey_port(data_dir))],
    )
    assert any("/qdrant/" in path for path in targets.files) and any(path.endswith(".log") for path in targets.files)
    assert await asyncio.to_thread(what_another_account_can_do, targets) == []
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o711
    for store in ("postgres", "redis", "qdrant", "logs"):
        assert stat.S_IMODE((data_dir / store).stat().st_mode) == 0o700, store


async def _answers(http: httpx.AsyncClient) -> bool:
    """An authenticated read (the API key lookup is a Postgres query) and a turn (Redis) both succeed."""
    memories = await http.get("/v1/memories", params={"userId": "u-restart"})
    return memories.status_code == 200 and (await http.get("/readyz")).status_code == 200


@pytest.mark.parametrize("store", ["postgres", "valkey"])
async def test_a_killed_embedded_store_is_started_again_and_the_stack_answers(
    stack: Stack, data_dir: Path, store: str
) -> None:
    killed = psutil.Process(_postmaster(data_dir)[0]) if store == "postgres" else _valkey(stack)
    killed.send_signal(signal.SIGKILL)
    announced = f"lore up: the embedded {store} died; starting it again"
    await eventually(lambda: announced in stack.log.read_text(), timeout=30, what=f"lore up did not notice {store}")
    again = f"lore up: the embedded {store} is running again"
    await eventually(lambda: again in stack.log.read_text(), timeout=90, what=f"{store} was not started again")
    headers = {"Authorization": f"Bearer {DEV_KEY}"}
    async with httpx.AsyncClient(base_url=stack.url, headers=headers, timeout=30) as http:
        await eventually(lambda: _answers(http), timeout=60, what=f"the stack did not answer again after {store}")
    assert stack.process.poll() is None
