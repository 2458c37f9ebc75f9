"""Erasing a person through the gateway also drops the responses it kept for ``Idempotency-Key``
replays of their requests: a memory write, a session start and a turn carry
their words; another user's records stay."""

import uuid

import asyncpg


async def records_of(owner_dsn: str, org_id: str) -> dict[str, bytes]:
    connection = await asyncpg.connect(owner_dsn)
    try:
        rows = await connection.fetch(
            "SELECT key, body FROM gateway.caller_idempotency_records WHERE org_id = $1 AND state = 'completed'", org_id
        )
    finally:
        await connection.close()
    return {row["key"]: row["body"] for row in rows}


def memory(user: str, content: str) -> dict:
    return {"memories": [{"content": content, "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": user}}]}


async def test_forgetting_a_user_deletes_the_idempotency_records_that_hold_their_words(client_for, org_id, migrated_pg):
    client = await client_for(org_id)
    marker = f"zq{uuid.uuid4().hex}"

    def keyed(key: str) -> dict[str, str]:
        return {"Idempotency-Key": key}

    wrote = await client.post("/v1/memories", json=memory("u-gone", f"My locker code is {marker}."), headers=keyed("m"))
    started = await client.post("/v1/sessions", json={"scope": {"userId": "u-gone"}}, headers=keyed("s"))
    session = started.json()["session"]["id"]
    turn = {"turn": {"role": "TURN_ROLE_USER", "content": f"Remember {marker}, please."}}
    said = await client.post(f"/v1/sessions/{session}/turns", json=turn, headers=keyed("t"))
    kept = await client.post("/v1/memories", json=memory("u-kept", "I like tea."), headers=keyed("k"))
    assert {wrote.status_code, started.status_code, said.status_code, kept.status_code} == {200}
    before = await records_of(migrated_pg.owner_dsn, org_id)
    assert {key for key, body in before.items() if marker.encode() in body} == {"m", "t"}

    erased = await client.post("/v1/subjects:forget", json={"subject": {"userId": "u-gone"}, "requestId": "e-1"})

    assert erased.status_code == 200, erased.text
    assert set(await records_of(migrated_pg.owner_dsn, org_id)) == {"k"}
    replayed = await client.post("/v1/memories", json=memory("u-kept", "I like tea."), headers=keyed("k"))
    assert replayed.headers.get("Idempotent-Replayed") == "true" and replayed.json() == kept.json()
