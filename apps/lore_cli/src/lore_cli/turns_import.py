"""``lore turns import FILE.jsonl``: historical turns into a session, through the gateway.

One JSON object per line, the proto3 JSON of a turn (``role``, ``content``, ``createdAt``, ``speaker``,
``metadata``, ``idempotencyKey``); ``role`` may also be written ``user``/``assistant``/``system``/
``tool``. Lines are sent in batches (``POST /v1/sessions/{id}/turns:import``, at most 200 turns and
about 1 MiB a call) with a progress bar on stderr; a line that is not a JSON object stops the run
before anything is sent, naming the line.

Sending a batch again writes nothing twice: a turn without an idempotency key gets one on the
server from its role, time and content, and a line without a time (the server would stamp it
"now", a new time on every call) is given a key here, from its line number, role and words. So
a batch whose answer was lost is sent again, and a rerun of the same file skips what is there.

What happens when a call fails (``Outcome`` and docs/decisions.md, "What `lore turns import`
retries, and what stops it"):

- no answer (connection refused or reset, a timeout), 408, 429, 502, 503, 504, or a 500 that says
  when to come back (``Retry-After``): the same batch again, after ``Retry-After`` if given, else
  an exponential backoff with full jitter, at most ``MAX_RETRIES`` times a call; then the run
  gives up (exit 3);
- a turn refused (400 or 409 naming ``turns[i]``): its line is printed as ``FILE:LINE`` with the
  gateway's reason; by default the turns before it in the batch are imported and the run stops
  (exit 1) naming the first line not imported; with ``--skip-refused`` the line is left out and
  the run goes on, listing every refused line at the end (exit 1 if any was);
- any other refusal (a bad key, an unknown or ended session): the run stops (exit 1).

It goes through the gateway with an API key — the tenant comes from the credential, as for any
client: ``LORE_API_KEY``, else the local stack's development key (``LORE_DATA_DIR/dev-api-key``).
Without ``--session``, a new session is started for ``--user``/``--agent``/``--team`` and ended
after the import.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import sys
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from lore_client.errors import LoreApiError
from tqdm import tqdm

from lore_cli.dev_key import FILE_NAME
from lore_cli.health import gateway_url

BATCH = 200
BATCH_BYTES = 1024 * 1024  # half the gateway's default body limit (LORE_MAX_BODY_BYTES)
SHORT_ROLES = {"user", "assistant", "system", "tool"}

EXIT_OK = 0
EXIT_REFUSED = 1  # the file, the key or the gateway refused something: not every line was imported
EXIT_GAVE_UP = 3  # no usable answer after every retry (2 is argparse's usage error)

# A retry waits Retry-After when the answer gives one, else a random time up to
# BACKOFF_BASE * 2**n seconds (at most BACKOFF_CAP); a Retry-After above MAX_RETRY_AFTER is not waited for.
MAX_RETRIES = 8
BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0
MAX_RETRY_AFTER = 300.0
RETRIED_STATUSES = frozenset({408, 429, 502, 503, 504})
REFUSED_TURN_STATUSES = frozenset({400, 409})
_TURN_FIELD = re.compile(r"^turns\[(\d+)\]")

Sleep = Callable[[float], Awaitable[None]]
EPILOG = """\
exit status:
  0  every line is in the session (imported now or already there)
  1  something was refused: a malformed line, a turn the gateway refused (FILE:LINE and why,
     on stderr), a bad API key, an unknown or ended session; the turns before the first line
     not imported are in, and stderr says how to go on: the same file into the same
     --session (nothing is written twice), or --from-line N
  2  wrong arguments
  3  gave up: the gateway did not answer, or kept answering 408/429/502/503/504, after 8
     retries with backoff, or answered a 500 without Retry-After (not retried); the first
     line not imported is named: run the same command again later

