"""A method a path does not serve is a 405 in the gateway's error body, with an ``Allow`` header
listing every method the path does serve (RFC 9110 §15.5.6), for every route of the app: the
REST routes, the browser's, ``/mcp`` and the documentation pages. Every path that serves ``GET``
serves ``HEAD`` too: the ``GET``'s status and headers without its body."""

from __future__ import annotations

import re
import uuid

import pytest
from fastapi.routing import iter_route_contexts

from tests.integration.gateway.conftest import _create_key, asgi_client

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE")
PARAMETER = re.compile(r"\{(\w+)(?::(\w+))?\}")


def _concrete(template: str) -> str:
    """The template with a value in each parameter (a fresh id; a file path for a ``path`` one)."""
    return PARAMETER.sub(lambda m: "js/app.js" if m.group(2) == "path" else str(uuid.uuid4()), template)


def _served(gateway) -> dict[str, set[str]]:
    """Every concrete path of the route table and the methods some route of the app serves on it."""
    routes = [route for route in iter_route_contexts(gateway.routes) if route.methods]
    paths = {_concrete(route.path) for route in routes}
    served = {
        path: {method for route in routes if route.path_regex.match(path) for method in route.methods} for path in paths
    }
    return {path: methods | ({"HEAD"} if "GET" in methods else set()) for path, methods in served.items()}


async def test_every_route_answers_a_method_it_does_not_serve_with_405_and_allow(gateway, migrated_pg):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    served = _served(gateway)
    seen = 0
    async with asgi_client(gateway, key) as client:
        for path, methods in sorted(served.items()):
            allow = ", ".join(sorted(methods))
            for method in sorted(set(METHODS) - methods):
                answer = await client.request(method, path)
                assert answer.status_code == 405, (method, path, answer.status_code, answer.text[:300])
                assert answer.headers["allow"] == allow, (method, path)
                if method != "HEAD":
                    error = answer.json()["error"]
                    assert (error["code"], error["status"]) == (405, "UNIMPLEMENTED"), (method, path)
                    assert "Traceback" not in answer.text
                seen += 1
    assert seen > 5 * len(served)


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("TRACE", "/v1/memories", "GET, HEAD, POST"),
        ("PUT", "/v1/memories", "GET, HEAD, POST"),
        ("PUT", "/v1/sessions", "GET, HEAD, POST"),
        ("PUT", "/v1/memories/0b7e6f9e-2a52-4d8e-9a64-1f1c2b3d4e5f", "DELETE, GET, HEAD, PATCH"),
        ("DELETE", "/v1/sessions/0b7e6f9e-2a52-4d8e-9a64-1f1c2b3d4e5f/turns", "GET, HEAD, POST"),
        ("HEAD", "/mcp", "POST"),
        ("HEAD", "/v1/memories:search", "POST"),
        ("GET", "/mcp", "POST"),
        ("DELETE", "/mcp", "POST"),
        ("TRACE", "/openapi.json", "GET, HEAD"),
        ("POST", "/healthz", "GET, HEAD"),
    ],
)
async def test_allow_names_every_method_of_the_path_not_only_the_first_routes(
    gateway, migrated_pg, method, path, allow
):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    async with asgi_client(gateway, key) as client:
        answer = await client.request(method, path)
    assert answer.status_code == 405 and answer.headers["allow"] == allow


@pytest.mark.parametrize("path", ["/healthz", "/v1/memories", "/v1/whoami", "/openapi.json", "/ui/", "/v1/nowhere"])
async def test_head_answers_as_get_does_without_the_body(gateway, migrated_pg, path):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    async with asgi_client(gateway, key) as client:
        get = await client.get(path)
        head = await client.head(path)
        refused = await client.head(path, headers={"Authorization": "Bearer lore_not-a-key"})
    assert head.status_code == get.status_code and head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["content-length"] == get.headers["content-length"] == str(len(get.content))
    # A HEAD passes the checks its GET does: a bad credential is refused where the GET needs one.
    assert refused.status_code == (401 if path in {"/v1/memories", "/v1/whoami"} else get.status_code)
