"""OpenAPI operation ids: ``<tag>.<name>``, e.g. ``memories.remember``, ``sessions.processTurn``.

``<tag>`` is the route's first tag (its section of the API docs) and ``<name>`` the route's name in
lowerCamelCase. Route names are those of the typed client's methods (``LoreClient.process_turn`` is
``sessions.processTurn``), so an SDK generated from the document reads like the hand-written one
instead of FastAPI's default (``process_turn_v1_sessions__session_id__turns_post``). An id is part of
the contract: tests/unit/gateway/test_openapi.py pins every one.
"""

from __future__ import annotations

from fastapi.routing import APIRoute


def lower_camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


def operation_id(route: APIRoute) -> str:
    action = lower_camel(route.name)
    if not route.tags:
        # A route outside the document needs a unique id all the same; one inside must name its section.
        if route.include_in_schema:
            raise ValueError(f"route {route.path} has no tag: its operation id would be <tag>.{action}")
        return action
    return f"{route.tags[0]}.{action}"
