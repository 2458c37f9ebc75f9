"""Call every source at once, each with its own deadline, and keep what answered.

A source that fails or does not answer in time becomes an ``UnavailableSource`` (reported in
the manifest) and its result the given fallback: one source down never fails the whole call.
The deadline is per source, and never past what is left of the caller's own deadline.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from lore_runtime.errors import DeadlineExceeded, LoreError

from assembler_svc.domain.model import Section, Source, UnavailableSource

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SourceCall:
    """One read of the fan-out: ``call(timeout)`` returns the source's result."""

    name: str
    source: Source
    section: Section
    call: Callable[[float], Awaitable[Any]]
    fallback: Any


async def gather(calls: list[SourceCall], timeout: float) -> tuple[dict[str, Any], list[UnavailableSource]]:
    outcomes = await asyncio.gather(*(_one(call, timeout) for call in calls))
    results: dict[str, Any] = {}
    unavailable: list[UnavailableSource] = []
    for call, (value, reason) in zip(calls, outcomes, strict=True):
        results[call.name] = call.fallback if reason else value
        if reason:
            unavailable.append(UnavailableSource(call.source, call.section, f"{call.name}: {reason}"))
    return results, unavailable


async def _one(call: SourceCall, timeout: float) -> tuple[Any, str]:
    try:
        # The adapter passes the timeout to gRPC as the call's deadline; wait_for is the backstop
        # for anything that does not honour it.
        return await asyncio.wait_for(call.call(timeout), timeout + 0.05), ""
    except (TimeoutError, DeadlineExceeded):
        return None, f"no answer within {round(timeout * 1000)} ms"
    except LoreError as error:
        log.warning("context source %s unavailable: %s", call.name, error)
        return None, f"{type(error).__name__}: {error}"
    except Exception as error:
        log.warning("context source %s failed", call.name, exc_info=True)
        return None, f"{type(error).__name__}: {error}"


# A taker waits at most this share of its deadline for a relayed value (recall's query vector): a
# context waits for every source anyway, so waiting costs at most the taker's own time after the
# giver, while giving up has the taker's service embed the message a second time, exactly when the
# machine is busiest.
WAIT_SHARE = 0.8


class Relay:
    """Hands a by-product of one source (the message's vector, from recall) to another source of
    the same fan-out (the belief search, the episode search), so the message is embedded once, not
    once per service.

    The giver's call goes through ``giving``, the taker's through ``taking``, which waits at most
    ``share`` of the taker's deadline: a slow or failed giver costs the taker that wait and its own
    embedding, never its answer.
    """

    def __init__(self, share: float = WAIT_SHARE) -> None:
        self.share = share
        self._value: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def give(self, value: Any) -> None:
        if not self._value.done():
            self._value.set_result(value)

    async def take(self, wait: float) -> Any:
        try:
            return await asyncio.wait_for(asyncio.shield(self._value), wait)
        except TimeoutError:
            return None

    async def giving(self, call: Awaitable[T], by_product: Callable[[T], Any]) -> T:
        """What ``call`` answers, ``by_product`` of it handed on (None to the taker when it fails)."""
        try:
            found = await call
            self.give(by_product(found))
            return found
        finally:
            self.give(None)

    async def taking(self, timeout: float, call: Callable[[Any, float], Awaitable[T]]) -> T:
        """``call(value, left)``: the relayed value once it came (None once ``share`` of ``timeout``
        passed without it), and the time left of ``timeout``."""
        started = time.monotonic()
        value = await self.take(timeout * self.share)
        return await call(value, max(0.001, timeout - (time.monotonic() - started)))
