"""What the async and the sync client share: every endpoint is written once, as a ``Call``.

An endpoint method (``lore_client.operations``) only describes its request — method, path, the
body serialised once, the query, the ``Idempotency-Key`` — and how to read the answer. Each
client runs that description its own way: ``LoreClient`` awaits ``httpx.AsyncClient``,
``SyncLoreClient`` calls ``httpx.Client``; the retry rule (``Attempts``) and the reading of
answers and errors are the same code for both, so the two cannot drift.

``operation`` and ``paged`` are the descriptors that turn one description into a method of
either flavour: an ``async def`` on ``LoreClient``, a ``def`` on ``SyncLoreClient``, each with
the endpoint's own signature and docstring (``inspect.signature``, ``help()`` and type checkers
see the real parameters; the overloads of ``__get__`` give each client its return type).
"""

from __future__ import annotations

import abc
import copy
import functools
import inspect
import json
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MethodType
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload
from urllib.parse import quote

import httpx

from lore_client import inputs as i
from lore_client.errors import LoreApiError
from lore_client.inputs import ScopeLike
from lore_client.models import Page

if TYPE_CHECKING:
    from lore_client.client import LoreClient
    from lore_client.sync_client import SyncLoreClient

T = TypeVar("T")
P = ParamSpec("P")
TransportT = TypeVar("TransportT", httpx.AsyncBaseTransport, httpx.BaseTransport)
Query = list[tuple[str, str]]

RETRIED_STATUSES = frozenset({429, 503})


