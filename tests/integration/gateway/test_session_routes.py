"""Session routes on the running agent service: the proto3 JSON of §6, the path id as the only
id, scopes, and one org never reaching another's sessions; a start that returns its Prime, and the
caller's own reply (role ``assistant``) through the turn route."""

from tests.polling import eventually


async def test_start_get_list_end_and_read_the_transcript(client_for, org_id):
    client = await client_for(org_id)
    started = await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}, "requestId": "r-1"})
    assert started.status_code == 200, started.text
    session = started.json()["session"]
    assert session["status"] == "SESSION_STATUS_ACTIVE" and session["scope"]["userId"] == "u-1"
    again = await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}, "requestId": "r-1"})
    assert again.json()["session"]["id"] == session["id"]

    got = await client.get(f"/v1/sessions/{session['id']}")
    listed = await client.get("/v1/sessions", params={"userId": "u-1"})
    turns = await client.get(f"/v1/sessions/{session['id']}/turns")
    ended = await client.post(f"/v1/sessions/{session['id']}:end")

    assert got.status_code == 200 and got.json()["session"]["id"] == session["id"]
    assert [s["id"] for s in listed.json()["sessions"]] == [session["id"]]
    assert turns.status_code == 200 and turns.json() == {"turns": [], "nextPageToken": ""}
    assert ended.status_code == 200 and ended.json()["session"]["status"] == "SESSION_STATUS_ENDED"


async def test_import_turns_through_rest(client_for, org_id):
    client = await client_for(org_id)
    session = (await client.post("/v1/sessions", json={"scope": {"userId": "u-rest"}})).json()["session"]
    body = {
        "turns": [
            {"role": "TURN_ROLE_USER", "content": "I moved to Lisbon in May.", "createdAt": "2023-05-08T13:56:00Z"},
            {"role": "TURN_ROLE_ASSISTANT", "content": "How is it going?", "createdAt": "2023-05-08T13:57:00Z"},
        ]
    }

    imported = await client.post(f"/v1/sessions/{session['id']}/turns:import", json=body)
    again = await client.post(f"/v1/sessions/{session['id']}/turns:import", json=body)
    found = await client.post("/v1/memories:search", json={"query": "Lisbon", "scope": {"userId": "u-rest"}})

    assert imported.status_code == 200, imported.text
    assert imported.json() == {"imported": 2, "skipped": 0} and again.json() == {"imported": 0, "skipped": 2}
    [hit, *_] = found.json()["results"]
    assert hit["memory"]["content"] == "I moved to Lisbon in May." and hit["memory"]["validAt"].startswith("2023-05-08")
    primed = await client.get(
        "/v1/memory/prime", params={"userId": "u-rest", "initialMessage": "Any news from Lisbon?"}
    )
    assert "I moved to Lisbon in May." in primed.json()["formattedContext"], "imported messages have no entities"


async def test_another_orgs_session_is_not_found_and_scopes_are_checked(client_for, org_id):
    owner = await client_for(org_id)
    session = (await owner.post("/v1/sessions", json={"scope": {"userId": "u-1"}})).json()["session"]
    stranger = await client_for(f"{org_id}-other")
    reader = await client_for(org_id, scopes=("sessions:read",))

    for response in (
        await stranger.get(f"/v1/sessions/{session['id']}"),
        await stranger.post(f"/v1/sessions/{session['id']}:end"),
        await stranger.get(f"/v1/sessions/{session['id']}/turns"),
    ):
        assert response.status_code == 404, response.text
    assert (await stranger.get("/v1/sessions")).json()["sessions"] == []
    assert (await reader.post("/v1/sessions", json={})).status_code == 403
    mismatch = await owner.post(f"/v1/sessions/{session['id']}:end", json={"id": "another"})
    assert mismatch.status_code == 400 and "id" in mismatch.json()["error"]["message"]


