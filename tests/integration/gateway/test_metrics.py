"""/metrics: Prometheus text, counted per route template and status, with no credential and no
tenant in any label."""


async def test_requests_are_counted_per_route_template_without_ids_or_tenants(client_for, org_id):
    client = await client_for(org_id)
    missing = "00000000-0000-4000-8000-000000000000"
    await client.get(f"/v1/sessions/{missing}")
    await client.get(f"/v1/sessions/{missing}")

    page = await client.get("/metrics", headers={"Authorization": ""})

    assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
    line = next(
        line
        for line in page.text.splitlines()
        if line.startswith('lore_gateway_requests_total{method="GET",route="/v1/sessions/{session_id}",status="404"}')
    )
    assert float(line.rsplit(" ", 1)[1]) >= 2
    assert missing not in page.text and org_id not in page.text
    assert "lore_gateway_request_seconds_bucket" in page.text
