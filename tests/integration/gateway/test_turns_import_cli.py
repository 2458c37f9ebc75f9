"""``lore turns import`` against the gateway (in-process) and the running services: a JSON-lines
file becomes a session's transcript and message memories; re-running it writes nothing twice;
a malformed line stops the run before anything is sent. Behind a proxy that fails on purpose:
transient failures are retried (the backoff's sleep recorded, not waited), a batch whose answer
was lost is sent again without writing twice, the run gives up after the bound, and a refused
turn is named by its line."""

import json
import uuid

import httpx
from lore_cli import turns_import

from tests.integration.gateway.conftest import _create_key

LINES = [
    {"role": "user", "content": "We adopted a cat called Pixel.", "createdAt": "2022-03-01T09:00:00Z"},
    {"role": "assistant", "content": "Congratulations on Pixel!", "createdAt": "2022-03-01T09:01:00Z"},
    {
        "role": "TURN_ROLE_USER",
        "content": "Pixel hates the vet.",
        "createdAt": "2022-04-02T18:30:00Z",
        "metadata": {"source": "chat-export"},
    },
]


async def test_a_file_is_imported_once_into_a_new_session(gateway, migrated_pg, tmp_path, capsys):
    org = f"org-{uuid.uuid4().hex[:12]}"
    key = await _create_key(migrated_pg.owner_dsn, org)
    path = tmp_path / "turns.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in LINES) + "\n")
    environ = {"LORE_API_KEY": key}
    transport = httpx.ASGITransport(app=gateway)

    first = await turns_import.run(environ, path, scope={"userId": "u-cli"}, transport=transport)
    first_out = capsys.readouterr().out
    session_id = first_out.split()[-1]
    again = await turns_import.run(environ, path, session_id=session_id, transport=transport)

    assert first == 0 and "imported 3 turns (0 already there)" in first_out
    assert again == 1, "the session was ended after the first import"
    async with httpx.AsyncClient(
        transport=transport, base_url="http://gateway", headers={"Authorization": f"Bearer {key}"}
    ) as client:
        turns = (await client.get(f"/v1/sessions/{session_id}/turns")).json()["turns"]
        found = await client.post("/v1/memories:search", json={"query": "Pixel vet", "scope": {"userId": "u-cli"}})
    assert [t["createdAt"] for t in turns] == ["2022-03-01T09:00:00Z", "2022-03-01T09:01:00Z", "2022-04-02T18:30:00Z"]
    assert found.json()["results"][0]["memory"]["metadata"] == {"source": "chat-export", "role": "user"}


async def test_reimporting_into_an_open_session_skips_every_turn(gateway, migrated_pg, tmp_path, capsys):
    org = f"org-{uuid.uuid4().hex[:12]}"
    key = await _create_key(migrated_pg.owner_dsn, org)
    transport = httpx.ASGITransport(app=gateway)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://gateway", headers={"Authorization": f"Bearer {key}"}
    ) as client:
        session_id = (await client.post("/v1/sessions", json={})).json()["session"]["id"]
    path = tmp_path / "turns.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in LINES))

    await turns_import.run({"LORE_API_KEY": key}, path, session_id=session_id, transport=transport)
    capsys.readouterr()
    code = await turns_import.run({"LORE_API_KEY": key}, path, session_id=session_id, transport=transport)

    assert code == 0 and "imported 0 turns (3 already there)" in capsys.readouterr().out


async def test_a_malformed_line_is_named_and_nothing_is_sent(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(LINES[0]) + "\n[1, 2]\n")

    code = await turns_import.run({"LORE_API_KEY": "unused-key-0123456789"}, path, session_id="s")

    assert code == 1 and f"{path}:2: a turn is a JSON object" in capsys.readouterr().err


# -- failures on the way: a proxy in front of the real gateway fails on purpose ---------------------


class FaultyProxy:
    """The gateway behind a proxy that fails on purpose: each ``turns:import`` call takes the next
    fault (``None`` passes it through; when none is left every call passes). ``"refuse"``: the
    connection is refused, nothing reaches the gateway; ``"lose"``: the gateway does the work and the
    answer is lost on the way back (the client reads a timeout); ``(status, headers)``: an answer
    of the proxy's own, as a load balancer or the gateway under load gives."""

    def __init__(self, app, faults):
        self.app = app
        self.faults = list(faults)
        self.imports = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].endswith("/turns:import"):
            return await self.app(scope, receive, send)
        self.imports += 1
        fault = self.faults.pop(0) if self.faults else None
        if fault is None:
            return await self.app(scope, receive, send)
        if fault == "refuse":
            raise httpx.ConnectError("connection refused")
        if fault == "lose":

            async def dropped(message):
                """The gateway's answer is discarded: the turns are written, the client never hears."""

            await self.app(scope, receive, dropped)
            raise httpx.ReadTimeout("the answer was lost")
        status, headers = fault
        body = json.dumps({"error": {"code": status, "status": "UNAVAILABLE", "message": "try later"}}).encode()
        raw_headers = [(b"content-type", b"application/json")]
        raw_headers += [(name.lower().encode(), value.encode()) for name, value in headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": body})


class Waits:
    """The backoff's sleep, recorded instead of waited."""

    def __init__(self):
        self.seconds = []

    async def __call__(self, seconds):
        self.seconds.append(seconds)


async def _open_session(transport, key):
    async with httpx.AsyncClient(
        transport=transport, base_url="http://gateway", headers={"Authorization": f"Bearer {key}"}
    ) as client:
        return (await client.post("/v1/sessions", json={"scope": {"userId": "u-cli"}})).json()["session"]["id"]


async def _transcript(gateway, key, session_id):
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=gateway),
        base_url="http://gateway",
        headers={"Authorization": f"Bearer {key}"},
    ) as client:
        return (await client.get(f"/v1/sessions/{session_id}/turns")).json()["turns"]


