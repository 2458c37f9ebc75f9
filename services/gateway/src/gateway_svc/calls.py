"""What every route does around its gRPC call: bounded bodies, tenant metadata, deadlines."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from lore_runtime import errors

from gateway_svc.auth import Caller


async def read_json(request: Request) -> bytes:
    """The raw body, refused past the configured size before it is parsed."""
    limit = request.app.state.container.settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise errors.InvalidArgument("body", f"larger than {limit} bytes", reason="BODY_TOO_LARGE")
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise errors.InvalidArgument("body", f"larger than {limit} bytes", reason="BODY_TOO_LARGE")
    return bytes(body)


def rpc_options(request: Request, caller: Caller) -> dict[str, Any]:
    """Keyword arguments for a stub call: the caller's tenant in metadata and a deadline."""
    context = caller.context(request.state.request_id)
    return {"metadata": context.metadata(), "timeout": request.app.state.container.settings.rpc_timeout_seconds}
