"""Logic written once for both clients: a plan is a generator that yields the client ``Call``s it
needs and receives their answers (a ``LoreApiError`` is thrown into it), then returns its result.
``run`` drives it on a ``LoreClient``, ``run_sync`` on a ``SyncLoreClient``; the tool catalogue
(``lore_client.tools``) and the LangGraph store are written as plans, so neither repeats itself
per client."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lore_client.errors import LoreApiError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Call:
    """One client call a plan needs: ``getattr(client, method)(*args, **kwargs)``."""

    method: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)


Plan = Generator[Call, Any, T]


def call(method: str, *args: Any, **kwargs: Any) -> Generator[Call, Any, Any]:
    """``answer = yield from call("get_memory", memory_id)`` inside a plan."""
    return (yield Call(method, args, kwargs))


async def run(plan: Plan[T], client: Any) -> T:
    """``plan``'s result, each of its calls awaited on ``client``; a ``LoreApiError`` the plan does
    not catch propagates."""
    answer: Any = None
    failure: LoreApiError | None = None
    while True:
        try:
            step = plan.send(answer) if failure is None else plan.throw(failure)
        except StopIteration as done:
            return done.value
        try:
            answer, failure = await getattr(client, step.method)(*step.args, **step.kwargs), None
        except LoreApiError as error:
            answer, failure = None, error


def run_sync(plan: Plan[T], client: Any) -> T:
    """``run`` on a sync client: each call made directly."""
    answer: Any = None
    failure: LoreApiError | None = None
    while True:
        try:
            step = plan.send(answer) if failure is None else plan.throw(failure)
        except StopIteration as done:
            return done.value
        try:
            answer, failure = getattr(client, step.method)(*step.args, **step.kwargs), None
        except LoreApiError as error:
            answer, failure = None, error
