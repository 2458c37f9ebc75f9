"""A request body must arrive within ``LORE_BODY_TIMEOUT_SECONDS`` of its headers: a client that
trickles it in gets 408 and a closed connection, whether the route reads the body or answers
without it. The gateway is served by uvicorn on a real port and spoken to over a raw socket, with a
short timeout; a body sent in time is answered as usual on a connection that stays open."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator

import pytest
import uvicorn
from gateway_svc.server import create_app

from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.polling import eventually

TIMEOUT_SECONDS = 0.5
TRICKLE_SECONDS = 0.05  # between two bytes: each arrives in time, the whole body does not


@pytest.fixture(scope="module")
async def served(services, migrated_pg, redis_url) -> AsyncIterator[int]:
    """The port of a gateway with a short body timeout, served by uvicorn on this event loop."""
    settings = gateway_settings(services, migrated_pg, redis_url, LORE_BODY_TIMEOUT_SECONDS=str(TIMEOUT_SECONDS))
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        listener = socket.create_server(("127.0.0.1", 0))
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", ws="none")
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        await eventually(lambda: server.started or serving.done(), timeout=10)
        assert not serving.done(), "the gateway did not start serving"
        yield listener.getsockname()[1]
        server.should_exit = True
        await serving
        listener.close()


def _head(path: str, length: int, token: str = "") -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: gateway", "Content-Type: application/json", f"Content-Length: {length}"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _trickle(writer: asyncio.StreamWriter, body: bytes) -> None:
    """One byte at a time, until the body is sent or the server hangs up."""
    try:
        for index in range(len(body)):
            writer.write(body[index : index + 1])
            await writer.drain()
            await asyncio.sleep(TRICKLE_SECONDS)  # fault injection: a client that sends its body slowly
    except ConnectionError:
        return


async def _answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of one response read off the socket."""
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines if line)}
    body = await reader.readexactly(int(headers["content-length"]))
    return int(status_line.split()[1]), headers, body


@pytest.mark.parametrize(
    "authenticated", [True, False], ids=["the-route-reads-the-body", "answered-without-reading-it"]
)
async def test_a_body_trickling_in_past_the_timeout_is_a_408_and_the_connection_closes(
    served, migrated_pg, org_id, authenticated
):
    token = await _create_key(migrated_pg.owner_dsn, org_id) if authenticated else ""
    body = json.dumps({"query": "Who keeps bees? " * 10}).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", served)
    began = time.monotonic()
    writer.write(_head("/v1/memories:search", len(body), token))
    trickling = asyncio.create_task(_trickle(writer, body))
    try:
        status, headers, answer = await asyncio.wait_for(_answer(reader), timeout=10)
        closed = await asyncio.wait_for(reader.read(), timeout=10)  # b"" once the server has hung up
    finally:
        trickling.cancel()
        writer.close()
    waited = time.monotonic() - began

    assert status == 408, answer
    assert headers["connection"] == "close" and closed == b""
    error = json.loads(answer)["error"]
    assert error["status"] == "DEADLINE_EXCEEDED" and error["code"] == 408
    assert error["details"][0]["reason"] == "BODY_TIMEOUT" and error["requestId"] == headers["x-request-id"]
    assert TIMEOUT_SECONDS <= waited < len(body) * TRICKLE_SECONDS  # answered long before the body was in


async def test_a_body_sent_in_time_is_answered_and_the_connection_stays_open(served, migrated_pg, org_id):
    token = await _create_key(migrated_pg.owner_dsn, org_id)
    body = json.dumps({"query": "Who keeps bees?"}).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", served)
    try:
        answers = []
        for credential in (token, "", token):  # the route reads the body; answers 401 without it; reads it
            writer.write(_head("/v1/memories:search", len(body), credential) + body)
            await writer.drain()
            answers.append(await asyncio.wait_for(_answer(reader), timeout=10))
    finally:
        writer.close()

    assert [status for status, _, _ in answers] == [200, 401, 200], answers
    assert all(headers.get("connection") != "close" for _, headers, _ in answers)