def _lines(count, **changed):
    """``count`` timed turns, user and assistant in turn; ``changed``: line number -> the line."""
    lines = [
        {
            "role": "user" if number % 2 else "assistant",
            "content": f"Line {number} of the import.",
            "createdAt": f"2023-05-01T10:{number:02d}:00Z",
        }
        for number in range(1, count + 1)
    ]
    for number, line in changed.items():
        lines[int(number.removeprefix("line")) - 1] = line
    return lines


def _write(tmp_path, lines):
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


async def test_transient_failures_are_retried_and_a_lost_answer_writes_nothing_twice(
    gateway, migrated_pg, tmp_path, capsys
):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    untimed = {"role": "user", "content": "A line without a time."}
    path = _write(tmp_path, [*_lines(3), untimed])
    proxy = FaultyProxy(
        gateway,
        ["refuse", (503, {"Retry-After": "2"}), "lose", (429, {"Retry-After": "7"}), (500, {"Retry-After": "1"})],
    )
    transport = httpx.ASGITransport(app=proxy)
    session_id = await _open_session(transport, key)
    waits = Waits()

    code = await turns_import.run(
        {"LORE_API_KEY": key}, path, session_id=session_id, transport=transport, sleep=waits, jitter=lambda: 0.5
    )

    captured = capsys.readouterr()
    assert code == turns_import.EXIT_OK, captured.err
    assert proxy.imports == 6
    # Full jitter (0.5 of the bound: 0.25, then 1.0 at the third retry), else Retry-After as given.
    assert waits.seconds == [0.25, 2.0, 1.0, 7.0, 1.0]
    assert "retry 5/8" in captured.err and "HTTP 429" in captured.err
    # The lost answer's call wrote every turn, the untimed one included; the repeat wrote none.
    assert "imported 0 turns (4 already there)" in captured.out
    turns = await _transcript(gateway, key, session_id)
    assert [turn["content"] for turn in turns] == [line["content"] for line in [*_lines(3), untimed]]


async def test_the_run_gives_up_after_the_bound_and_a_rerun_from_the_line_named_completes_it(
    gateway, migrated_pg, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(turns_import, "BATCH", 2)
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    path = _write(tmp_path, _lines(5))
    proxy = FaultyProxy(gateway, [None] + [(503, {})] * (turns_import.MAX_RETRIES + 1))
    transport = httpx.ASGITransport(app=proxy)
    session_id = await _open_session(transport, key)
    waits = Waits()

    code = await turns_import.run(
        {"LORE_API_KEY": key}, path, session_id=session_id, transport=transport, sleep=waits, jitter=lambda: 1.0
    )
    gave_up = capsys.readouterr().err
    after_giving_up = await _transcript(gateway, key, session_id)
    again = await turns_import.run(
        {"LORE_API_KEY": key}, path, session_id=session_id, transport=transport, from_line=2, sleep=waits
    )

    assert code == turns_import.EXIT_GAVE_UP
    # Batches of two, the assistant's line 2 kept with the user's line 3 that answers it: [1] [2, 3] [4, 5].
    assert "gave up: lines 2-3: HTTP 503" in gave_up and "after 8 retries" in gave_up
    assert f"1 turn imported (0 already there) into session {session_id}; line 2 and after not imported" in gave_up
    assert f"--session {session_id}` (nothing is written twice), adding --from-line 2" in gave_up
    assert waits.seconds[:8] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0], "doubling up to the cap"
    assert len(after_giving_up) == 1
    assert again == turns_import.EXIT_OK and "imported 4 turns (0 already there)" in capsys.readouterr().out
    assert len(await _transcript(gateway, key, session_id)) == 5


async def test_an_internal_error_without_retry_after_is_not_retried(gateway, migrated_pg, tmp_path, capsys):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    proxy = FaultyProxy(gateway, [(500, {})])
    transport = httpx.ASGITransport(app=proxy)
    session_id = await _open_session(transport, key)
    waits = Waits()

    code = await turns_import.run(
        {"LORE_API_KEY": key}, _write(tmp_path, _lines(2)), session_id=session_id, transport=transport, sleep=waits
    )

    assert code == turns_import.EXIT_GAVE_UP and proxy.imports == 1 and waits.seconds == []
    assert "HTTP 500" in capsys.readouterr().err


