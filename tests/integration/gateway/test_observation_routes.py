"""Observation and engagement routes on the running services: the proto3 JSON of §6, the
path id as the only id, scopes, and one org never reaching another's beliefs."""

import uuid

from lore_runtime.redaction import Redactor

OBSERVE = {
    "agentId": "agent-1",
    "candidate": {
        "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
        "subjectType": "SUBJECT_TYPE_ENTITY",
        "subjectId": "user-42",
        "slot": "database",
        "summary": "Prefers Postgres for new services.",
        "evidence": [{"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "t-1"}],
    },
}


async def test_observe_then_read_query_search_confirm_contradict_and_history(client_for, org_id):
    client = await client_for(org_id)
    created = await client.post("/v1/observations:observe", json=OBSERVE)
    assert created.status_code == 200, created.text
    body = created.json()
    assert body["outcome"] == "OBSERVE_OUTCOME_CREATED"
    observation_id = body["observation"]["id"]
    assert body["observation"]["canonicalKey"] == "entity:user-42:operator_preference:database"

    one = await client.get(f"/v1/observations/{observation_id}")
    assert one.status_code == 200 and one.json()["observation"]["evidence"][0]["sourceId"] == "t-1"
    listed = await client.get(
        "/v1/observations",
        params={"subjectId": "user-42", "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE", "agentId": "agent-1"},
    )
    assert listed.status_code == 200, listed.text
    assert [o["id"] for o in listed.json()["observations"]] == [observation_id]
    found = await client.post("/v1/observations:search", json={"agentId": "agent-1", "query": "Postgres", "k": 3})
    assert found.status_code == 200, found.text
    assert observation_id in str(found.json())

    confirmed = await client.post(f"/v1/observations/{observation_id}:confirm", json={"note": "said so on the call"})
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["observation"]["confidence"] > body["observation"]["confidence"]
    mismatch = await client.post(f"/v1/observations/{observation_id}:confirm", json={"id": str(uuid.uuid4())})
    assert mismatch.status_code == 400 and "id" in mismatch.json()["error"]["message"]

    contradicted = await client.post(
        f"/v1/observations/{observation_id}:contradict",
        json={
            "evidence": {"stance": "EVIDENCE_STANCE_CONTRADICT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "t-9"}
        },
    )
    assert contradicted.status_code == 200, contradicted.text
    history = await client.get(f"/v1/observations/{observation_id}/history")
    assert history.status_code == 200 and observation_id in [o["id"] for o in history.json()["observations"]]


async def test_observation_routes_refuse_bad_input_and_other_orgs(client_for, org_id):
    client = await client_for(org_id)
    created = (await client.post("/v1/observations:observe", json=OBSERVE)).json()["observation"]
    bad = await client.post(
        "/v1/observations:observe", json={**OBSERVE, "candidate": {**OBSERVE["candidate"], "summary": ""}}
    )
    assert bad.status_code == 400 and "summary" in bad.json()["error"]["message"]

    stranger = await client_for(f"org-{uuid.uuid4().hex[:12]}")
    assert (await stranger.get(f"/v1/observations/{created['id']}")).status_code == 404
    assert (await stranger.post(f"/v1/observations/{created['id']}:confirm")).status_code == 404
    assert (await stranger.get("/v1/observations", params={"subjectId": "user-42"})).json()["observations"] == []

    reader = await client_for(org_id, scopes=("observations:read",))
    assert (await reader.post("/v1/observations:observe", json=OBSERVE)).status_code == 403
    assert (await reader.post("/v1/admin/revalidation:run")).status_code == 403
    revalidated = await client.post("/v1/admin/revalidation:run")
    assert revalidated.status_code == 200, revalidated.text


async def test_engagement_has_the_shape_of_section_6_and_reading_writes_nothing(client_for, org_id):
    client = await client_for(org_id)
    for _ in range(2):
        empty = await client.get("/v1/engagement")
        assert empty.status_code == 200
        assert empty.json() == {"weekNumber": 1, "firstSession": True, "hypotheses": [], "unknowns": [], "findings": []}

    formed = await client.post(
        "/v1/engagement/hypotheses",
        json={
            "statement": "Churn comes from onboarding.",
            "evidence": [{"statement": "Most cancellations happen in week 1.", "stance": "EVIDENCE_STANCE_SUPPORT"}],
        },
    )
    assert formed.status_code == 200, formed.text
    hypothesis_id = formed.json()["hypothesis"]["id"]
    unsourced = await client.post(
        f"/v1/engagement/hypotheses/{hypothesis_id}/evidence",
        json={"evidence": {"statement": "Churn is 42%.", "stance": "EVIDENCE_STANCE_SUPPORT"}},
    )
    assert unsourced.status_code == 400 and "evidence.source" in unsourced.json()["error"]["message"]
    blocked = await client.post(f"/v1/engagement/hypotheses/{hypothesis_id}:promote")
    assert blocked.status_code == 400 and blocked.json()["error"]["status"] == "FAILED_PRECONDITION"
    revised = await client.post(
        f"/v1/engagement/hypotheses/{hypothesis_id}:revise", json={"confidence": 0.9, "reason": "cohort study"}
    )
    assert revised.status_code == 200, revised.text
    promoted = await client.post(
        f"/v1/engagement/hypotheses/{hypothesis_id}:promote", json={"source": "cohort study 2026-11"}
    )
    assert promoted.status_code == 200, promoted.text

    unknown = await client.post(
        "/v1/engagement/unknowns", json={"question": "Which plan churns most?", "whyItMatters": "Where to act."}
    )
    unknown_id = unknown.json()["unknown"]["id"]
    archived_without_note = await client.post(f"/v1/engagement/hypotheses/{hypothesis_id}:archive", json={})
    assert archived_without_note.status_code == 400
    resolved = await client.post(f"/v1/engagement/unknowns/{unknown_id}:resolve", json={"resolution": "Starter."})
    assert resolved.status_code == 200, resolved.text
    week = await client.post("/v1/engagement:advanceWeek")
    assert week.status_code == 200 and week.json() == {"weekNumber": 2}

    state = (await client.get("/v1/engagement")).json()
    assert state["weekNumber"] == 2 and state["firstSession"] is False
    hypothesis = state["hypotheses"][0]
    assert {"id", "statement", "confidence", "evidence", "status"} <= hypothesis.keys()
    assert hypothesis["status"] == "HYPOTHESIS_STATUS_PROMOTED"
    assert {"question", "whyItMatters", "id", "status"} <= state["unknowns"][0].keys()
    finding = state["findings"][0]
    assert finding["statement"] == "Churn comes from onboarding."
    assert finding["source"] == "cohort study 2026-11" and "recordedAt" in finding

    stranger = await client_for(f"org-{uuid.uuid4().hex[:12]}")
    assert (await stranger.get("/v1/engagement")).json()["firstSession"] is True
    foreign = await stranger.post(f"/v1/engagement/hypotheses/{hypothesis_id}:archive", json={"note": "x"})
    assert foreign.status_code == 404


# Shaped like an API key, in a slot's alphabet; none of test_secrets' raw secrets inside (that test
# reads every text column of the shared database).
KEY_SHAPED_SLOT = "key-a7f3c9e1b5d2f8a4c6e0b9d3f7a1c5e8"


async def test_a_card_number_written_into_a_slot_is_refused_not_kept(client_for, org_id):
    """A slot is a label: a key-shaped one is kept as sent, and one holding a card number is refused
    naming the field (redaction replaces the number, and the placeholder breaks the slot's alphabet)."""
    assert Redactor()(KEY_SHAPED_SLOT) != KEY_SHAPED_SLOT  # the whole redactor would take it for a key
    client = await client_for(org_id)
    labelled = {**OBSERVE, "candidate": {**OBSERVE["candidate"], "slot": KEY_SHAPED_SLOT}}
    kept = await client.post("/v1/observations:observe", json=labelled)
    assert kept.status_code == 200, kept.text
    assert kept.json()["observation"]["slot"] == KEY_SHAPED_SLOT
    carded = {**OBSERVE, "candidate": {**OBSERVE["candidate"], "slot": "card-4111-1111-1111-1111"}}
    refused = await client.post("/v1/observations:observe", json=carded)
    assert refused.status_code == 400, refused.text
    assert "slot" in refused.json()["error"]["message"] and "1111-1111" not in refused.text
    listed = await client.get("/v1/observations", params={"subjectId": "user-42", "agentId": "agent-1"})
    assert "4111" not in listed.text and "1111-1111" not in listed.text
