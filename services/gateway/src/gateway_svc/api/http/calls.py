"""What every route does around its gRPC call: bounded bodies, tenant metadata, deadlines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Request
from lore_runtime import errors

from gateway_svc.api.http.query_params import query_to_json
from gateway_svc.api.json.proto_json import parse
from gateway_svc.domain.credentials import Caller


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


async def body_message(
    request: Request,
    message_class: type,
    *,
    empty: bool = False,
    prepare: Callable[[dict[str, Any]], None] | None = None,
) -> Any:
    """The JSON body as ``message_class``; with ``empty``, no body at all means "no options";
    ``prepare`` rewrites the decoded object before it is parsed (``proto_json.parse``)."""
    body = await read_json(request)
    depth = request.app.state.container.settings.max_json_depth
    return parse((body or b"{}") if empty else body, message_class, max_depth=depth, prepare=prepare)


def query_message(request: Request, message_class: type) -> Any:
    """The query string as ``message_class`` (proto3 JSON names, repeated keys for lists)."""
    return parse(query_to_json(request.query_params.multi_items(), message_class.DESCRIPTOR), message_class)


def with_path_id(message: Any, field: str, value: str) -> Any:
    """``message`` with ``field`` set from the path; a different value in the body is refused."""
    given = getattr(message, field)
    if given and given != value:
        raise errors.InvalidArgument(field, "must match the id in the path, or be left out")
    setattr(message, field, value)
    return message
