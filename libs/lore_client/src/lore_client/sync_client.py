"""``SyncLoreClient``: ``LoreClient``'s methods, blocking, on one ``httpx.Client``.

For scripts, notebooks and frameworks that call tools synchronously. The methods, their
parameters, models and ``LoreApiError`` are ``LoreClient``'s own (both are built from
``lore_client.operations``); the ``iter_*`` methods are generators. Retries follow the same rule
(``calls.Attempts``), waiting with ``time.sleep``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import TracebackType
from typing import Any, TypeVar

import httpx

from lore_client.calls import Call, Paging
from lore_client.errors import LoreApiError
from lore_client.operations import Operations

T = TypeVar("T")


class SyncLoreClient(Operations[httpx.BaseTransport]):
    """A blocking client of Lore's gateway, with ``LoreClient``'s methods and settings
    (``transport`` is an ``httpx.BaseTransport``: ``httpx.MockTransport`` or ``httpx.WSGITransport``).

    Use as ``with SyncLoreClient(url, key) as lore: ...`` or call ``close()``. One client is safe
    to share between threads (``httpx.Client`` is); ``with_options`` views share its pool.
    """

    _flavour = "sync"
    _sleep = staticmethod(time.sleep)

    def _open(self, **options: Any) -> httpx.Client:
        return httpx.Client(**options)

    def __enter__(self) -> SyncLoreClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def _run(self, call: Call[T]) -> T:
        attempts = self._attempts(call)
        while True:
            try:
                response = self._http.request(**self._request(call))
            except httpx.TransportError as error:
                raise LoreApiError.from_transport(error) from error
            wait = attempts.wait_after(response)
            if wait is None:
                return call.read(response)
            self._sleep(wait)

    def _iterate(self, paging: Paging[T]) -> Iterator[T]:
        token: str | None = ""
        while token is not None:
            page = self._run(paging.page(token))
            yield from page.items
            token = paging.after(page, token)
