"""Routes that are one RPC: a request message read from the body, the query string or the path,
sent to one service, its answer printed as proto3 JSON. Most of the gateway's routes are only that
(with the user pin, the path's id and an owner check around the call), so they are declared with
``forward``; a route that does more keeps a function of its own (``declared_route``), built from the
same pieces. Either way, what the operation is (method, path, scopes, messages, summary) is its entry
in ``route_table``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from google.protobuf.message import Message

from gateway_svc.api.auth.auth import authenticated, authorized
from gateway_svc.api.auth.user_pin import check_readable, check_writable, pin_request
from gateway_svc.api.http.calls import body_message, query_message, rpc_options, with_path_id
from gateway_svc.api.http.route_table import Route, route
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from gateway_svc.api.openapi.document import json_body, json_response, query_parameters
from gateway_svc.domain.credentials import Caller

_PATH_PARAMETER = re.compile(r"{(\w+)}")

# Before the call: the request, its caller and the path's id (a record the caller must be allowed to touch).
Check = Callable[[Request, Caller, str], Awaitable[None]]
# After the call: the caller, the service's answer and the path's id.
AnswerCheck = Callable[[Caller, Any, str], None]
# Rewrites a decoded body before it is parsed (a route's shorthand spellings).
Prepare = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class Service:
    """An upstream service: the name of its channel (``Settings.upstreams``) and its gRPC stub."""

    channel: str
    stub: Callable[[Any], Any]

    def on(self, request: Request) -> Any:
        """The stub on this gateway's channel to the service."""
        return self.stub(request.app.state.container.channels[self.channel])

    def rpc(self, method: str) -> Rpc:
        return Rpc(self, method)


@dataclass(frozen=True, slots=True)
class Rpc:
    """One method of a service, called with the caller's tenant and the deadline (``rpc_options``)."""

    service: Service
    method: str

    async def __call__(self, request: Request, caller: Caller, message: Message) -> Any:
        return await getattr(self.service.on(request), self.method)(message, **rpc_options(request, caller))


@dataclass(frozen=True, slots=True)
class Body:
    """The request message is the JSON body; ``optional``: no body at all means "no options";
    ``prepare`` rewrites the decoded object before it is parsed (a route's shorthand spellings)."""

    message: type[Message]
    example: dict[str, Any]
    optional: bool = False
    prepare: Prepare | None = None

    async def read(self, request: Request) -> Message:
        return await body_message(request, self.message, empty=self.optional, prepare=self.prepare)

    def openapi(self, response: type[Message]) -> dict[str, Any]:
        return json_body(self.message, self.example, response)


@dataclass(frozen=True, slots=True)
class Query:
    """The request message is the query string (``examples``: of some of its parameters)."""

    message: type[Message]
    examples: dict[str, Any] | None = None

    async def read(self, request: Request) -> Message:
        return query_message(request, self.message)

    def openapi(self, response: type[Message]) -> dict[str, Any]:
        return query_parameters(self.message, response, self.examples)


@dataclass(frozen=True, slots=True)
class PathOnly:
    """The request message holds nothing but the path's id, if the path has one."""

    message: type[Message]

    async def read(self, request: Request) -> Message:
        return self.message()

    def openapi(self, response: type[Message]) -> dict[str, Any]:
        return json_response(response)


def reading(declared: Route, example: dict[str, Any] | None = None, prepare: Prepare | None = None) -> Reading:
    """How the request message of ``declared`` is read, as its table entry says (``Route.reads``)."""
    if declared.request is None or not declared.reads:
        raise ValueError(f"{declared.label} reads no request message")
    if declared.reads == "query":
        return Query(declared.request, example)
    if declared.reads == "path":
        return PathOnly(declared.request)
    return Body(declared.request, example or {}, optional=declared.reads == "optional body", prepare=prepare)


def openapi_of(declared: Route, example: dict[str, Any] | None = None) -> dict[str, Any]:
    """The OpenAPI entry of ``declared`` beyond what FastAPI writes: its request (body or query
    parameters, with ``example``) and its 200 answer, from the messages its table entry names."""
    if declared.response is None:
        return {}
    return reading(declared, example).openapi(declared.response)


