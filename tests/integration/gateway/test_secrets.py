"""Secrets are never kept: a conversation and every REST write path (Remember, PATCH, Observe,
turns:import, MCP's remember) hold card numbers, IBANs, passwords, API keys, SSNs and NI numbers in
several formats; afterwards none of them is in any text column of any schema, any Redis key, any
Qdrant payload, any log line or any answer, and the phone number, order number, ISBN and dates said
beside them come back as they were typed."""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis
from gateway_svc.api.http.idempotency import hashed_body
from gateway_svc.domain.idempotency import request_hash
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.logs import RedactingJsonFormatter
from lore_runtime.redaction import Redactor
from memory_svc.adapters.qdrant_engine import Scroll

from tests.integration.gateway.mcp_requests import tool_call, tool_result
from tests.polling import eventually

# Each secret as typed, in several formats: none of these strings may be found anywhere afterwards.
CARDS = ("4242 4242 4242 4242", "4000-0566-5566-5556", "5555555555554444", "3782 822463 10005", "4527/3829/1046/5739")
IBANS = ("GB82 WEST 1234 5698 7654 32", "DE89370400440532013000", "fr14 2004 1010 0505 0001 3m02 606")
PASSWORDS = ("Tr0ub4dor&3", "Kx9!moonrise", "blue fox 42")
WIFI = "Marmalade99"  # typed alone, answering the assistant's question for it
API_KEYS = (
    "sk-proj-4fJ8kL2mN9pQ1rS7tU3vW5xY0zA6bC",
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "q7RzT2mWx9KdL4pVb8NcY3fHs6JgA1eUo5Zi0QwE",
    "AbC12dEf.GhI34jKl.MnO56pQr.StU78vWx",
)
# A private key pasted whole: none of its lines may be kept.
PRIVATE_KEY_LINES = ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "QyNTUxOQAAACDx")
SSNS = ("123-45-6789", "219 09 9999")
# Known by their shape only: a session cookie's value and a password no label names.
SESSION_ID, SHAPED_PASSWORD = "9u4kq1b7f0l3m2n8p6r5s4t2v1", "p@ssw0rd!23"
NINOS = ("AB 12 34 56 C", "JG103759A")

# Everything that must be gone: as typed and, for numbers, as bare digits or compact characters.
RAW = (
    *CARDS,
    *(card.replace(" ", "").replace("-", "").replace("/", "") for card in CARDS),
    *PRIVATE_KEY_LINES,
    *IBANS,
    *(iban.replace(" ", "").upper() for iban in IBANS),
    *PASSWORDS,
    WIFI,
    *API_KEYS,
    *SSNS,
    "123456789",
    SESSION_ID,
    SHAPED_PASSWORD,
    *NINOS,
    "AB123456C",
)
# Not secrets: each must come back as typed.
PHONE, ORDER, ISBN, DATE = "+44 20 7946 0958", "5105105105105100", "978-0-306-40615-7", "15 March 2024"

CONVERSATION = (
    f"My card is {CARDS[0]} and my other card is {CARDS[1]}.",
    f"Please pay the rent to {IBANS[0]} from now on.",
    f"My password is {PASSWORDS[0]} and the gym locker pw: {PASSWORDS[1]}",
    ("TURN_ROLE_ASSISTANT", "Noted. And what's the wifi password at the flat?"),
    f"{WIFI}.",
    f"Here is my OpenAI key {API_KEYS[0]} and my GitHub token {API_KEYS[1]}.",
    f"The old debit card was {CARDS[4]}; put {API_KEYS[5]} in the header.",
    "The server key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
    + "\n".join(PRIVATE_KEY_LINES)
    + "\n-----END OPENSSH PRIVATE KEY-----",
    f"My SSN is {SSNS[0]} and my NI number is {NINOS[0]}.",
    f"You can call me on {PHONE}; my order number {ORDER} arrives on {DATE}, with the book ISBN {ISBN}.",
    f"The site set PHPSESSID={SESSION_ID}; try {SHAPED_PASSWORD} for the router.",
    "Do you remember which card I said I use for the rent?",
)


