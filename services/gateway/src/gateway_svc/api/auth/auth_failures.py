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

The failures are counted behind the ``AuthFailureCounter`` port (``adapters/redis_auth_failures.py``:
which addresses are asked about, and what happens when Redis is unavailable).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from fastapi import Request
from lore_runtime import errors
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway_svc.usecases.ports import AuthFailureCounter

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


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
        limiter: AuthFailureCounter = container.auth_failures
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
