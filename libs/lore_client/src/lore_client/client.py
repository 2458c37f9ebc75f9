"""``LoreClient``: the public REST API as typed async methods (one ``httpx.AsyncClient`` inside).

The methods are written once in ``lore_client.operations`` (each builds its request and says how
to read the answer) and shared with ``SyncLoreClient``; only sending differs. Every request goes
through ``_run``: the body is serialised once (so a retry, and a retry of the caller with the same
``idempotency_key``, sends the same bytes, which is how the gateway recognises a repeat), errors
become ``LoreApiError``, and 429/503 answers are retried at most ``max_retries`` times after
``Retry-After`` — only when a repeat cannot do the work twice: a GET, or a POST carrying an
``Idempotency-Key`` (``calls.Attempts``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any, TypeVar

import httpx

from lore_client.calls import Call, Paging
from lore_client.errors import LoreApiError
from lore_client.operations import Operations

T = TypeVar("T")


class LoreClient(Operations[httpx.AsyncBaseTransport]):
    """An async client of Lore's gateway; ``SyncLoreClient`` has the same methods, blocking.

    ``base_url``: the gateway (``http://127.0.0.1:8080`` for ``./lore up``); ``api_key``: an API
    key or JWT, sent as ``Authorization: Bearer``; ``timeout``: seconds per request;
    ``transport``: an httpx transport (``httpx.ASGITransport(app=...)`` in tests);
    ``max_retries``: repeats of a 429/503 for idempotent requests (0: never);
    ``max_retry_wait``: a longer ``Retry-After`` is not waited for — the error is raised;
    ``limits``: the connection pool (``httpx.Limits(max_connections=64)`` for many concurrent
    calls: httpx keeps only 20 idle connections by default, so more callers than that reconnect;
    ignored when ``transport`` is given, which brings its own pool).

    Use as ``async with LoreClient(url, key) as lore: ...`` or call ``aclose()``.
    ``with_options(timeout=…, max_retries=…)`` gives a view with other settings on the same
    connection pool, for the few calls that need them (a long import, a call that must not retry).
    """

    _flavour = "async"
    _sleep = staticmethod(asyncio.sleep)

    def _open(self, **options: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(**options)

    async def __aenter__(self) -> LoreClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    # -- the one I/O seam -----------------------------------------------------------------

    async def _run(self, call: Call[T]) -> T:
        attempts = self._attempts(call)
        while True:
            try:
                response = await self._http.request(**self._request(call))
            except httpx.TransportError as error:
                raise LoreApiError.from_transport(error) from error
            wait = attempts.wait_after(response)
            if wait is None:
                return call.read(response)
            await self._sleep(wait)

    async def _iterate(self, paging: Paging[T]) -> AsyncIterator[T]:
        token: str | None = ""
        while token is not None:
            page = await self._run(paging.page(token))
            for item in page.items:
                yield item
            token = paging.after(page, token)
