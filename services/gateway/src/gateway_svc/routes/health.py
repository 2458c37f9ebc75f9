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

router = APIRouter(tags=["health"])


def _not_serving(field: str) -> dict[int | str, dict]:
    """OpenAPI of the 503 a health route answers with its own body (not the error shape)."""
    states = {"type": "object", "additionalProperties": {"type": "string"}}
    schema = {"type": "object", "properties": {"status": {"type": "string"}, field: states}}
    return {
        503: {
            "description": "Not serving: the same body, naming what is not",
            "content": {"application/json": {"schema": schema}},
        }
    }


@router.get("/healthz", summary="The gateway process is alive")
async def healthz() -> dict[str, str]:
    return {"status": "SERVING"}


@router.get("/readyz", summary="The gateway's own dependencies answer", responses=_not_serving("dependencies"))
async def readyz(request: Request) -> JSONResponse:
    try:
        await asyncio.wait_for(ping_postgres(request.app.state.container.postgres), timeout=2.0)
    except Exception:  # any failure means "not ready"; the body says which dependency
        return JSONResponse({"status": "NOT_SERVING", "dependencies": {"postgres": "UNREACHABLE"}}, status_code=503)
    return JSONResponse({"status": "SERVING", "dependencies": {"postgres": "SERVING"}})


@router.get("/v1/status", summary="Health of every Lore service", responses=_not_serving("services"))
async def status(request: Request) -> JSONResponse:
    container = request.app.state.container
    timeout = container.settings.status_timeout_seconds
    names = list(container.channels)
    states = await asyncio.gather(*(serving_status(container.channels[name], timeout=timeout) for name in names))
    services = {"gateway": "SERVING", **dict(zip(names, states, strict=True))}
    overall = "SERVING" if all(state == "SERVING" for state in services.values()) else "NOT_SERVING"
    return JSONResponse({"status": overall, "services": services}, status_code=200 if overall == "SERVING" else 503)
