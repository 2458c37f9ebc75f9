"""``lore turns import FILE.jsonl``: historical turns into a session, through the gateway.

One JSON object per line, the proto3 JSON of a turn (``role``, ``content``, ``createdAt``, ``speaker``,
``metadata``, ``idempotencyKey``); ``role`` may also be written ``user``/``assistant``/``system``/
``tool``. Lines are sent in batches (``POST /v1/sessions/{id}/turns:import``) with a progress bar
on stderr; a line that is not a JSON object stops the run before anything is sent, naming the
line. Re-running the same file writes nothing twice: turns without an idempotency key get one
from their role, time and content on the server.

It goes through the gateway with an API key — the tenant comes from the credential, as for any
client: ``LORE_API_KEY``, else the local stack's development key (``LORE_DATA_DIR/dev-api-key``).
Without ``--session``, a new session is started for ``--user``/``--agent``/``--team`` and ended
after the import.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
from tqdm import tqdm

from lore_cli.dev_key import FILE_NAME
from lore_cli.health import gateway_url

BATCH = 200
SHORT_ROLES = {"user", "assistant", "system", "tool"}


class ImportFileError(Exception):
    """The file cannot be imported as it is; the message names the line."""


def read_turns(path: Path) -> list[dict[str, Any]]:
    turns = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                turn = json.loads(line)
            except json.JSONDecodeError as error:
                raise ImportFileError(f"{path}:{number}: not JSON ({error.msg})") from None
            if not isinstance(turn, dict):
                raise ImportFileError(f"{path}:{number}: a turn is a JSON object")
            role = turn.get("role")
            if isinstance(role, str) and role.lower() in SHORT_ROLES:
                turn["role"] = f"TURN_ROLE_{role.upper()}"
            turns.append(turn)
    return turns


def api_key(environ: Mapping[str, str]) -> str:
    if environ.get("LORE_API_KEY"):
        return environ["LORE_API_KEY"]
    stored = Path(environ.get("LORE_DATA_DIR") or ".lore") / FILE_NAME
    if stored.exists():
        return stored.read_text().strip()
    raise ImportFileError("no API key: set LORE_API_KEY (or run `lore up`, which keeps a development key)")


async def run(
    environ: Mapping[str, str],
    path: Path,
    *,
    session_id: str = "",
    scope: Mapping[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> int:
    try:
        turns = read_turns(path)
        key = api_key(environ)
    except (ImportFileError, OSError) as error:
        print(f"lore turns import: {error}", file=sys.stderr)
        return 1
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(
        base_url=gateway_url(environ), headers=headers, transport=transport, timeout=120
    ) as client:
        started = not session_id
        if started:
            response = await client.post("/v1/sessions", json={"scope": dict(scope or {})})
            if response.status_code != 200:
                return _failed(response)
            session_id = response.json()["session"]["id"]
        imported = skipped = 0
        with tqdm(total=len(turns), unit=" turns", desc="import", file=sys.stderr) as bar:
            for start in range(0, len(turns), BATCH):
                batch = turns[start : start + BATCH]
                response = await client.post(f"/v1/sessions/{session_id}/turns:import", json={"turns": batch})
                if response.status_code != 200:
                    return _failed(response, first_line=start + 1)
                imported += response.json()["imported"]
                skipped += response.json()["skipped"]
                bar.update(len(batch))
        if started:
            await client.post(f"/v1/sessions/{session_id}:end")
    print(f"imported {imported} turns ({skipped} already there) into session {session_id}")
    return 0


def _failed(response: httpx.Response, first_line: int | None = None) -> int:
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text[:500]
    where = f" (batch starting at turn {first_line})" if first_line else ""
    print(f"lore turns import: HTTP {response.status_code}{where}: {message}", file=sys.stderr)
    return 1
