"""``lore turns import`` against the gateway (in-process) and the running services: a JSON-lines
file becomes a session's transcript and message memories; re-running it writes nothing twice;
a malformed line stops the run before anything is sent."""

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
