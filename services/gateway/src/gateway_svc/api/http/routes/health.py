"""Liveness, readiness and the whole system's status.

- ``/healthz``: the process lives.
- ``/readyz``: the gateway's own dependencies answer (its Kubernetes readiness).
- ``/v1/status``: every service's gRPC health, names and states only, no credential;
  200 only when every service is SERVING, else 503 with the same body.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from lore_runtime.health import serving_status
from lore_runtime.stores import ping_postgres

from gateway_svc.api.http.forwarding import declared_route
from gateway_svc.api.openapi.schemas import named

router = APIRouter()  # each route tagged as the route table says


def _states(name: str, field: str, serving: dict[str, str]) -> dict[int | str, dict]:
    """OpenAPI of a health route's answers: 200 with every state SERVING, or 503 with the same body
    (not the error shape) naming what is not; the body's schema is named ``name``."""
    states = {"type": "object", "additionalProperties": {"type": "string"}}
    schema = named(name, {"type": "object", "properties": {"status": {"type": "string"}, field: states}})
    down = dict(serving) | {next(iter(serving)): "NOT_SERVING"}
    return {
        200: {"content": {"application/json": {"schema": schema, "example": {"status": "SERVING", field: serving}}}},
        503: {
            "description": "Not serving: the same body, naming what is not",
            "content": {"application/json": {"schema": schema, "example": {"status": "NOT_SERVING", field: down}}},
        },
    }


_LIVENESS = named("Liveness", {"type": "object", "properties": {"status": {"type": "string"}}})
_SERVICES = {name: "SERVING" for name in ("memory", "observations", "assembler", "agent", "gateway")}


@declared_route(
    router,
    "health.healthz",
    responses={200: {"content": {"application/json": {"schema": _LIVENESS, "example": {"status": "SERVING"}}}}},
    response_model=None,  # the schema is the named one above, not one FastAPI derives from the signature
)
async def healthz() -> dict[str, str]:
    return {"status": "SERVING"}


@declared_route(router, "health.readyz", responses=_states("Readiness", "dependencies", {"postgres": "SERVING"}))
async def readyz(request: Request) -> JSONResponse:
    try:
        await asyncio.wait_for(ping_postgres(request.app.state.container.postgres), timeout=2.0)
    except Exception:  # any failure means "not ready"; the body says which dependency
        return JSONResponse({"status": "NOT_SERVING", "dependencies": {"postgres": "UNREACHABLE"}}, status_code=503)
    return JSONResponse({"status": "SERVING", "dependencies": {"postgres": "SERVING"}})


@declared_route(router, "health.status", responses=_states("SystemStatus", "services", _SERVICES))
async def status(request: Request) -> JSONResponse:
    container = request.app.state.container
    timeout = container.settings.status_timeout_seconds
    names = list(container.channels)
    states = await asyncio.gather(*(serving_status(container.channels[name], timeout=timeout) for name in names))
    services = {"gateway": "SERVING", **dict(zip(names, states, strict=True))}
    overall = "SERVING" if all(state == "SERVING" for state in services.values()) else "NOT_SERVING"
    return JSONResponse({"status": overall, "services": services}, status_code=200 if overall == "SERVING" else 503)
