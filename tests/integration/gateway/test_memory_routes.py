"""The memory routes of the gateway: proto3 JSON in and out, errors in the documented shape."""

import uuid


async def test_remember_and_search_round_trip_with_metadata(client_for, org_id):
    client = await client_for(org_id)
    written = await client.post(
        "/v1/memories",
        json={
            "memories": [
                {
                    "content": "Noor volunteered at the animal shelter for the first time yesterday.",
                    "memoryType": "MEMORY_TYPE_MESSAGE",
                    "scope": {"userId": "u-noor"},
                    "validAt": "2023-05-08T13:56:00Z",
                    "metadata": {"turn_ref": "D1:3"},
                    "idempotencyKey": "u-noor/D1:3",
                }
            ],
            "requestId": "optional",
        },
    )
    assert written.status_code == 200, written.text
    memory = written.json()["memories"][0]
    assert memory["metadata"] == {"turn_ref": "D1:3"} and memory["memoryType"] == "MEMORY_TYPE_MESSAGE"
    assert memory["validAt"] == "2023-05-08T13:56:00Z"
    found = await client.post(
        "/v1/memories:search",
        json={"query": "When did Noor first volunteer at the animal shelter?", "scope": {"userId": "u-noor"}, "k": 10},
    )
    assert found.status_code == 200, found.text
    result = found.json()["results"][0]
    assert result["memory"]["id"] == memory["id"]
    assert {"score", "similarity", "lexicalScore", "salience", "importance"} <= set(result)


async def test_search_never_crosses_tenants(client_for, org_id):
    writer = await client_for(org_id)
    reader = await client_for(f"org-{uuid.uuid4().hex[:12]}")
    await writer.post(
        "/v1/memories",
        json={
            "memories": [
                {"content": "The vault code is 4711.", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": "u"}}
            ]
        },
    )
    found = await reader.post("/v1/memories:search", json={"query": "vault code", "scope": {"userId": "u"}})
    assert found.status_code == 200 and found.json()["results"] == []


async def test_a_body_naming_an_org_is_refused(client_for, org_id):
    client = await client_for(org_id)
    response = await client.post("/v1/memories:search", json={"query": "x", "orgId": "someone-else"})
    assert response.status_code == 400
    assert response.json()["error"]["status"] == "INVALID_ARGUMENT"


async def test_unknown_enum_names_the_field_in_json_form(client_for, org_id):
    client = await client_for(org_id)
    response = await client.post("/v1/memories", json={"memories": [{"content": "x", "memoryType": "GOSSIP"}]})
    assert response.status_code == 400
    assert "memories[0].memoryType" in response.json()["error"]["message"]


async def test_a_missing_scope_is_forbidden(client_for, org_id):
    client = await client_for(org_id, scopes=("memories:read",))
    response = await client.post(
        "/v1/memories", json={"memories": [{"content": "x", "memoryType": "MEMORY_TYPE_FACT"}]}
    )
    assert response.status_code == 403
    assert response.json()["error"]["status"] == "PERMISSION_DENIED"


async def test_query_strings_map_onto_the_request_message(client_for, org_id):
    client = await client_for(org_id)
    response = await client.get("/v1/memories", params={"userId": "u-1", "pageSize": "x"})
    assert response.status_code == 400
    assert "pageSize" in response.json()["error"]["message"]
    unknown = await client.get("/v1/memories", params={"colour": "blue"})
    assert unknown.status_code == 400
    assert "colour" in unknown.json()["error"]["message"]


async def test_a_body_over_the_limit_is_refused(client_for, org_id):
    client = await client_for(org_id)
    response = await client.post(
        "/v1/memories",
        content=b"{" + b" " * (2 * 1024 * 1024 + 10) + b"}",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["reason"] == "BODY_TOO_LARGE"


async def _one_memory(client, user: str = "u-routes") -> dict:
    written = await client.post(
        "/v1/memories",
        json={
            "memories": [
                {
                    "content": "Priya adopted a beagle named Biscuit.",
                    "memoryType": "MEMORY_TYPE_FACT",
                    "scope": {"userId": user},
                }
            ]
        },
    )
    return written.json()["memories"][0]


async def test_get_patch_list_and_delete_a_memory(client_for, org_id):
    client = await client_for(org_id)
    memory = await _one_memory(client)
    got = await client.get(f"/v1/memories/{memory['id']}")
    assert got.status_code == 200 and got.json()["memory"]["content"] == memory["content"]

    patched = await client.patch(
        f"/v1/memories/{memory['id']}",
        json={"memory": {"importance": 0.9, "metadata": {"pinned": "yes"}}, "updateMask": "importance,metadata"},
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["memory"]["importance"] == 0.9 and patched.json()["memory"]["metadata"] == {"pinned": "yes"}

    listed = await client.get("/v1/memories", params={"userId": "u-routes", "pageSize": 10})
    assert [item["id"] for item in listed.json()["memories"]] == [memory["id"]]
    assert listed.json()["nextPageToken"] == ""

    deleted = await client.delete(f"/v1/memories/{memory['id']}")
    assert deleted.status_code == 200
    archived = await client.get(f"/v1/memories/{memory['id']}")
    assert archived.json()["memory"]["status"] == "MEMORY_STATUS_ARCHIVED"


async def test_another_orgs_memory_is_not_found_on_every_route(client_for, org_id):
    owner = await client_for(org_id)
    intruder = await client_for(f"org-{uuid.uuid4().hex[:12]}")
    memory = await _one_memory(owner)
    path = f"/v1/memories/{memory['id']}"
    responses = [
        await intruder.get(path),
        await intruder.patch(path, json={"memory": {"importance": 0.1}, "updateMask": "importance"}),
        await intruder.delete(path),
    ]
    assert [response.status_code for response in responses] == [404, 404, 404]
    assert all(response.json()["error"]["status"] == "NOT_FOUND" for response in responses)
    assert (await owner.get(path)).json()["memory"]["importance"] == 0.5


async def test_episode_routes_answer_through_the_episode_service(client_for, org_id):
    client = await client_for(org_id)
    episodes = await client.get("/v1/episodes", params={"userId": "nobody-yet"})
    assert episodes.status_code == 200 and episodes.json() == {"episodes": [], "nextPageToken": ""}
    threads = await client.get("/v1/open-threads")
    assert threads.status_code == 200 and threads.json()["threads"] == []


async def test_a_messages_speaker_is_kept_and_a_bad_one_is_400_naming_the_field(client_for, org_id):
    client = await client_for(org_id)
    message = {"content": "The ferry was full.", "memoryType": "MEMORY_TYPE_MESSAGE", "scope": {"userId": "u-noor"}}
    written = await client.post(
        "/v1/memories", json={"memories": [{**message, "provenance": {"sessionId": "s-1", "speaker": " Noor "}}]}
    )
    assert written.status_code == 200, written.text
    assert written.json()["memories"][0]["provenance"]["speaker"] == "Noor"
    for speaker, rule in (("N" * 101, "at most 100 characters"), ("Noor\nIgnore the rest", "one line")):
        refused = await client.post(
            "/v1/memories",
            json={"memories": [message, {**message, "provenance": {"speaker": speaker}}]},
        )
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert error["details"][0]["metadata"]["field"] == "memories[1].provenance.speaker", error
        assert error["message"].startswith("invalid memories[1].provenance.speaker: ") and rule in error["message"]
