"""Failed authentications counted per client address: guessing keys or tokens gets 429.

Every answer 401 to a request that presented a credential (an ``Authorization`` header) counts
one failure against the client's address, in a Redis GCRA bucket like the per-credential rate
limits (``rate_limits``; ``LORE_AUTH_FAILURE_LIMIT``, failures per second and burst). While the
bucket is full, every request from that address that presents a credential is answered 429 with
``Retry-After`` *before* its credential is looked at, a valid one included: the gateway cannot
tell a valid key from a guess without resolving it, which is the work the limit saves. A success
does not empty the bucket; it drains with time. Requests without a credential are not counted
(they cost no lookup) and are never refused here.

The address is the socket's peer. Behind an ingress, ``LORE_TRUSTED_PROXIES`` (CIDRs) names the
proxies whose ``X-Forwarded-For`` is believed: its entries are read from the right, skipping
trusted proxies, and the first other address is the client. IPv6 clients count per /64, the
block one host usually holds.

A process remembers which addresses failed lately, and only asks Redis about those: clients
that never fail cost no extra round trip, and each replica lets an address one attempt past the
limit at most before it asks. When Redis cannot be reached or stalls, nothing is refused (logged
once), and for a cooldown Redis is not asked at all (``lore_runtime.breaker``), as for the rate limits.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from collections.abc import Sequence

import redis.asyncio as redis
from fastapi import Request
from lore_runtime import errors
from lore_runtime.breaker import Breaker
from lore_runtime.stores import REDIS_TIMEOUT_SECONDS
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway_svc.rate_limits import GCRA, RateLimit

log = logging.getLogger(__name__)

KEY_PREFIX = "lore:gateway:authfail"
REDIS_UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError, OSError)
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# KEYS[1]: the bucket; ARGV: emission interval (µs), burst tolerance (µs). Returns µs until one more
# failure would be admitted (0: now). Reads only: a refused request is not a failure.
PEEK = """
local now = redis.call('TIME')
local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now_us)
if tat < now_us then tat = now_us end
local allowed_at = tat + tonumber(ARGV[1]) - tonumber(ARGV[2])
if allowed_at > now_us then return allowed_at - now_us end
return 0
"""


def parse_networks(text: str) -> tuple[Network, ...]:
    """``"10.0.0.0/8, 192.168.1.7"``: the trusted proxies' addresses or networks."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def client_address(scope: Scope, trusted: Sequence[Network]) -> str:
    """The client's address (its /64 for IPv6), believing ``X-Forwarded-For`` only from ``trusted`` peers."""
    client = scope.get("client")
    peer = client[0] if client else ""
    address = _ip(peer)
    if address is not None and _trusted(address, trusted):
        forwarded = ",".join(Headers(scope=scope).getlist("x-forwarded-for"))
        for hop in reversed([part.strip() for part in forwarded.split(",") if part.strip()]):
            hop_address = _ip(hop)
            if hop_address is None:
                break  # not an address: what is left of the header cannot be believed
            address = hop_address
            if not _trusted(hop_address, trusted):
                break
    if address is None:
        return peer or "unknown"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address, trusted: Sequence[Network]) -> bool:
    return any(address.version == network.version and address in network for network in trusted)


class AuthFailureLimiter:
    def __init__(
        self,
        client: redis.Redis | None,
        limit: RateLimit,
        *,
        breaker: Breaker | None = None,
        remember_size: int = 10_000,
    ) -> None:
        self._peek = client.register_script(PEEK) if client is not None else None
        self._count = client.register_script(GCRA) if client is not None else None
        self._limit = limit
        self._breaker = breaker or Breaker(cooldown=REDIS_TIMEOUT_SECONDS)
        self._recent: dict[str, float] = {}  # address -> until when this process asks Redis about it
        self._remember_size = remember_size

    @property
    def enabled(self) -> bool:
        """Counting, with Redis answering lately (a stalled Redis is not waited on for every request)."""
        return self._peek is not None and not self._limit.unlimited and not self._breaker.open

    def _args(self) -> list[int]:
        emission = 1_000_000 / self._limit.rate
        return [round(emission), round(emission * self._limit.burst)]

    async def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may present a credential again (0: now)."""
        if not self.enabled or self._recent.get(address, 0.0) < time.monotonic():
            return 0
        try:
            wait_us = int(await self._peek(keys=[f"{KEY_PREFIX}:{address}"], args=self._args()))  # type: ignore[misc]
        except REDIS_UNAVAILABLE as error:
            self._unavailable(error)
            return 0
        self._breaker.succeeded()
        return max(1, math.ceil(wait_us / 1_000_000)) if wait_us > 0 else 0

    async def record(self, address: str) -> None:
        """Count one failed authentication from ``address``."""
        if not self.enabled:
            return
        if len(self._recent) >= self._remember_size:
            self._recent.clear()
        # Asked about until its bucket has drained: burst / rate seconds after this failure.
        self._recent[address] = time.monotonic() + self._limit.burst / self._limit.rate
        try:
            await self._count(keys=[f"{KEY_PREFIX}:{address}"], args=self._args())  # type: ignore[misc]
        except REDIS_UNAVAILABLE as error:
            self._unavailable(error)
            return
        self._breaker.succeeded()

    def _unavailable(self, error: Exception) -> None:
        if self._breaker.failed():
            log.warning("failed authentications not limited: Redis is unavailable (%s)", error)


class AuthFailureMiddleware:
    """Plain ASGI, outside the idempotency middleware (which resolves credentials too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or "authorization" not in Headers(scope=scope):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        container = request.app.state.container
        limiter: AuthFailureLimiter = container.auth_failures
        address = client_address(scope, container.settings.trusted_networks)
        wait = await limiter.retry_after(address)
        if wait:
            request.app.state.metrics.rate_limited.labels("auth_failures").inc()
            error = errors.QuotaExceeded(
                f"too many failed authentications from this address: retry in {wait} s",
                reason="AUTH_FAILURES_LIMITED",
                metadata={"retry_after_seconds": str(wait)},
            )
            response = await request.app.exception_handlers[errors.LoreError](request, error)
            await response(scope, receive, send)
            return

        async def send_and_count(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                await limiter.record(address)
            await send(message)

        await self.app(scope, receive, send_and_count)