# -- describing a request ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request and how to read its answer. ``content`` is the body already serialised, so a
    retry (and a caller's retry with the same ``idempotency_key``) sends the same bytes, which is
    how the gateway recognises a repeat; ``accept``: statuses read as answers, not raised."""

    method: str
    path: str
    parse: Callable[[dict[str, Any]], T]
    params: Query | None = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    accept: frozenset[int] = frozenset()

    @property
    def retryable(self) -> bool:
        """A repeat cannot do the work twice: a GET, or a POST carrying an ``Idempotency-Key``."""
        return self.method == "GET" or "Idempotency-Key" in self.headers

    def read(self, response: httpx.Response) -> T:
        return self.parse(response.json() if response.content else {})


def call(
    method: str,
    path: str,
    parse: Callable[[dict[str, Any]], T],
    *,
    body: Mapping[str, Any] | None = None,
    params: Query | None = None,
    idempotency_key: str | None = None,
    accept: frozenset[int] = frozenset(),
) -> Call[T]:
    headers = {}
    content = None
    if method in ("POST", "PATCH"):
        content = json.dumps(body or {}, separators=(",", ":"), ensure_ascii=False).encode()
        headers["Content-Type"] = "application/json"
    if idempotency_key is not None:
        if method != "POST":
            raise ValueError("idempotency_key applies to POST requests only")
        headers["Idempotency-Key"] = idempotency_key
    return Call(method, path, parse, params=params, content=content, headers=headers, accept=accept)


@dataclass(frozen=True, slots=True)
class Paging(Generic[T]):
    """Every item of a list route: ``page(token)`` is the call for one page."""

    page: Callable[[str], Call[Page[T]]]

    @staticmethod
    def after(page: Page[Any], token: str) -> str | None:
        """The next page's token, ``None`` once the last page is read (or the token repeats)."""
        if not page.next_page_token or page.next_page_token == token:
            return None
        return page.next_page_token


class Attempts:
    """The retry rule of one call: 429/503 are repeated at most ``max_retries`` times, after
    ``Retry-After`` (else 0.25 s, doubling), only for a retryable call and never after a wait
    longer than ``max_retry_wait``."""

    def __init__(self, call: Call[Any], max_retries: int, max_retry_wait: float) -> None:
        self._call = call
        self._max_retries = max_retries
        self._max_retry_wait = max_retry_wait
        self._count = 0

    def wait_after(self, response: httpx.Response) -> float | None:
        """``None``: the response is the answer; else seconds to wait before sending again.
        Raises the ``LoreApiError`` of a failure that is not retried."""
        if response.is_success or response.status_code in self._call.accept:
            return None
        error = LoreApiError.from_response(response)
        wait = error.retry_after if error.retry_after is not None else 0.25 * 2**self._count
        repeatable = self._call.retryable and response.status_code in RETRIED_STATUSES
        if not repeatable or self._count >= self._max_retries or wait > self._max_retry_wait:
            raise error
        self._count += 1
        return wait


# -- small builders of requests --------------------------------------------------------------


def quote_id(value: str) -> str:
    if not value:
        raise ValueError("an id is required")
    return quote(value, safe="")


def query(**fields: Any) -> Query:
    """Query parameters of a GET (names already camelCase or dotted); unset values left out,
    sequences repeated, booleans as ``true``/``false``."""
    items: Query = []
    for name, value in fields.items():
        if value is None or value == "" or value == []:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        for one in values:
            items.append((name, ("true" if one else "false") if isinstance(one, bool) else str(one)))
    return items


def enum(prefix: str, value: str | None) -> str | None:
    """An optional enum argument's full name (``inputs.enum_name``), ``None`` when not given."""
    return i.enum_name(prefix, value) if value else None


def scope_query(scope: ScopeLike | None) -> dict[str, str]:
    return {f"scope.{key}": value for key, value in i.scope_json(scope).items()}


def page_call(path: str, key: str, build: Callable[[dict[str, Any]], T], **fields: Any) -> Call[Page[T]]:
    """One page of a list route: ``fields`` is its query string (``query``), ``key`` the list."""
    return call("GET", path, lambda answer: Page.from_json(answer, key, build), params=query(**fields))


def one(key: str, build: Callable[[dict[str, Any]], T]) -> Callable[[dict[str, Any]], T]:
    """Reads ``answer[key]`` (``{}`` when absent) with ``build``."""
    return lambda answer: build(answer.get(key) or {})


def each(key: str, build: Callable[[dict[str, Any]], T]) -> Callable[[dict[str, Any]], list[T]]:
    """Reads the list ``answer[key]`` (empty when absent) item by item with ``build``."""
    return lambda answer: [build(item) for item in answer.get(key) or ()]


# -- one description, two flavours of method ---------------------------------------------------


class _Endpoint(abc.ABC):
    """What ``operation`` and ``paged`` share at run time: one ready function per flavour, made
    once when the class is created, bound like a method when read from a client."""

    def __init__(self, build: Callable[..., Any]) -> None:
        self.build = build
        functools.update_wrapper(self, build)
        self._methods: dict[str, Callable[..., Any]] = {}

    def __set_name__(self, owner: type, name: str) -> None:
        described = typing.get_args(typing.get_type_hints(self.build)["return"])[0]
        self._methods = {
            flavour: _like(self._method(flavour), self.build, self._answer(flavour, described))
            for flavour in ("async", "sync")
        }

    @abc.abstractmethod
    def _method(self, flavour: str) -> Callable[..., Any]:
        """The endpoint's function for ``flavour`` ("async" or "sync")."""

    @abc.abstractmethod
    def _answer(self, flavour: str, described: Any) -> Any:
        """The return annotation of that function, given the model ``described``."""

    def _bound(self, client: Any, owner: type | None) -> Any:
        """A client's method (bound to ``client``, or the function when read from the class); the
        descriptor itself on a class that is neither flavour (``Operations``)."""
        flavour = getattr(owner if owner is not None else type(client), "_flavour", None)
        if flavour is None:
            if client is None:
                return self
            raise TypeError(f"{type(client).__name__} is neither LoreClient nor SyncLoreClient")
        method = self._methods[flavour]
        return method if client is None else MethodType(method, client)


class operation(_Endpoint, Generic[P, T]):  # lower case: used as a decorator
    """An endpoint: the decorated method returns its ``Call``; on ``LoreClient`` it becomes an
    ``async def`` returning the answer, on ``SyncLoreClient`` a ``def`` returning it."""

    def __init__(self, build: Callable[Concatenate[Any, P], Call[T]]) -> None:
        super().__init__(build)

    def _method(self, flavour: str) -> Callable[..., Any]:
        build = self.build
        if flavour == "async":

            async def run_async(client: LoreClient, *args: Any, **kwargs: Any) -> Any:
                return await client._run(build(client, *args, **kwargs))

            return run_async

        def run(client: SyncLoreClient, *args: Any, **kwargs: Any) -> Any:
            return client._run(build(client, *args, **kwargs))

        return run

    def _answer(self, flavour: str, described: Any) -> Any:
        return described  # an async def's annotation is what its awaiting gives

    @overload
    def __get__(self, client: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, client: LoreClient, owner: type | None = None) -> Callable[P, Awaitable[T]]: ...
    @overload
    def __get__(self, client: SyncLoreClient, owner: type | None = None) -> Callable[P, T]: ...
    def __get__(self, client: Any, owner: type | None = None) -> Any:
        return self._bound(client, owner)


class paged(_Endpoint, Generic[P, T]):  # lower case: used as a decorator
    """Every item of a list route, page after page: the decorated method returns its ``Paging``;
    on ``LoreClient`` it becomes an async iterator, on ``SyncLoreClient`` a generator."""

    def __init__(self, build: Callable[Concatenate[Any, P], Paging[T]]) -> None:
        super().__init__(build)

    def _method(self, flavour: str) -> Callable[..., Any]:
        build = self.build

        def pages(client: Any, *args: Any, **kwargs: Any) -> Any:
            return client._iterate(build(client, *args, **kwargs))

        return pages

    def _answer(self, flavour: str, described: Any) -> Any:
        return AsyncIterator[described] if flavour == "async" else Iterator[described]

    @overload
    def __get__(self, client: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, client: LoreClient, owner: type | None = None) -> Callable[P, AsyncIterator[T]]: ...
    @overload
    def __get__(self, client: SyncLoreClient, owner: type | None = None) -> Callable[P, Iterator[T]]: ...
    def __get__(self, client: Any, owner: type | None = None) -> Any:
        return self._bound(client, owner)


def _like(run: Callable[..., Any], build: Callable[..., Any], answer: Any) -> Callable[..., Any]:
    """``run`` dressed as ``build`` (name, docstring, parameters), returning ``answer``."""
    hints = typing.get_type_hints(build)
    signature = inspect.signature(build)
    parameters = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()]
    functools.update_wrapper(run, build)
    run.__signature__ = signature.replace(parameters=parameters, return_annotation=answer)  # type: ignore[attr-defined]
    run.__annotations__ = {**hints, "return": answer}
    del run.__wrapped__  # type: ignore[attr-defined]  # the signature above is the method's own
    return run


