"""GET /v1/users/{userId}/profile on the running services: the user's own core facts and beliefs
about them, newest truth only, none of the assistant's or another user's; the same lines lead the
context; a pinned credential reads only its own user; a bad request names its field."""

from __future__ import annotations

import uuid

from gateway_svc.adapters.postgres_key_admin import create_api_key

from tests.integration.gateway.conftest import asgi_client

AGENT = "aria"
SUPPORT = "EVIDENCE_STANCE_SUPPORT"


def memory(user: str, content: str, memory_type: str = "MEMORY_TYPE_FACT", speaker: str = "user") -> dict:
    return {
        "content": content,
        "memoryType": memory_type,
        "scope": {"userId": user, "agentId": AGENT},
        "metadata": {"speaker": speaker},
        "importance": 0.8,
    }


def belief(user: str, slot: str, summary: str) -> dict:
    return {
        "agentId": AGENT,
        "scope": {"userId": user},
        "candidate": {
            "kind": "OBSERVATION_KIND_WORLD_FACT",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": user,
            "slot": slot,
            "summary": summary,
            "evidence": [{"sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": summary, "stance": SUPPORT}],
        },
    }


async def learn(client, user: str, other: str) -> None:
    remembered = await client.post(
        "/v1/memories",
        json={
            "memories": [
                memory(user, "The user keeps two goats named Fennel and Clove."),
                memory(user, "The user works night shifts as a lighthouse keeper."),
                memory(user, "The user loves sea swimming in winter.", "MEMORY_TYPE_PREFERENCE"),
                memory(user, "The user has three grown-up children in Canada.", speaker="assistant"),
                memory(other, "The user lives on a houseboat in Utrecht."),
            ]
        },
    )
    assert remembered.status_code == 200, remembered.text
    for slot, summary in (("home_city", "The user lives in Stromness"), ("home_city", "The user lives in Kirkwall")):
        observed = await client.post("/v1/observations:observe", json=belief(user, slot, summary))
        assert observed.status_code == 200, observed.text


async def test_the_profile_states_the_users_own_facts_and_leads_the_context(client_for, org_id):
    client = await client_for(org_id)
    user, other = f"u-{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"
    await learn(client, user, other)

    response = await client.get(f"/v1/users/{user}/profile", params={"agentId": AGENT})

    assert response.status_code == 200, response.text
    profile = response.json()["profile"]
    texts = [line["text"] for line in profile["lines"]]
    assert "The user keeps two goats named Fennel and Clove." in texts
    assert "The user works night shifts as a lighthouse keeper." in texts
    assert "The user loves sea swimming in winter." in texts
    # Newest truth only: the second belief on the slot superseded the first.
    assert any("Kirkwall" in text for text in texts) and not any("Stromness" in text for text in texts)
    # The assistant's words and another user's facts are not this user's profile.
    assert not any("children" in text or "Utrecht" in text for text in texts)
    kinds = {line["kind"] for line in profile["lines"]}
    assert kinds == {"fact", "preference", "belief"}
    assert all(line["sourceId"] and 0 < line["confidence"] <= 1 and line["updatedAt"] for line in profile["lines"])
    assert profile["text"].count("\n- ") == len(texts) and 0 < profile["tokens"] <= 300

    caller = await client.get(f"/v1/users/{user}/profile", params={"agentId": AGENT, "userProfile": "Goes by Wren."})
    first = caller.json()["profile"]["lines"][0]
    assert (first["text"], first["kind"], first["sourceId"], first["confidence"]) == ("Goes by Wren.", "caller", "", 1)

    context = await client.post(
        "/v1/context:assemble", json={"scope": {"userId": user, "agentId": AGENT}, "message": "Any plans tonight?"}
    )
    assert context.status_code == 200, context.text
    sections = context.json()["context"]["sections"]
    assert sections[0]["kind"] == "SECTION_KIND_USER_PROFILE"
    assert "The user keeps two goats named Fennel and Clove." in sections[0]["text"]

    nobody = await client.get(f"/v1/users/u-{uuid.uuid4().hex[:8]}/profile")
    assert nobody.status_code == 200
    assert (nobody.json()["profile"].get("lines", []), nobody.json()["profile"].get("text", "")) == ([], "")


async def test_a_credential_pinned_to_a_user_reads_only_its_own_profile(client_for, gateway, migrated_pg, org_id):
    client = await client_for(org_id)
    user, other = f"u-{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"
    await learn(client, user, other)
    reads = ["memories:read", "observations:read"]
    _, key = await create_api_key(migrated_pg.owner_dsn, org_id=org_id, principal="app", scopes=reads, user_id=user)
    async with asgi_client(gateway, key) as pinned:
        own = await pinned.get(f"/v1/users/{user}/profile")
        theirs = await pinned.get(f"/v1/users/{other}/profile")

    assert own.status_code == 200 and own.json()["profile"]["lines"]
    assert theirs.status_code == 403
    assert theirs.json()["error"]["details"][0]["reason"] == "USER_PINNED"
    assert "Utrecht" not in theirs.text


async def test_the_profile_needs_both_read_scopes_and_names_a_bad_field(client_for, org_id):
    memories_only = await client_for(org_id, scopes=("memories:read",))
    client = await client_for(org_id)

    refused = await memories_only.get("/v1/users/u-1/profile")
    budget = await client.get("/v1/users/u-1/profile", params={"budgetTokens": "-1"})
    long_text = await client.get("/v1/users/u-1/profile", params={"userProfile": "x" * 4001})
    unknown = await client.get("/v1/users/u-1/profile", params={"limit": "3"})
    # An agent id no belief may name: refused up front, never a 503 from the source behind it.
    agent = await client.get("/v1/users/u-1/profile", params={"agentId": "\U000f0000bot"})

    assert refused.status_code == 403
    checks = ((budget, "budgetTokens"), (long_text, "userProfile"), (unknown, "limit"), (agent, "agentId"))
    for response, field in checks:
        assert response.status_code == 400, response.text
        assert response.json()["error"]["details"][0]["metadata"]["field"] == field
