"""Where a belief listing stopped: its keyset position, and the fingerprint that binds a token to
its filters (the token itself is sealed by lore_runtime.page_tokens)."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from typing import Any

from lore_runtime.errors import InvalidArgument
from lore_runtime.page_tokens import fingerprint

LISTING = "observations"


@dataclass(frozen=True, slots=True)
class BeliefCursor:
    """The last belief of a page in the listing's order: confidence desc, freshness desc, id asc."""

    confidence: float
    freshness: float
    observation_id: str


def filters_key(filters: Any) -> str:
    return fingerprint(asdict(filters))


def position_of(confidence: float, freshness: float, observation_id: str, generation: int) -> dict[str, Any]:
    return {"c": confidence, "f": freshness, "i": observation_id, "g": generation}


def cursor_from(position: dict[str, Any], generation: int, field: str = "page_token") -> BeliefCursor:
    try:
        cursor = BeliefCursor(float(position["c"]), float(position["f"]), str(uuid.UUID(str(position["i"]))))
        issued_under = position["g"]
    except (KeyError, TypeError, ValueError):
        raise InvalidArgument(field, "is not a page token this service issued") from None
    if issued_under != generation:
        raise InvalidArgument(
            field,
            "the belief order has changed since this page was listed (revalidation rewrote confidence and "
            "freshness); start again without it",
        )
    return cursor