# -- what both clients hold -----------------------------------------------------------------------


class ClientCore(abc.ABC, Generic[TransportT]):
    """The settings and connection pool of a client of Lore's gateway, and ``with_options``;
    the parameters are described on ``LoreClient``, whose ones ``SyncLoreClient`` takes too."""

    _flavour: str | None = None

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8080",
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: TransportT | None = None,
        max_retries: int = 2,
        max_retry_wait: float = 30.0,
        headers: Mapping[str, str] | None = None,
        limits: httpx.Limits | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        default_headers = {"Accept": "application/json", **(headers or {})}
        if api_key:
            default_headers["Authorization"] = f"Bearer {api_key}"
        pool = {"limits": limits} if limits is not None else {}
        self._http = self._open(
            base_url=base_url, headers=default_headers, timeout=timeout, transport=transport, **pool
        )
        self._owns_http = True
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait

    @abc.abstractmethod
    def _open(self, **options: Any) -> Any:
        """The flavour's httpx client (``AsyncClient`` or ``Client``) with ``options``."""

    def with_options(self, *, timeout: float | None = None, max_retries: int | None = None) -> Self:
        """This client with another ``timeout`` (seconds per request) or ``max_retries``, sharing
        its connection pool and credential: ``lore.with_options(timeout=300).import_turns(…)``.
        Closing the view does not close the pool; closing the original does, for both."""
        if max_retries is not None and max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        view = copy.copy(self)
        view._owns_http = False
        if timeout is not None:
            view.timeout = timeout
        if max_retries is not None:
            view.max_retries = max_retries
        return view

    def _attempts(self, call: Call[Any]) -> Attempts:
        return Attempts(call, self.max_retries, self.max_retry_wait)

    def _request(self, call: Call[Any]) -> dict[str, Any]:
        """The arguments of ``httpx`` ``request`` for one attempt of ``call``."""
        return {
            "method": call.method,
            "url": call.path,
            "content": call.content,
            "params": call.params,
            "headers": call.headers,
            "timeout": self.timeout,
        }
