"""Session routes on the running agent service: the proto3 JSON of §6, the path id as the only
id, scopes, and one org never reaching another's sessions."""


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
