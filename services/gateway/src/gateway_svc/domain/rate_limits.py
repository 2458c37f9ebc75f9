"""A rate limit (requests per second and burst) and how the settings spell one
(``LORE_RATE_LIMIT``, ``LORE_RATE_LIMITS``, ``LORE_AUTH_FAILURE_LIMIT``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from lore_runtime.errors import InvalidArgument


@dataclass(frozen=True, slots=True)
class RateLimit:
    """``rate`` requests per second sustained, ``burst`` at once; a rate of 0 means unlimited."""

    rate: float
    burst: int

    @property
    def unlimited(self) -> bool:
        return self.rate <= 0


def parse_limits(text: str) -> dict[str, RateLimit]:
    """``"memories:write=10:20,admin=1:5"``: per scope, requests per second and burst."""
    limits: dict[str, RateLimit] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        scope, _, value = entry.partition("=")
        rate, _, burst = value.partition(":")
        try:
            limit = RateLimit(float(rate), int(burst) if burst else max(1, math.ceil(float(rate))))
        except ValueError:
            raise InvalidArgument("LORE_RATE_LIMITS", f"{entry!r} is not scope=rate[:burst]") from None
        if not scope.strip() or limit.rate < 0 or limit.burst < 1:
            raise InvalidArgument("LORE_RATE_LIMITS", f"{entry!r}: a scope, a rate ≥ 0 and a burst ≥ 1")
        limits[scope.strip()] = limit
    return limits


def parse_limit(text: str) -> RateLimit:
    """``"50:100"``: requests per second and burst (``"0"``: unlimited)."""
    return parse_limits(f"default={text}")["default"]
