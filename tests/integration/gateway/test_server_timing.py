"""Server-Timing tells the services' share of an answer from the gateway's own."""

import re

TIMING = re.compile(r'^upstream;dur=(?P<upstream>[0-9.]+);desc="gRPC", gateway;dur=(?P<gateway>-?[0-9.]+)$')


def _timing(response) -> tuple[float, float]:
    match = TIMING.match(response.headers["server-timing"])
    assert match, response.headers["server-timing"]
    return float(match["upstream"]), float(match["gateway"])


async def test_an_answer_says_how_long_the_services_took_and_how_long_the_gateway_did(client_for, org_id):
    client = await client_for(org_id)
    await client.post("/v1/memories", json={"memories": [{"content": "Ada likes tea.", "scope": {"userId": "u"}}]})

    response = await client.post("/v1/memories:search", json={"query": "tea", "scope": {"userId": "u"}})

    assert response.status_code == 200
    upstream, gateway = _timing(response)
    assert upstream > 0 and gateway >= 0


async def test_an_answer_without_a_service_call_has_no_upstream_time(client_for, org_id):
    client = await client_for(org_id)

    upstream, gateway = _timing(await client.get("/healthz"))

    assert upstream == 0.0 and gateway >= 0


async def test_an_error_answer_is_timed_too(client_for, org_id):
    client = await client_for(org_id)

    response = await client.get("/v1/sessions/00000000-0000-4000-8000-000000000000")

    assert response.status_code == 404
    upstream, _gateway = _timing(response)
    assert upstream > 0