def _leaks(text: str) -> list[str]:
    return [raw for raw in RAW if raw in text]


async def _postgres_text(owner_dsn: str) -> str:
    """Every value of every text-holding column of every schema, as text (bytea decoded)."""
    connection = await asyncpg.connect(owner_dsn)
    try:
        columns = await connection.fetch(
            """
            SELECT table_schema, table_name, column_name, data_type
            FROM information_schema.columns
            WHERE table_schema NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
              AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')
              AND (table_schema, table_name) IN (
                SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')
            """
        )
        assert columns, "the scan found no text column at all"
        parts = []
        for column in columns:
            name = f'"{column["table_schema"]}"."{column["table_name"]}"'
            value = f'"{column["column_name"]}"'
            read = f"encode({value}, 'escape')" if column["data_type"] == "bytea" else f"{value}::text"
            rows = await connection.fetch(f"SELECT {read} AS v FROM {name} WHERE {value} IS NOT NULL")
            parts.extend(row["v"] for row in rows)
        return "\n".join(parts)
    finally:
        await connection.close()


async def _redis_text(url: str) -> str:
    """Every key and value in Redis, read by its type."""
    client = aioredis.from_url(url)
    parts: list[str] = []
    try:
        async for key in client.scan_iter(count=500):
            kind = (await client.type(key)).decode()
            if kind == "string":
                values: Any = [await client.get(key)]
            elif kind == "hash":
                values = [item for pair in (await client.hgetall(key)).items() for item in pair]
            elif kind == "list":
                values = await client.lrange(key, 0, -1)
            elif kind == "set":
                values = await client.smembers(key)
            elif kind == "zset":
                values = await client.zrange(key, 0, -1)
            elif kind == "stream":
                values = [str(entry) for entry in await client.xrange(key)]
            else:
                values = []
            parts.append(key.decode(errors="replace"))
            parts.extend(v.decode(errors="replace") if isinstance(v, bytes) else str(v) for v in values if v)
    finally:
        await client.aclose()
    return "\n".join(parts)


async def _qdrant_text(memory_container) -> str:
    """Every payload of the memory and episode collections."""
    parts = []
    for guarded in (memory_container.index, memory_container.episodes):
        store = guarded.store  # the live Qdrant store behind the reindex guard
        offset = None
        while True:
            page, offset = await store._scroll(Scroll("secrets scan", None, 256, offset=offset))
            parts.extend(json.dumps(point.payload, default=str) for point in page)
            if offset is None:
                break
    assert parts, "the scan found no payload at all"
    return "\n".join(parts)


async def _exported(services, org_id: str, user_id: str) -> str:
    stub = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    metadata = (("x-lore-org-id", org_id), ("x-lore-principal", "test"))
    request = memory_service_pb2.ExportMemoriesRequest()
    pages = [str(page) async for page in stub.ExportMemories(request, metadata=metadata, timeout=10)]
    assert pages, "the export answered nothing"
    return "\n".join(pages)


@pytest.fixture
def captured_logs(caplog):
    caplog.set_level(logging.DEBUG)
    return caplog


