"""``Idempotency-Key`` on POST: a retried request is answered from the first response, once.

A key is its caller's namespace (``domain.idempotency.Namespace``): the org, the principal and the
user the credential is pinned to (none for an org-wide credential). The same key from another caller
is simply another key; a rotated API key, or a fresh token, of the same principal and user finds its
records. A POST carrying the header is recorded in ``gateway.caller_idempotency_records`` under its
caller's namespace, with a SHA-256 of the method, path, query string and body (the body as the
services will keep it: a JSON body holding a secret is hashed redacted, ``LORE_REDACT``, so no record
holds a hash a secret could be guessed back from, and a retry still matches). The first request
claims the key (an ``INSERT … ON CONFLICT`` decides who is first), runs, and its response (status,
content type, body) is stored; a repeat of the same request gets that response again with
``Idempotent-Replayed: true``. A repeat while the first still runs gets 409
``IDEMPOTENCY_KEY_IN_USE`` (``Retry-After: 1``); the key sent with a different request gets 409
``IDEMPOTENCY_KEY_REUSED``.

Recorded: 2xx and 4xx answers, except 429 and 499 (come back later; nothing ran). Not recorded:
5xx and failures, so the client can retry; the record is dropped. Records live
``LORE_IDEMPOTENCY_TTL_SECONDS`` (one day by default) from the first request; an expired one
counts as absent. A record still in progress after four RPC deadlines is taken as abandoned (its
gateway died mid-request) and counts as absent too. Each new record also purges up to
``PURGE_BATCH`` expired records of any tenant (``gateway.purge_expired_idempotency_records``,
the schema owner's function), so the table never outgrows its live records by much, with no
background job. Each record also names whom it concerns (``idempotency_subjects.py``): erasing a
person through ``POST /v1/subjects:forget`` deletes their records at once.

The middleware is plain ASGI (the body is read once, bounded by ``LORE_MAX_BODY_BYTES``, and
handed on to the route). Before any record is looked at, the caller is authenticated and must be
allowed the route: its scopes and, on a route acting on the whole organisation, not pinned to a
user (``auth.Authorization.check``, the route's own check). A request that fails either, whose body
is larger than the limit, or that no REST route takes (``/mcp``: each of its tool calls is a REST
call of its own) passes through untouched and is answered by its route as without the header.
"""

from __future__ import annotations

import json
import logging
import re
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass, field

import anyio
from fastapi import FastAPI, Request
from lore_runtime import errors
from lore_runtime.message_redaction import redact_json
from lore_runtime.redaction import Redactor
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway_svc.api.auth.auth import guards_of
from gateway_svc.domain.idempotency import HEADER, IdempotencyRecord, Namespace, request_hash
from gateway_svc.domain.idempotency_subjects import subjects_of
from gateway_svc.usecases.ports import IdempotencyStore

log = logging.getLogger(__name__)

REPLAYED_HEADER = "Idempotent-Replayed"
# 1–255 visible ASCII characters or spaces: no control characters, nothing to normalise.
_KEY = re.compile(r"^[\x20-\x7e]{1,255}$")
# Statuses that mean "not answered yet, come back": never replayed.
_NOT_FINAL = frozenset({429, 499})


def install(app: FastAPI) -> None:
    """Put the middleware on ``app``; call it before the request-id middleware so that one wraps it."""
    app.add_middleware(IdempotencyMiddleware)


@dataclass
class _Captured:
    start: Message | None = None
    chunks: list[bytes] = field(default_factory=list)
    done: bool = False


class IdempotencyMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        keys = headers.getlist(HEADER)
        if not keys:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        container = request.app.state.container
        guards = guards_of(request.app, scope)
        try:
            caller = await container.authenticator.authenticate(headers.get("authorization"))
            for guard in guards or ():
                guard.check(caller)  # scopes and pin, before any record is looked at
        except errors.LoreError:
            await self.app(scope, receive, send)  # the route refuses it as it would without the header
            return
        if guards is None:  # not a REST route: the header means nothing there
            await self.app(scope, receive, send)
            return
        if len(keys) > 1 or not _KEY.fullmatch(keys[0]):
            await _refuse(
                scope,
                receive,
                send,
                errors.InvalidArgument(
                    HEADER,
                    "send one key of 1 to 255 printable ASCII characters",
                    reason="INVALID_IDEMPOTENCY_KEY",
                ),
            )
            return

        settings = container.settings
        received, body = await _read_body(scope, receive, settings.max_body_bytes)
        replay = _replaying(received, receive)
        if body is None:  # too large or the client left: the route answers as it would without the header
            await self.app(scope, replay, send)
            return

        store: IdempotencyStore = container.idempotency
        hashed = hashed_body(body, Redactor(settings.redact))
        fingerprint = request_hash(scope["method"], scope["path"], scope.get("query_string", b""), hashed)
        named = subjects_of(scope["path"], body, user_id=caller.user_id)
        try:
            claimed = await store.claim(Namespace.of(caller), keys[0], "POST", scope["path"], fingerprint, named)
        except errors.LoreError as error:
            await _refuse(scope, receive, send, error, {"Retry-After": "1"})
            return
        if isinstance(claimed, IdempotencyRecord):
            await _answer_from(claimed, fingerprint, scope, receive, send)
            return

        captured = _Captured()

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                captured.start = message
            elif message["type"] == "http.response.body":
                captured.chunks.append(message.get("body", b""))
                captured.done = not message.get("more_body", False)

        try:
            await self.app(scope, replay, capture)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await _quietly(store.release(claimed))
            raise
        if captured.start is None or not captured.done:
            with anyio.CancelScope(shield=True):
                await _quietly(store.release(claimed))
            raise RuntimeError("the route ended without a complete response")

        status = captured.start["status"]
        response_body = b"".join(captured.chunks)
        with anyio.CancelScope(shield=True):
            if status < 500 and status not in _NOT_FINAL:
                content_type = Headers(raw=captured.start["headers"]).get("content-type")
                answered = subjects_of(scope["path"], response_body)
                if not await _quietly(store.complete(claimed, status, content_type, response_body, answered)):
                    await _quietly(store.release(claimed))
            else:
                await _quietly(store.release(claimed))
        await send(captured.start)
        await send({"type": "http.response.body", "body": response_body, "more_body": False})


def hashed_body(body: bytes, redactor: Redactor) -> bytes:
    """What a request's fingerprint is taken of: the body itself, or, when its JSON holds a secret,
    the JSON with its secrets replaced (compact, keys in order), so the same body always gives the
    same bytes and a stored hash never hides a card or a password."""
    if not redactor.enabled:
        return body
    try:
        document = json.loads(body)
    except ValueError:  # not JSON: the route refuses it; nothing of it is kept but this hash
        return body
    redacted = redact_json(document, redactor)
    if redacted is document:
        return body
    return json.dumps(redacted, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


async def _read_body(scope: Scope, receive: Receive, limit: int) -> tuple[list[Message], bytes | None]:
    """The messages read and the whole body; ``None`` for the body when it is larger than
    ``limit`` (reading stops there) or the client disconnected."""
    declared = Headers(scope=scope).get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return [], None
    messages: list[Message] = []
    body = bytearray()
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        body.extend(message.get("body", b""))
        if len(body) > limit:
            return messages, None
        if not message.get("more_body", False):
            return messages, bytes(body)


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` that first hands on the messages already read."""
    pending = deque(messages)

    async def replay() -> Message:
        if pending:
            return pending.popleft()
        return await receive()

    return replay


async def _answer_from(
    record: IdempotencyRecord, fingerprint: bytes, scope: Scope, receive: Receive, send: Send
) -> None:
    if record.request_hash != fingerprint:
        error: errors.LoreError = errors.AlreadyExists(
            f"this {HEADER} was already used with a different request (method, path, query or body); "
            "send a new key for a new request",
            reason="IDEMPOTENCY_KEY_REUSED",
            metadata={"header": HEADER},
        )
        await _refuse(scope, receive, send, error)
    elif record.state != "completed" or record.status_code is None or record.body is None:
        error = errors.Conflict(
            f"a request with this {HEADER} is still being processed; retry shortly",
            reason="IDEMPOTENCY_KEY_IN_USE",
            metadata={"header": HEADER},
        )
        await _refuse(scope, receive, send, error, {"Retry-After": "1"})
    else:
        headers = {REPLAYED_HEADER: "true"}
        if record.content_type:
            headers["content-type"] = record.content_type
        await Response(record.body, status_code=record.status_code, headers=headers)(scope, receive, send)


async def _refuse(
    scope: Scope, receive: Receive, send: Send, error: errors.LoreError, headers: dict[str, str] | None = None
) -> None:
    """Answered by the handler ``errors.install`` registered, so the body is every route's error body."""
    request = Request(scope, receive)
    handler = request.app.exception_handlers[errors.LoreError]
    response: Response = await handler(request, error)
    response.headers.update(headers or {})
    await response(scope, receive, send)


async def _quietly(step: Awaitable[None]) -> bool:
    """Await a bookkeeping step; a failure is logged, not raised (the response is already decided)."""
    try:
        await step
    except Exception:
        log.exception("idempotency record bookkeeping failed")
        return False
    return True
