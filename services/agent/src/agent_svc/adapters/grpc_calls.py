"""How the agent awaits a call to another Lore service: a failure comes back as the ``LoreError``
it stands for (its reason and retry hint kept, ``lore_runtime.grpc_errors``), never as a gRPC error,
so the use cases and the job queue see one kind of error whatever the transport."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

import grpc
from lore_runtime.grpc_errors import from_rpc_error

T = TypeVar("T")


async def rpc(call: Awaitable[T]) -> T:
    try:
        return await call
    except grpc.aio.AioRpcError as error:
        raise from_rpc_error(error) from None


async def rpc_unless_gone(call: Awaitable[T]) -> T | None:
    """``rpc``, but None when the service answers NOT_FOUND: what was read a moment ago has been
    erased (or archived away) since, which leaves nothing to do rather than a failure."""
    try:
        return await call
    except grpc.aio.AioRpcError as error:
        if error.code() == grpc.StatusCode.NOT_FOUND:
            return None
        raise from_rpc_error(error) from None
