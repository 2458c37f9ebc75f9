"""Erasure through REST: ``POST /v1/subjects:forget`` maps to AgentService.ForgetSubject with the
proto3 JSON of §6, refuses a bad subject naming the field, and needs the ``subjects:forget`` scope
(or ``admin``)."""

from tests.polling import eventually


async def test_forget_a_subject_through_rest_until_it_completes(client_for, org_id):
    client = await client_for(org_id)
    session = (await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}})).json()["session"]
    body = {"subject": {"userId": "u-1"}, "requestId": "erase-u-1"}

    started = await client.post("/v1/subjects:forget", json=body)
    assert started.status_code == 200, started.text
    job = started.json()["job"]
    assert job["id"] and job["status"] in (
        "ERASURE_STATUS_PENDING",
        "ERASURE_STATUS_RUNNING",
        "ERASURE_STATUS_COMPLETED",
    )

    async def completed() -> dict | None:
        again = (await client.post("/v1/subjects:forget", json=body)).json()["job"]
        return again if again["status"] == "ERASURE_STATUS_COMPLETED" else None

    again = await eventually(completed, what="the erasure job completed")
    assert again["id"] == job["id"] and again["status"] == "ERASURE_STATUS_COMPLETED", again
    assert again["counts"]["sessions"] == 1 and again["completedAt"]
    assert (await client.get(f"/v1/sessions/{session['id']}")).status_code == 404


async def test_an_empty_subject_is_a_400_naming_the_field(client_for, org_id):
    client = await client_for(org_id)

    empty = await client.post("/v1/subjects:forget", json={"subject": {}})
    unknown = await client.post("/v1/subjects:forget", json={"subject": {"userName": "u-1"}})

    assert empty.status_code == 400, empty.text
    error = empty.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT" and "subject" in error["message"], error
    assert unknown.status_code == 400


async def test_forgetting_needs_the_subjects_forget_scope(client_for, org_id):
    reader = await client_for(org_id, scopes=("sessions:read", "sessions:write", "memories:write"))
    eraser = await client_for(org_id, scopes=("subjects:forget",))
    admin = await client_for(org_id, scopes=("admin",))
    body = {"subject": {"userId": "u-2"}}

    refused = await reader.post("/v1/subjects:forget", json=body)

    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["status"] == "PERMISSION_DENIED" and "subjects:forget" in refused.text
    assert (await eraser.post("/v1/subjects:forget", json=body)).status_code == 200
    assert (await admin.post("/v1/subjects:forget", json=body)).status_code == 200
