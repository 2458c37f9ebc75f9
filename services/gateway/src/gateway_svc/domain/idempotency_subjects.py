"""Whom an idempotency record concerns, so erasing a person also drops the responses the gateway
kept for replays (they hold that person's words): ``user:<id>``, ``agent:<id>`` and ``team:<id>``
for every scope id the request or its response names (and the user a JWT is pinned to), and
``session:<id>`` for a request to one session's routes (its turns name no user).

The request body is parsed here before the route sees it; a body that is not JSON, or nested
deeper than the JSON parser allows, simply names nobody (the route refuses it as usual).
"""

from __future__ import annotations

import json
import re
from typing import Any

# At most this many ids per record: more than any request can name (a Remember batch holds at most
# 500 memories), so a record never misses a person it concerns.
MAX_SUBJECTS = 1_024
_KINDS = {
    "userId": "user",
    "user_id": "user",
    "agentId": "agent",
    "agent_id": "agent",
    "teamId": "team",
    "team_id": "team",
}
_SESSION_PATH = re.compile(r"^/v1/sessions/([^/:]+)")


def subjects_of(path: str, *bodies: bytes, user_id: str = "") -> list[str]:
    """The subjects ``path`` and the JSON ``bodies`` name, sorted, at most ``MAX_SUBJECTS``."""
    found: set[str] = {f"user:{user_id}"} if user_id else set()
    if match := _SESSION_PATH.match(path):
        found.add(f"session:{match.group(1)}")
    for body in bodies:
        try:
            document = json.loads(body) if body else None
        except (ValueError, RecursionError):
            continue
        _collect(document, found)
    return sorted(found)[:MAX_SUBJECTS]


def _collect(document: Any, found: set[str]) -> None:
    """Walks without recursion: a body nested as deep as the parser allowed is walked all the same."""
    pending = [document]
    while pending and len(found) < MAX_SUBJECTS:
        value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _KINDS and isinstance(item, str) and item:
                    found.add(f"{_KINDS[key]}:{item}")
                elif isinstance(item, dict | list):
                    pending.append(item)
        elif isinstance(value, list):
            pending.extend(item for item in value if isinstance(item, dict | list))


def subject_ids(user_id: str, agent_id: str, team_id: str) -> list[str]:
    """An erasure's subject as record subjects: a record concerns it when it names every one."""
    return [f"{kind}:{value}" for kind, value in (("user", user_id), ("agent", agent_id), ("team", team_id)) if value]