async def test_no_secret_is_kept_anywhere_and_the_not_secrets_come_back_as_typed(
    client_for, org_id, migrated_pg, redis_url, services, captured_logs
):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:10]}"
    scope = {"userId": user, "agentId": "aria"}
    answers: list[str] = []

    async def answered(response):
        assert response.status_code < 300, response.text
        answers.append(response.text)
        return response.json()

    # A conversation, one turn through the HTTP Idempotency-Key too, retried: the retry is replayed.
    session = (await answered(await client.post("/v1/sessions", json={"scope": scope})))["session"]
    turns_url = f"/v1/sessions/{session['id']}/turns"
    for index, said in enumerate(CONVERSATION):
        role, line = said if isinstance(said, tuple) else ("TURN_ROLE_USER", said)
        body = {"turn": {"role": role, "content": line, "idempotencyKey": f"t-{index}"}}
        headers = {"Idempotency-Key": f"secret-turn-{index}-{user}"}
        await answered(await client.post(turns_url, json=body, headers=headers))
    retried = await client.post(turns_url, json=body, headers=headers)
    assert retried.status_code == 200 and retried.headers.get("Idempotent-Replayed") == "true", retried.text

    # REST Remember (with an Idempotency-Key), then PATCH its content.
    remember = {
        "memories": [
            {
                "content": f"The user's backup card is {CARDS[2]} and their IBAN is {IBANS[1]}.",
                "memoryType": "MEMORY_TYPE_FACT",
                "scope": {"userId": user},
            }
        ]
    }
    key = f"secret-remember-{user}"
    remembered = await answered(await client.post("/v1/memories", json=remember, headers={"Idempotency-Key": key}))
    again = await client.post("/v1/memories", json=remember, headers={"Idempotency-Key": key})
    assert again.headers.get("Idempotent-Replayed") == "true", again.text
    memory_id = remembered["memories"][0]["id"]
    await answered(
        await client.patch(
            f"/v1/memories/{memory_id}",
            json={
                "memory": {"content": f"Their amex is {CARDS[3]}; their SSN is {SSNS[1]} and NI number {NINOS[1]}."},
                "updateMask": "content",
            },
        )
    )

    # Observe, the secret in the evidence's excerpt and the summary.
    await answered(
        await client.post(
            "/v1/observations:observe",
            json={
                "agentId": "aria",
                "candidate": {
                    "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
                    "subjectType": "SUBJECT_TYPE_ENTITY",
                    "subjectId": user,
                    "slot": "deploy_key",
                    "summary": f"Deploys with the key {API_KEYS[4]}.",
                    "evidence": [
                        {
                            "stance": "EVIDENCE_STANCE_SUPPORT",
                            "sourceType": "SOURCE_TYPE_MESSAGE",
                            "sourceId": "t-ext-1",
                            "excerpt": f"my AWS key is {API_KEYS[2]} and the password is '{PASSWORDS[2]}'",
                        }
                    ],
                },
            },
        )
    )

    # turns:import, a tool result holding a card and an order number.
    imported = await client.post(
        f"/v1/sessions/{session['id']}/turns:import",
        json={
            "turns": [
                {
                    "role": "TURN_ROLE_USER",
                    "content": f"Old note: the JWT was {API_KEYS[3]}, card {CARDS[0]}.",
                    "idempotencyKey": "imp-1",
                    "createdAt": "2024-03-15T10:00:00Z",
                },
                {
                    "role": "TURN_ROLE_TOOL",
                    "content": "payment done",
                    "idempotencyKey": "imp-2",
                    "createdAt": "2024-03-15T10:00:05Z",
                    "toolInteractions": [
                        {
                            "toolName": "pay",
                            "summary": f"charged card {CARDS[1]}",
                            "result": {"card": CARDS[1], "orderNumber": ORDER, "iban": IBANS[2]},
                        }
                    ],
                },
            ]
        },
    )
    await answered(imported)

    # MCP's remember tool over /mcp.
    mcp = await client.request(
        "POST",
        "/mcp",
        **tool_call("remember", {"content": f"The user's SSN is {SSNS[0]}; card {CARDS[2]}."}, agent="aria", user=user),
    )
    assert mcp.status_code == 200 and not tool_result(mcp).get("isError"), mcp.text
    answers.append(mcp.text)

    async def reflected():
        now = (await client.get(f"/v1/sessions/{session['id']}")).json()["session"]
        return now["reflectedTurns"] >= len(CONVERSATION)

    await eventually(reflected)
    await answered(await client.post(f"/v1/sessions/{session['id']}:end"))

    async def episodes():
        return (await client.get("/v1/episodes", params={"userId": user})).json()["episodes"]

    await eventually(episodes)

    # Every answer a client can ask for.
    for path, params in (
        ("/v1/memories", {"userId": user}),
        ("/v1/memories", {"userId": user, "pageSize": 100}),
        ("/v1/observations", {"agentId": "aria", "subjectId": user}),
        ("/v1/episodes", {"userId": user}),
        ("/v1/open-threads", {"userId": user}),
        (f"/v1/sessions/{session['id']}/turns", {}),
        ("/v1/memory/prime", {"userId": user, "agentId": "aria"}),
    ):
        await answered(await client.get(path, params=params))
    for query in ("card", "password", CARDS[0], "IBAN rent", "API key token"):
        await answered(await client.post("/v1/memories:search", json={"query": query, "scope": {"userId": user}}))
    await answered(
        await client.post(
            "/v1/context:assemble", json={"sessionId": session["id"], "scope": scope, "message": "which card do I use?"}
        )
    )
    answers.append(await _exported(services, org_id, user))

    # Nothing anywhere.
    stores = {
        "postgres": await _postgres_text(migrated_pg.owner_dsn),
        "redis": await _redis_text(redis_url),
        "qdrant": await _qdrant_text(services["memory"].container),
        "answers": "\n".join(answers),
    }
    formatter = RedactingJsonFormatter()
    stores["logs"] = "\n".join(formatter.format(record) for record in captured_logs.records)
    stores["raw log records"] = "\n".join(record.getMessage() for record in captured_logs.records)
    found = {where: _leaks(text) for where, text in stores.items()}
    assert found == {where: [] for where in stores}

    # The placeholders are what was kept, and the not-secrets are there as typed.
    memories = (await client.get("/v1/memories", params={"userId": user, "pageSize": 100})).text
    transcript = (await client.get(f"/v1/sessions/{session['id']}/turns")).text
    assert "[card ending 4242]" in transcript and "[IBAN ending 5432]" in transcript
    assert "[password]" in transcript and "[API key]" in transcript
    assert "[SSN]" in transcript and "[NI number]" in transcript
    assert "PHPSESSID=[session token]; try [password] for the router" in transcript
    assert "[card ending 0005]" in memories and "[NI number]" in memories
    for kept in (PHONE, ORDER, ISBN, DATE):
        assert kept in transcript, kept
    assert ORDER in stores["postgres"]


