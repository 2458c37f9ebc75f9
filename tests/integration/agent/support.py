"""Helpers of the agent's integration tests: the tenant metadata, waiting for background work,
and the calls most tests make."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

import grpc
import pytest
from lore.agent.v1 import agent_service_pb2 as pb
from lore.common.v1 import turn_pb2

from tests.polling import eventually

__all__ = ["eventually", "refused", "say", "tenant"]

T = TypeVar("T")


def tenant(org_id: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org_id), ("x-lore-principal", "tester"))


async def refused(call: Awaitable[object]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    return raised.value


async def say(agent, org: str, session_id: str, content: str, **fields) -> pb.ProcessTurnResponse:
    request = pb.ProcessTurnRequest(
        session_id=session_id, turn=turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content=content, **fields)
    )
    return await agent.ProcessTurn(request, metadata=tenant(org))
