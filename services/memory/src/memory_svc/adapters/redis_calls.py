"""Every Redis call of the working-memory and lease adapters goes through ``RedisCalls.call()``.

Driver errors become domain errors: "Redis is not there or did not answer in time" is
DependencyUnavailable (reason REDIS_UNAVAILABLE, UNAVAILABLE over gRPC, 503 with ``Retry-After`` at
the gateway); a write refused by the fence is Conflict (LEASE_LOST). Each call is bounded by the
client's timeout (``LORE_REDIS_TIMEOUT_SECONDS``, set in ``lore_runtime.stores.open_redis``); after
one times out, calls fail at once for as long again (``lore_runtime.breaker``), so a turn made
during a stall pays the timeout once, not once per call. The driver's text (it names Redis's
address) goes to the log, never to the caller.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Iterator

from lore_runtime import errors
from lore_runtime.breaker import Breaker
from lore_runtime.stores import REDIS_TIMEOUT_SECONDS
from redis import exceptions as redis_errors

log = logging.getLogger(__name__)

REDIS_UNAVAILABLE = (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError)


class RedisCalls:
    """``timeout``: the deadline the client was opened with; it is also how long the breaker stays open."""

    def __init__(self, timeout: float = REDIS_TIMEOUT_SECONDS, breaker: Breaker | None = None) -> None:
        self.timeout = timeout
        self._breaker = breaker or Breaker(cooldown=timeout)

    def _unavailable(self, message: str) -> errors.DependencyUnavailable:
        retry_after = str(max(1, math.ceil(self.timeout)))
        return errors.DependencyUnavailable(
            message, reason="REDIS_UNAVAILABLE", metadata={"store": "redis", "retry_after_seconds": retry_after}
        )

    @contextlib.contextmanager
    def call(self, *, fail_fast: bool = True) -> Iterator[None]:
        """One Redis call. ``fail_fast=False`` sends it even while the breaker is open: a lease release
        must reach Redis, where a stalled server still runs it (freeing the lease) once it resumes."""
        if fail_fast and self._breaker.open:
            raise self._unavailable("Redis is not answering (a call timed out a moment ago)")
        try:
            yield
        except REDIS_UNAVAILABLE as error:
            if self._breaker.failed():
                log.warning("Redis did not answer within %.1f s: failing fast for as long: %s", self.timeout, error)
            raise self._unavailable(f"Redis did not answer within {self.timeout:g} s") from error
        except redis_errors.ResponseError as error:
            self._breaker.succeeded()  # Redis answered
            if "LORE_LEASE_LOST" not in str(error):
                raise
            raise errors.Conflict(
                "a newer lease of this session has been granted: this holder's writes are refused",
                reason="LEASE_LOST",
            ) from error
        else:
            self._breaker.succeeded()
