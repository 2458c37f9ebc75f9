"""A server's dependency checks (what its health, and so ``/v1/status``, reports): a store that
never answers is reported within the check timeout, and does not hold up the others' checks."""

from __future__ import annotations

import asyncio
import time

from lore_runtime.server import CHECK_TIMEOUT_SECONDS, create_grpc_server

from tests.grpc_harness import server_settings


async def never_answers() -> None:
    await asyncio.Event().wait()  # a stalled store: the connection is open, nothing comes back


async def refuses() -> None:
    raise ConnectionRefusedError("nothing listens there")


async def answers() -> None:
    return None


async def test_a_stalled_dependency_is_reported_within_the_check_timeout_alongside_the_others() -> None:
    checks = {"stalled": never_answers, "stalled-too": never_answers, "down": refuses, "fine": answers}
    server = create_grpc_server("127.0.0.1:0", [], settings=server_settings(), checks=checks)
    try:
        began = time.monotonic()
        failed = await server.check_dependencies()
        took = time.monotonic() - began
    finally:
        await server.stop(grace=None)
    assert failed == ["stalled", "stalled-too", "down"]
    assert took < CHECK_TIMEOUT_SECONDS + 0.5  # asked at once, not one after the other