async def test_start_a_session_with_its_prime_in_camel_case_of_that_user_only(client_for, org_id):
    client = await client_for(org_id)
    for user, line in (
        ("u-ana", "Ana keeps bees on her rooftop (ibis-mark)."),
        ("u-bo", "Bo keeps bees (okapi-mark)."),
    ):
        memory = {"content": line, "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": user}, "importance": 0.9}
        assert (await client.post("/v1/memories", json={"memories": [memory]})).status_code == 200

    started = await client.post(
        "/v1/sessions",
        json={"scope": {"userId": "u-ana"}, "requestId": "r-ana", "initialMessage": "How are my bees doing?"},
    )
    asked = await client.post("/v1/sessions", json={"scope": {"userId": "u-ana"}, "includePrime": True})
    plain = await client.post("/v1/sessions", json={"scope": {"userId": "u-ana"}})

    assert started.status_code == 200, started.text
    body = started.json()
    assert body["primeUnavailable"] is False and "ibis-mark" in body["prime"]["formattedContext"]
    assert "okapi-mark" not in started.text and "ibis-mark" in asked.json()["prime"]["formattedContext"]
    assert "prime" not in plain.json() and plain.json()["primeUnavailable"] is False


async def test_bad_start_input_is_a_400_naming_the_field_in_camel_case(client_for, org_id):
    client = await client_for(org_id)
    await client.post("/v1/sessions", json={"scope": {"userId": "u-bo"}, "requestId": "r-bo"})

    too_long = await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}, "initialMessage": "x" * 4_001})
    not_bool = await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}, "includePrime": "yes"})
    reused = await client.post("/v1/sessions", json={"scope": {"userId": "u-ana"}, "requestId": "r-bo"})

    for response, field in ((too_long, "initialMessage"), (not_bool, "includePrime")):
        assert response.status_code == 400, response.text
        assert field in response.json()["error"]["message"], response.text
    assert reused.status_code == 409 and reused.json()["error"]["details"][0]["reason"] == "REQUEST_ID_REUSED"
    assert reused.json()["error"]["details"][0]["metadata"]["field"] == "requestId"
    listed = (await client.get("/v1/sessions")).json()["sessions"]
    assert [s["scope"]["userId"] for s in listed] == ["u-bo"], "nothing started by a refused request"


async def test_the_callers_reply_through_rest_is_stored_once_with_no_context_and_reflected(client_for, org_id):
    client = await client_for(org_id)
    session = (await client.post("/v1/sessions", json={"scope": {"userId": "u-reply"}})).json()["session"]
    turns = f"/v1/sessions/{session['id']}/turns"
    asked = {"turn": {"role": "user", "content": "Can you draft the proposal?", "idempotencyKey": "u-1"}}
    reply = {"turn": {"role": "assistant", "content": "I'll send you the draft by Friday.", "idempotencyKey": "a-1"}}

    assert (await client.post(turns, json=asked)).status_code == 200
    answered = await client.post(turns, json=reply)
    again = await client.post(turns, json=reply)
    system = await client.post(turns, json={"turn": {"role": "system", "content": "Be brief."}})
    tool = await client.post(turns, json={"turn": {"role": "TURN_ROLE_TOOL", "content": "{}"}})

    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert body["turn"]["role"] == "TURN_ROLE_ASSISTANT" and body["turn"]["sequence"] == 2
    assert "context" not in body and body["reply"] == "" and again.json() == body
    for refused in (system, tool):
        assert refused.status_code == 400 and "turn.role" in refused.json()["error"]["message"], refused.text
    listed = (await client.get(turns)).json()["turns"]
    assert [t["role"] for t in listed] == ["TURN_ROLE_USER", "TURN_ROLE_ASSISTANT"]

    async def commitments():
        params = {"userId": "u-reply", "memoryTypes": "MEMORY_TYPE_COMMITMENT"}
        return (await client.get("/v1/memories", params=params)).json()["memories"]

    [commitment] = await eventually(commitments, 60, "the reply was never reflected")
    assert "draft" in commitment["content"] and commitment["provenance"]["turnIds"] == [body["turn"]["id"]]
