"""The sides of the agent's port contracts: the fake of tests/fakes_agent.py, and the ``Grpc*``
adapter the agent runs with, on the in-process services (tests/integration/conftest.py).

A gRPC adapter acts as the org of the current request (lore_runtime.request_context), as it does
inside a job or a servicer; ``ActingAs`` binds a fresh org around every call, so each test is an
org of its own on the shared services. A fake is fresh per test and has no orgs."""

from __future__ import annotations

import functools
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from lore_runtime import request_context
from lore_runtime.channels import create_channel

from tests.grpc_harness import SERVICE_TOKENS


class ActingAs:
    """``port``, each of whose calls runs as ``org_id`` (a job's system principal)."""

    def __init__(self, port: Any, org_id: str) -> None:
        self._port = port
        self.org_id = org_id

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._port, name)

        @functools.wraps(method)
        async def as_org(*args: Any, **kwargs: Any) -> Any:
            with request_context.bound(request_context.RequestContext(self.org_id, "lore-system")):
                return await method(*args, **kwargs)

        return as_org


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=["fake", "grpc"])
def real_services(request) -> dict[str, Any] | None:
    """The side of a contract test: None for the fake; for the adapter, the in-process services (started
    only when that side runs)."""
    return request.getfixturevalue("services") if request.param == "grpc" else None


@pytest.fixture
async def channels(real_services) -> AsyncIterator[dict[str, grpc.aio.Channel]]:
    """A channel to each service, as the agent opens them (tenant forwarded, service token), on the
    adapter's side; none on the fake's."""
    if real_services is None:
        yield {}
        return
    opened = {
        name: create_channel(real_services[name].address, token=SERVICE_TOKENS)
        for name in ("memory", "observations", "assembler")
    }
    try:
        yield opened
    finally:
        for channel in opened.values():
            await channel.close()
