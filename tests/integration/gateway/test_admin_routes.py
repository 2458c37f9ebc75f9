"""Operator routes: admin scope required, and they act on the caller's organisation only; reindex,
which acts on every org, needs the operator scope instead."""

import uuid

from gateway_svc.domain.credentials import ALL_SCOPES

ALL_SCOPES_BUT_OPERATOR = tuple(scope for scope in ALL_SCOPES if scope != "operator")


async def test_consolidation_and_decay_run_for_the_callers_org_with_the_admin_scope(client_for, org_id):
    admin = await client_for(org_id)
    content = "Priya takes the 7:40 train to Leeds on Mondays."
    for suffix in ("", "!"):
        written = await admin.post(
            "/v1/memories",
            json={
                "memories": [{"content": content + suffix, "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": "p"}}]
            },
        )
        assert written.status_code == 200, written.text
    other_org = await client_for(f"org-{uuid.uuid4().hex[:12]}")
    elsewhere = await other_org.post("/v1/admin/consolidation:run", json={})
    assert elsewhere.status_code == 200 and elsewhere.json()["consolidated"] == 0  # another org sees none of it

    preview = await admin.post("/v1/admin/consolidation:run", json={"scope": {"userId": "p"}, "dryRun": True})
    assert preview.status_code == 200, preview.text
    assert preview.json() == {"examined": 2, "groups": 1, "consolidated": 1, "dryRun": True}
    folded = await admin.post("/v1/admin/consolidation:run")  # an empty body means no options
    assert folded.status_code == 200 and folded.json()["consolidated"] == 1

    decayed = await admin.post("/v1/admin/decay:run")
    assert decayed.status_code == 200 and "computedAt" in decayed.json()


async def test_admin_routes_need_the_admin_scope_and_valid_options(client_for, org_id):
    reader = await client_for(org_id, scopes=("memories:read", "memories:write"))
    refused = await reader.post("/v1/admin/decay:run")
    assert refused.status_code == 403 and refused.json()["error"]["status"] == "PERMISSION_DENIED"

    admin = await client_for(org_id)
    bad = await admin.post("/v1/admin/consolidation:run", json={"threshold": 0.1})
    assert bad.status_code == 400
    assert "threshold" in bad.json()["error"]["message"]


def reindex_calls(services) -> float:
    """Reindex RPCs the memory service answered, whatever their outcome."""
    counter = services["memory"].server.metrics.requests
    return sum(
        sample.value
        for metric in counter.collect()
        for sample in metric.samples
        if sample.name.endswith("_total") and sample.labels["grpc_method"] == "Reindex"
    )


async def test_reindex_acts_on_every_org_so_it_needs_the_operator_scope_which_admin_lacks(client_for, org_id, services):
    before = reindex_calls(services)
    for scopes in (("memories:read", "memories:write"), ("admin",), ALL_SCOPES_BUT_OPERATOR):
        tenant_admin = await client_for(f"org-b-{uuid.uuid4().hex[:8]}", scopes=scopes)
        refused = await tenant_admin.post("/v1/admin/reindex", json={"force": True})
        assert refused.status_code == 403, refused.text
        error = refused.json()["error"]
        assert error["status"] == "PERMISSION_DENIED" and "operator" in error["message"]
        assert error["details"][0]["reason"] == "SCOPE_MISSING"
        assert error["details"][0]["metadata"] == {"scope": "operator"}
    assert reindex_calls(services) == before  # the memory service was never asked: nothing re-embedded

    operator = await client_for(org_id, scopes=("operator",))
    answered = await operator.post("/v1/admin/reindex")  # the model has not changed: nothing to re-embed
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert (body["phase"], body["done"], body["total"]) == ("done", 0, 0)
    assert body["model"] and body["dimension"] > 0
    assert reindex_calls(services) == before + 1
    # operator is for the store: it opens no org route by itself.
    assert (await operator.post("/v1/admin/decay:run")).status_code == 403


async def test_the_job_queue_of_the_callers_org_needs_the_admin_scope(client_for, org_id):
    admin = await client_for(org_id)
    reader = await client_for(org_id, scopes=("sessions:read", "sessions:write"))
    session = (await admin.post("/v1/sessions", json={"scope": {"userId": "u-jobs"}})).json()["session"]
    await admin.post(f"/v1/sessions/{session['id']}/turns", json={"turn": {"content": "I live in Porto."}})

    stats = await admin.get("/v1/admin/jobs")
    refused = await reader.get("/v1/admin/jobs")

    assert stats.status_code == 200, stats.text
    kinds = {kind["kind"]: kind for kind in stats.json()["kinds"]}
    assert set(kinds) == {"reflect", "episode", "erase"}
    assert set(kinds["reflect"]) == {"kind", "queued", "running", "retrying", "dead", "oldestQueuedSeconds"}
    assert kinds["reflect"]["dead"] == 0
    assert refused.status_code == 403


async def test_retrying_dead_jobs_needs_the_admin_scope_and_names_a_bad_kind(client_for, org_id):
    admin = await client_for(org_id)
    reader = await client_for(org_id, scopes=("sessions:read", "sessions:write"))

    retried = await admin.post("/v1/admin/jobs:retry")  # nothing is dead in a new org
    refused = await reader.post("/v1/admin/jobs:retry", json={"kinds": ["reflect"]})
    unknown = await admin.post("/v1/admin/jobs:retry", json={"kinds": ["reflection"]})

    assert retried.status_code == 200 and retried.json() == {"requeued": 0, "skipped": 0}
    assert refused.status_code == 403
    assert unknown.status_code == 400 and "reflection" in unknown.json()["error"]["message"]