async def test_a_refused_turn_is_named_by_its_line_and_the_turns_before_it_are_imported(
    gateway, migrated_pg, tmp_path, capsys
):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    transport = httpx.ASGITransport(app=gateway)
    session_id = await _open_session(transport, key)
    empty = {"role": "assistant", "content": "  ", "createdAt": "2023-05-01T10:04:00Z"}
    path = _write(tmp_path, _lines(5, line4=empty))

    code = await turns_import.run({"LORE_API_KEY": key}, path, session_id=session_id, transport=transport)
    refused = capsys.readouterr().err
    imported = await _transcript(gateway, key, session_id)
    path = _write(tmp_path, _lines(5))
    again = await turns_import.run({"LORE_API_KEY": key}, path, session_id=session_id, transport=transport)

    assert code == turns_import.EXIT_REFUSED
    assert f"{path}:4: invalid turn.content: must not be empty (HTTP 400 INVALID_ARGUMENT)\n" in refused, refused
    assert f"3 turns imported (0 already there) into session {session_id}; line 4 and after not imported" in refused
    assert [turn["content"] for turn in imported] == [line["content"] for line in _lines(3)]
    assert again == turns_import.EXIT_OK and "imported 2 turns (3 already there)" in capsys.readouterr().out


async def test_skip_refused_imports_the_rest_and_lists_every_refused_line(gateway, migrated_pg, tmp_path, capsys):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    transport = httpx.ASGITransport(app=gateway)
    session_id = await _open_session(transport, key)
    future = {"role": "user", "content": "From the future.", "createdAt": "2999-01-01T00:00:00Z"}
    empty = {"role": "user", "content": "", "createdAt": "2023-05-01T10:05:00Z"}
    path = _write(tmp_path, _lines(6, line2=future, line5=empty))

    code = await turns_import.run(
        {"LORE_API_KEY": key}, path, session_id=session_id, transport=transport, skip_refused=True
    )

    captured = capsys.readouterr()
    assert code == turns_import.EXIT_REFUSED
    assert "imported 4 turns (0 already there)" in captured.out
    assert "2 lines refused and not imported" in captured.err
    assert f"{path}:2: invalid turn.createdAt: must not be in the future" in captured.err, captured.err
    assert f"{path}:5: invalid turn.content: must not be empty" in captured.err
    contents = [turn["content"] for turn in await _transcript(gateway, key, session_id)]
    assert contents == [
        line["content"]
        for line in _lines(6)
        if line["content"] not in ("Line 2 of the import.", "Line 5 of the import.")
    ]


async def test_from_line_sends_the_question_a_bare_answer_replies_to_so_the_secret_is_redacted(
    gateway, migrated_pg, tmp_path, capsys
):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    transport = httpx.ASGITransport(app=gateway)
    session_id = await _open_session(transport, key)
    asked = {"role": "assistant", "content": "What's the wifi password?", "createdAt": "2023-05-01T10:01:00Z"}
    answer = {"role": "user", "content": "Quokka4417.", "createdAt": "2023-05-01T10:02:00Z"}
    path = _write(tmp_path, [asked, answer])

    code = await turns_import.run({"LORE_API_KEY": key}, path, session_id=session_id, transport=transport, from_line=2)

    assert code == turns_import.EXIT_OK and "imported 2 turns" in capsys.readouterr().out
    contents = [turn["content"] for turn in await _transcript(gateway, key, session_id)]
    assert contents[0] == asked["content"] and len(contents) == 2
    assert "Quokka4417" not in contents[1]


async def test_a_run_that_started_its_session_leaves_it_open_and_says_how_to_continue_in_it(
    gateway, migrated_pg, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(turns_import, "BATCH", 1)
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    proxy = FaultyProxy(gateway, [None, "refuse"] + ["lose"] * turns_import.MAX_RETRIES)
    transport = httpx.ASGITransport(app=proxy)
    path = _write(tmp_path, _lines(3))

    code = await turns_import.run(
        {"LORE_API_KEY": key}, path, scope={"userId": "u-cli"}, transport=transport, sleep=Waits()
    )
    err, sent = capsys.readouterr().err, proxy.imports
    session_id = err.split("into session ")[1].split(";")[0]
    again = await turns_import.run({"LORE_API_KEY": key}, path, session_id=session_id, transport=transport)

    assert code == turns_import.EXIT_GAVE_UP and sent == 10
    assert f"`lore turns import {path} --session {session_id}`" in err
    # Every lost answer's call wrote line 2; the rerun into the same, still open, session adds line 3 only.
    assert again == turns_import.EXIT_OK and "imported 1 turn (2 already there)" in capsys.readouterr().out
    assert len(await _transcript(gateway, key, session_id)) == 3
