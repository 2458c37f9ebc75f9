"""``lore health``: ask the gateway for every service's status."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping

import httpx
from lore_runtime.settings import DEFAULT_ADDRESSES


def gateway_url(environ: Mapping[str, str]) -> str:
    address = environ.get("LORE_GATEWAY_ADDR") or DEFAULT_ADDRESSES["gateway"]
    host, port = address.rsplit(":", 1)
    if host in ("0.0.0.0", "", "::"):
        host = "127.0.0.1"
    return f"http://{host}:{port}"


async def fetch_status(url: str, timeout: float = 3.0) -> tuple[int, dict]:
    async with httpx.AsyncClient(timeout=timeout) as client:
        response = await client.get(f"{url}/v1/status")
        return response.status_code, response.json()


async def wait_until_serving(url: str, wait: float) -> tuple[int, dict]:
    deadline = time.monotonic() + wait
    while True:
        try:
            code, body = await fetch_status(url)
        except (httpx.HTTPError, ValueError) as error:
            code, body = 0, {"status": "UNREACHABLE", "error": str(error)}
        if code == 200 or time.monotonic() >= deadline:
            return code, body
        await asyncio.sleep(0.25)


async def run(environ: Mapping[str, str], *, url: str | None, wait: float) -> int:
    code, body = await wait_until_serving(url or gateway_url(environ), wait)
    print(json.dumps(body, indent=2))
    return 0 if code == 200 else 1