async def test_a_request_hash_is_taken_of_the_redacted_body_so_no_record_hides_a_secret(
    client_for, org_id, migrated_pg
):
    client = await client_for(org_id)
    body = {"memories": [{"content": f"card {CARDS[0]}", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": "u"}}]}
    key = f"hash-{uuid.uuid4().hex}"
    sent = json.dumps(body).encode()
    first = await client.post(
        "/v1/memories", content=sent, headers={"Idempotency-Key": key, "content-type": "application/json"}
    )
    retry = await client.post(
        "/v1/memories", content=sent, headers={"Idempotency-Key": key, "content-type": "application/json"}
    )
    assert first.status_code == 200 and retry.headers.get("Idempotent-Replayed") == "true"
    assert retry.json() == first.json() and CARDS[0] not in retry.text

    connection = await asyncpg.connect(migrated_pg.owner_dsn)
    try:
        stored = await connection.fetchval(
            "SELECT request_hash FROM gateway.caller_idempotency_records WHERE org_id = $1 AND key = $2", org_id, key
        )
    finally:
        await connection.close()
    redacted = hashed_body(sent, Redactor())
    assert CARDS[0].encode() not in redacted and b"[card ending 4242]" in redacted
    assert stored == request_hash("POST", "/v1/memories", b"", redacted)
    assert stored != request_hash("POST", "/v1/memories", b"", sent)


async def test_a_direct_grpc_caller_is_redacted_too(services, org_id):
    """The gateway is not the only door: each service redacts its own requests (its interceptor)."""
    stub = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    metadata = (("x-lore-org-id", org_id), ("x-lore-principal", "test"))
    memory = memory_service_pb2.MemoryInput(
        content=f"Pays with {CARDS[0]}; pw: {PASSWORDS[1]}",
        scope=scope_pb2.Scope(user_id="u-direct"),
        memory_type=memory_service_pb2.MEMORY_TYPE_FACT,
    )
    stored = await stub.Remember(memory_service_pb2.RememberRequest(memories=[memory]), metadata=metadata, timeout=10)
    assert stored.memories[0].content == "Pays with [card ending 4242]; pw: [password]"
    got = await stub.GetMemory(memory_service_pb2.GetMemoryRequest(id=stored.memories[0].id), metadata=metadata)
    assert got.memory.content == "Pays with [card ending 4242]; pw: [password]"