No answer, 408, 429, 502, 503, 504 and a 500 with Retry-After are retried (after Retry-After,
else exponential backoff with jitter); a batch sent again writes nothing twice.
"""


class ImportFileError(Exception):
    """The file cannot be imported as it is; the message names the line."""


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    turn: dict[str, Any]


def read_turns(path: Path) -> list[Line]:
    lines = []
    with path.open(encoding="utf-8") as text:
        for number, line in enumerate(text, start=1):
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
            if not turn.get("createdAt") and not turn.get("idempotencyKey"):
                turn["idempotencyKey"] = _line_key(number, turn)
            lines.append(Line(number, turn))
    return lines


def _line_key(number: int, turn: dict[str, Any]) -> str:
    """A line without a time: the server would key it by "now", so each send would be a new turn."""
    words = json.dumps([turn.get("role"), turn.get("content")], ensure_ascii=False)
    return f"line:{number}:{hashlib.sha256(words.encode()).hexdigest()[:32]}"


def api_key(environ: Mapping[str, str]) -> str:
    if environ.get("LORE_API_KEY"):
        return environ["LORE_API_KEY"]
    stored = Path(environ.get("LORE_DATA_DIR") or ".lore") / FILE_NAME
    if stored.exists():
        return stored.read_text().strip()
    raise ImportFileError("no API key: set LORE_API_KEY (or run `lore up`, which keeps a development key)")


def batches(lines: list[Line]) -> list[list[Line]]:
    """At most ``BATCH`` turns and about ``BATCH_BYTES`` of JSON each. A user's turn is not cut
    from the assistant's turn just before it: the server reads the pair together (a bare answer
    to a question for a password is redacted) and keys the turn by the words it keeps."""
    cut: list[list[Line]] = []
    start = 0
    while start < len(lines):
        end, size = start, 0
        while end < len(lines) and end - start < BATCH:
            size += len(json.dumps(lines[end].turn, ensure_ascii=False).encode())
            if size > BATCH_BYTES and end > start:
                break
            end += 1
        if end < len(lines) and end - start > 1 and _answers(lines[end - 1], lines[end]):
            end -= 1
        cut.append(lines[start:end])
        start = end
    return cut


def _answers(before: Line, turn: Line) -> bool:
    return before.turn.get("role") == "TURN_ROLE_ASSISTANT" and turn.turn.get("role") == "TURN_ROLE_USER"


class GaveUp(Exception):
    """No usable answer after every retry."""


@dataclass
class Retrying:
    """The retry rule of one call (see the module's docstring); ``sleep`` and ``jitter`` are
    injected so tests do not wait."""

    sleep: Sleep
    jitter: Callable[[], float]
    report: Callable[[str], None]

    async def send(self, client: httpx.AsyncClient, what: str, path: str, body: dict[str, Any]) -> httpx.Response:
        """The answer to ``POST path``: a success or a refusal (4xx) not worth repeating; raises
        ``GaveUp`` once ``MAX_RETRIES`` repeats did not get one, or at a 5xx not worth repeating
        (a 500 without ``Retry-After``: the gateway's internal error, which it never marks retryable)."""
        for attempt in range(MAX_RETRIES + 1):
            try:
                response = await client.post(path, json=body)
            except httpx.TransportError as error:
                failure, hint = f"no answer ({LoreApiError.from_transport(error).message})", None
            else:
                hint = LoreApiError.from_response(response).retry_after if not response.is_success else None
                if not _retried(response, hint):
                    if response.status_code >= 500:
                        raise GaveUp(f"{what}: HTTP {response.status_code}: {_message(response)}; not retried")
                    return response
                failure = f"HTTP {response.status_code}: {_message(response)}"
            if attempt == MAX_RETRIES:
                raise GaveUp(f"{what}: {failure}, after {MAX_RETRIES} retries")
            if hint is not None and hint > MAX_RETRY_AFTER:
                raise GaveUp(f"{what}: {failure}; Retry-After {hint:g} s is longer than {MAX_RETRY_AFTER:g} s")
            wait = hint if hint is not None else self.jitter() * min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt)
            self.report(f"{what}: {failure}; retry {attempt + 1}/{MAX_RETRIES} in {wait:.1f} s")
            await self.sleep(wait)
        raise AssertionError("unreachable")


def _retried(response: httpx.Response, retry_after: float | None) -> bool:
    status = response.status_code
    return status in RETRIED_STATUSES or (status == 500 and retry_after is not None)


def _message(response: httpx.Response) -> str:
    error = LoreApiError.from_response(response)
    return f"{error.message} ({error.code})" if error.code else error.message


@dataclass
class Tally:
    imported: int = 0
    skipped: int = 0
    refused: list[str] = field(default_factory=list)
    at: int | None = None  # the first line of the batch being sent


async def run(
    environ: Mapping[str, str],
    path: Path,
    *,
    session_id: str = "",
    scope: Mapping[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    from_line: int = 1,
    skip_refused: bool = False,
    timeout: float = 120.0,
    sleep: Sleep = asyncio.sleep,
    jitter: Callable[[], float] = random.random,
) -> int:
    """``sleep`` and ``jitter`` (a number in [0, 1)) are the backoff's; tests inject them."""
    try:
        lines = read_turns(path)
        key = api_key(environ)
    except (ImportFileError, OSError) as error:
        print(f"lore turns import: {error}", file=sys.stderr)
        return EXIT_REFUSED
    todo = [line for line in lines if line.number >= from_line]
    before = [line for line in lines if line.number < from_line]
    if todo and before and _answers(before[-1], todo[0]):
        todo.insert(0, before[-1])  # sent again (nothing is written twice) so the pair is read together
    headers = {"Authorization": f"Bearer {key}"}
    tally = Tally()
    async with httpx.AsyncClient(
        base_url=gateway_url(environ), headers=headers, transport=transport, timeout=timeout
    ) as client:
        retrying = Retrying(sleep, jitter, lambda text: tqdm.write(f"lore turns import: {text}", file=sys.stderr))
        try:
            started = not session_id
            if started:
                body = {"scope": dict(scope or {}), "requestId": f"lore-turns-import-{uuid.uuid4()}"}
                response = await retrying.send(client, "starting the session", "/v1/sessions", body)
                if response.status_code != 200:
                    return _refused(response, "starting the session")
                session_id = response.json()["session"]["id"]
            # Drawn once the session is there: the bar's clock times the import alone (bench/mixed_load.py).
            with tqdm(total=len(todo), unit=" turns", desc="import", file=sys.stderr) as bar:
                for batch in batches(todo):
                    tally.at = batch[0].number
                    stopped = await _import(client, retrying, path, session_id, batch, tally, bar, skip_refused)
                    if stopped is not None:
                        bar.close()
                        _stopped(tally, stopped, path, session_id)
                        return EXIT_REFUSED
            tally.at = None
            if started:
                ended = await retrying.send(client, "ending the session", f"/v1/sessions/{session_id}:end", {})
                if ended.status_code != 200:
                    _refused(ended, "ending the session")
        except GaveUp as error:
            print(f"lore turns import: gave up: {error}", file=sys.stderr)
            _stopped(tally, tally.at, path, session_id)
            return EXIT_GAVE_UP
    print(f"imported {_turns(tally.imported)} ({tally.skipped} already there) into session {session_id}")
    _list_refused(tally)
    return EXIT_REFUSED if tally.refused else EXIT_OK


def _turns(count: int) -> str:
    return "1 turn" if count == 1 else f"{count} turns"


def _list_refused(tally: Tally) -> None:
    if tally.refused:
        lines = "1 line" if len(tally.refused) == 1 else f"{len(tally.refused)} lines"
        print(f"lore turns import: {lines} refused and not imported:", file=sys.stderr)
        for refusal in tally.refused:
            print(f"  {refusal}", file=sys.stderr)


async def _import(
    client: httpx.AsyncClient,
    retrying: Retrying,
    path: Path,
    session_id: str,
    batch: list[Line],
    tally: Tally,
    bar: tqdm,
    skip_refused: bool,
) -> int | None:
    """Sends ``batch`` until it is in; a refused turn is left out (``skip_refused``) or ends the
    batch: then the number of the first line not imported is returned."""
    url = f"/v1/sessions/{session_id}/turns:import"
    while batch:
        first, last = batch[0].number, batch[-1].number
        what = f"line {first}" if first == last else f"lines {first}-{last}"
        response = await retrying.send(client, what, url, {"turns": [line.turn for line in batch]})
        if response.status_code == 200:
            answer = response.json()
            tally.imported += answer.get("imported", 0)
            tally.skipped += answer.get("skipped", 0)
            bar.update(len(batch))
            return None
        index = _refused_turn(response, len(batch))
        if index is None:
            _refused(response, what)
            return batch[0].number
        refusal = f"{path}:{batch[index].number}: {_turn_message(response, index)}"
        if not skip_refused:
            print(f"lore turns import: {refusal}", file=sys.stderr)
            if index and await _import(client, retrying, path, session_id, batch[:index], tally, bar, False):
                return batch[0].number
            return batch[index].number
        tally.refused.append(refusal)
        bar.update(1)
        batch = batch[:index] + batch[index + 1 :]
    return None


def _refused_turn(response: httpx.Response, size: int) -> int | None:
    """The index of the turn a refusal names (``turns[3].content``), if it names one."""
    if response.status_code not in REFUSED_TURN_STATUSES:
        return None
    named = _TURN_FIELD.match(LoreApiError.from_response(response).field)
    if named is None or int(named.group(1)) >= size:
        return None
    return int(named.group(1))


def _turn_message(response: httpx.Response, index: int) -> str:
    """The gateway's reason, with the batch's ``turns[i]`` written as the line's ``turn``."""
    error = LoreApiError.from_response(response)
    reason = f" [{error.reason}]" if error.reason and error.reason != error.code else ""
    return f"{error.message.replace(f'turns[{index}]', 'turn')} (HTTP {response.status_code} {error.code}){reason}"


def _stopped(tally: Tally, first_line: int | None, path: Path, session_id: str) -> None:
    """What is in and how to go on. A session the run started is left open: a turn's key is the
    session's, so the rest goes into that session (``--session``), not a new one."""
    _list_refused(tally)
    if not session_id:
        print("lore turns import: no session was started; nothing was imported", file=sys.stderr)
        return
    done = f"{_turns(tally.imported)} imported ({tally.skipped} already there) into session {session_id}"
    if first_line is None:
        print(f"lore turns import: {done}; every line is in, the session was not ended", file=sys.stderr)
        return
    skip = f", adding --from-line {first_line} to skip the lines before" if first_line > 1 else ""
    print(
        f"lore turns import: {done}; line {first_line} and after not imported. Continue with "
        f"`lore turns import {path} --session {session_id}` (nothing is written twice){skip}",
        file=sys.stderr,
    )


def _refused(response: httpx.Response, what: str) -> int:
    print(f"lore turns import: {what}: refused, HTTP {response.status_code}: {_message(response)}", file=sys.stderr)
    return EXIT_REFUSED