def guard(operation_id: str) -> Any:
    """The dependency that checks the credential of the operation ``operation_id`` (its table entry's
    scopes; ``()``: any credential): it gives the route its caller."""
    declared = route(operation_id)
    if declared.scopes is None:
        raise ValueError(f"{declared.label} takes no credential")
    return authorized(*declared.scopes, org_wide=declared.org_wide) if declared.scopes else authenticated


def declared_route(
    router: APIRouter, operation_id: str, *, example: dict[str, Any] | None = None, **options: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the endpoint serves the operation ``operation_id`` of the route table, at its method
    and path, named, summarised and tagged as the table says, documented from its messages
    (``openapi_of``); ``options`` go to FastAPI (``responses``, ``response_class``...)."""
    declared = route(operation_id)
    extra = openapi_of(declared, example)
    return router.api_route(
        declared.path,
        methods=[declared.method],
        name=declared.name,
        summary=declared.summary,
        tags=declared.tags,
        **({"openapi_extra": extra} if extra else {}),
        **options,
    )


def forward(
    router: APIRouter,
    operation_id: str,
    *,
    rpc: Rpc,
    example: dict[str, Any] | None = None,
    prepare: Prepare | None = None,
    path_field: str = "",
    pin: bool = False,
    before: Check | None = None,
    after: AnswerCheck | None = None,
) -> None:
    """Add the operation ``operation_id`` of the route table to ``router``: the caller holds its
    scopes; the request message is read as the table says (``reading``; ``example`` documents it,
    ``prepare`` rewrites a body before it is parsed), the path's id set in its ``path_field``
    (``with_path_id``), the users it names pinned to the caller's (``pin``); ``before`` checks the
    record the path names, ``rpc`` answers, ``after`` checks the answer, which is printed."""
    declared = route(operation_id)
    message = reading(declared, example, prepare)
    path_ids = _PATH_PARAMETER.findall(declared.path)
    if len(path_ids) > 1 or bool(path_ids) != bool(path_field):
        raise ValueError(f"{declared.path}: a forwarded route has one path id and the field it fills, or neither")
    path_id = path_ids[0] if path_ids else ""

    async def endpoint(**arguments: Any) -> Response:
        request: Request = arguments["request"]
        caller: Caller = arguments["caller"]
        record_id: str = arguments.get(path_id, "")
        outgoing = await message.read(request)
        if path_id:
            with_path_id(outgoing, path_field, record_id)
        if pin:
            pin_request(caller, outgoing)
        if before is not None:
            await before(request, caller, record_id)
        answer = await rpc(request, caller, outgoing)
        if after is not None:
            after(caller, answer, record_id)
        return ProtoJSONResponse(answer)

    # FastAPI reads the route's parameters from its endpoint's signature: the path's id, then
    # the request and the authorized caller, as a route written out by hand declares them.
    keyword = inspect.Parameter.KEYWORD_ONLY
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            *([inspect.Parameter(path_id, keyword, annotation=str)] if path_id else []),
            inspect.Parameter("request", keyword, annotation=Request),
            inspect.Parameter("caller", keyword, annotation=Caller, default=Depends(guard(operation_id))),
        ],
        return_annotation=Response,
    )
    declared_route(router, operation_id, example=example)(endpoint)


Reading = Body | Query | PathOnly


def owned(get: Rpc, get_request: type[Message], kind: str) -> Check:
    """A ``before`` check: a caller pinned to a user changes only that user's records
    (``user_pin.check_writable``): the record is read first by ``get``, whose answer holds it under
    ``kind``; an org-wide caller reads nothing."""

    async def check(request: Request, caller: Caller, record_id: str) -> None:
        if caller.user_id:
            found = await get(request, caller, get_request(id=record_id))
            check_writable(caller, getattr(found, kind).scope.user_id, kind, record_id)

    return check


def readable(kind: str) -> AnswerCheck:
    """An ``after`` check: a pinned caller reads its own records and the organisation's shared ones,
    the answer holding the record under ``kind`` (``user_pin.check_readable``)."""

    def check(caller: Caller, answer: Any, record_id: str) -> None:
        check_readable(caller, getattr(answer, kind).scope.user_id, kind, record_id)

    return check
