"""What the gateway's api needs from its stores (implemented in adapters/, put in place by the
bootstrap, faked in tests): API key lookups, rate-limit and failed-authentication counters, and
idempotency records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from gateway_svc.domain.credentials import Caller
from gateway_svc.domain.idempotency import Claim, IdempotencyRecord, Namespace


class ApiKeyVerifier(Protocol):
    async def verify(self, token: str) -> Caller:
        """The caller an API key stands for; Unauthenticated when it is not a live key."""
        ...


class RateLimiter(Protocol):
    unenforced: Mapping[str, int]  # requests let through uncounted because the store was down, by scope

    async def admit(self, credential: str, scope: str) -> None:
        """Count one request of ``credential`` against ``scope``'s limit; QuotaExceeded when over."""
        ...


class AuthFailureCounter(Protocol):
    async def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may present a credential again (0: now)."""
        ...

    async def record(self, address: str) -> None:
        """Count one failed authentication from ``address``."""
        ...


class IdempotencyStore(Protocol):
    async def claim(
        self,
        namespace: Namespace,
        key: str,
        method: str,
        path: str,
        request_hash: bytes,
        subjects: Sequence[str] = (),
    ) -> Claim | IdempotencyRecord:
        """This request's claim on ``namespace``'s key, else the live record another request of the
        namespace left."""
        ...

    async def complete(
        self, claim: Claim, status_code: int, content_type: str | None, body: bytes, subjects: Sequence[str] = ()
    ) -> None:
        """Keep the response; ``subjects`` adds whom the response names to whom the request did."""
        ...

    async def release(self, claim: Claim) -> None:
        """Drop the claim, so a retry runs the request again."""
        ...

    async def forget(self, org_id: str, subject: list[str], session_ids: list[str]) -> int:
        """Delete the org's records that name the whole ``subject`` or one of its sessions; how many went."""
        ...
