"""A 503 of the gateway's own store says so without the driver's text."""

import json
import logging

from gateway_svc.api.http import errors as gateway_errors
from lore_runtime import errors
from starlette.requests import Request


async def test_the_gateways_own_store_being_down_is_a_503_without_the_drivers_text(caplog):
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], "state": {"request_id": "r-1"}})
    error = errors.DependencyUnavailable(
        "Redis is not reachable: Error 111 connecting to 10.9.8.7:6379.", reason="REDIS_UNAVAILABLE"
    )

    with caplog.at_level(logging.WARNING, logger="gateway_svc.api.http.errors"):
        response = await gateway_errors._lore_error(request, error)

    body = json.loads(response.body)["error"]
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert body["message"] == "the gateway is unavailable; retry later" and body["requestId"] == "r-1"
    assert body["details"][0]["reason"] == "REDIS_UNAVAILABLE"
    assert "10.9.8.7" not in response.body.decode()
    assert any("10.9.8.7" in record.getMessage() for record in caplog.records)
