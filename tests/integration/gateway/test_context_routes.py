"""Context routes on the running services, with real memories, beliefs and working memory:
AssembleContext through the gateway (sections, manifest, access for kept items only, the
mood-switch flag) and Prime in exactly the shape of ARCHITECTURE.md §6."""

from datetime import UTC, datetime, timedelta

from google.protobuf import field_mask_pb2
from lore.memory.v1 import working_memory_service_pb2 as wm
from lore.memory.v1 import working_memory_service_pb2_grpc

from tests.polling import eventually, holds_for

MEMORIES = [
    ("The user prefers Postgres for every new service.", "MEMORY_TYPE_PREFERENCE", ["postgres"]),
    ("The Postgres migration of the billing service is planned for Friday.", "MEMORY_TYPE_FACT", ["postgres"]),
    ("The user's cat is called Miso.", "MEMORY_TYPE_FACT", ["miso"]),
    ("I promised to send the migration checklist before Friday.", "MEMORY_TYPE_COMMITMENT", []),
    # a near-duplicate of the second, said more recently: the assembler keeps this one
    ("The billing service's Postgres migration is planned for Friday.", "MEMORY_TYPE_FACT", ["postgres"]),
]


async def remember(client, user_id: str) -> list[str]:
    days_ago = [3, 2, 40, 1, 0.5]
    response = await client.post(
        "/v1/memories",
        json={
            "memories": [
                {
                    "content": content,
                    "memoryType": memory_type,
                    "scope": {"userId": user_id},
                    "entities": entities,
                    "validAt": (datetime.now(UTC) - timedelta(days=days)).isoformat(),
                    "importance": 0.8,
                }
                for (content, memory_type, entities), days in zip(MEMORIES, days_ago, strict=True)
            ]
        },
    )
    assert response.status_code == 200, response.text
    return [memory["id"] for memory in response.json()["memories"]]


async def set_mood(services, org_id: str, session_id: str, emotion: str) -> None:
    stub = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(services["memory"].channel)
    await stub.UpdateWorkingMemory(
        wm.UpdateWorkingMemoryRequest(
            session_id=session_id,
            working_memory=wm.WorkingMemory(
                summary="Planning the billing migration.",
                emotion_trajectory=[wm.EmotionReading(emotion=emotion, valence=-0.5, intensity=0.7)],
            ),
            update_mask=field_mask_pb2.FieldMask(paths=["summary", "emotion_trajectory"]),
        ),
        metadata=(("x-lore-org-id", org_id), ("x-lore-principal", "test")),
    )


async def test_assemble_context_ranks_budgets_and_explains_every_candidate(client_for, org_id, services):
    client = await client_for(org_id)
    ids = await remember(client, "u-ctx")
    await set_mood(services, org_id, "s-ctx", "frustrated")

    response = await client.post(
        "/v1/context:assemble",
        json={
            "sessionId": "s-ctx",
            "scope": {"userId": "u-ctx"},
            "message": "When is the Postgres migration happening?",
            "options": {"persona": "You are Ada, a careful database consultant.", "personaMode": "consultant"},
        },
    )

    assert response.status_code == 200, response.text
    context = response.json()["context"]
    kinds = [section["kind"] for section in context["sections"]]
    assert kinds[0] == "SECTION_KIND_PERSONA" and "SECTION_KIND_WORKING_SUMMARY" in kinds
    assert "frustrated" in context["text"] and "migration is planned for Friday" in context["text"]
    assert context["totalTokens"] <= context["budgetTokens"] == 1400
    assert all(section["tokens"] <= section["budgetTokens"] for section in context["sections"])
    by_id = {entry["id"]: entry for entry in context["manifest"] if entry["source"] == "CANDIDATE_SOURCE_MEMORY"}
    assert by_id[ids[4]]["outcome"] == "MANIFEST_OUTCOME_KEPT"
    assert by_id[ids[1]]["outcome"] == "MANIFEST_OUTCOME_DUPLICATE" and by_id[ids[1]]["duplicateOf"] == ids[4]
    assert {"similarity", "recency", "importance", "total"} <= by_id[ids[4]]["score"].keys()
    assert context["fingerprint"] and context["firstSession"] is False

    kept = [i for i in ids if i in by_id and by_id[i]["outcome"] == "MANIFEST_OUTCOME_KEPT"]
    dropped = [i for i in ids if i in by_id and by_id[i]["outcome"] != "MANIFEST_OUTCOME_KEPT"]

    async def counts() -> dict[str, int]:
        return {i: (await client.get(f"/v1/memories/{i}")).json()["memory"]["accessCount"] for i in kept + dropped}

    # Uses are counted behind the answer, within LORE_ACCESS_FLUSH_SECONDS; then nothing more arrives.
    await eventually(lambda: _all_kept_counted(counts, kept), timeout=10, what="the kept memories' uses")
    expected = {**dict.fromkeys(kept, 1), **dict.fromkeys(dropped, 0)}

    async def unchanged() -> bool:
        return await counts() == expected

    await holds_for(unchanged, 0.6, "the counts, two flush intervals on")
    assert await counts() == {**dict.fromkeys(kept, 1), **dict.fromkeys(dropped, 0)}

    await set_mood(services, org_id, "s-ctx", "relieved")
    again = await client.post(
        "/v1/context:assemble",
        json={"sessionId": "s-ctx", "scope": {"userId": "u-ctx"}, "message": "And the checklist?"},
    )
    flags = again.json()["context"]["consistencyFlags"]
    assert any(f["aspect"] == "mood" and (f["previous"], f["current"]) == ("frustrated", "relieved") for f in flags)


async def test_a_new_org_gets_the_first_session_preamble(client_for, org_id):
    client = await client_for(org_id)

    response = await client.post("/v1/context:assemble", json={"message": "Hi, I'm new here", "scope": {"userId": "u"}})

    assert response.status_code == 200, response.text
    assert response.json()["context"]["firstSession"] is True
    assert "first conversation" in response.json()["context"]["text"]


async def test_prime_returns_exactly_the_documented_shape(client_for, org_id):
    client = await client_for(org_id)
    await remember(client, "u-prime")

    response = await client.get("/v1/memory/prime", params={"userId": "u-prime", "initialMessage": "How is Miso?"})

    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {
        "recentContext",
        "openThreads",
        "salientFacts",
        "observations",
        "entities",
        "formattedContext",
        "manifest",
    }
    assert body["entities"] == ["miso"]
    assert any("Miso" in fact["text"] for fact in body["salientFacts"])
    assert body["formattedContext"].startswith("What I remember about this user:")


async def test_context_never_crosses_tenants(client_for, org_id):
    owner = await client_for(org_id)
    await remember(owner, "u-shared")
    stranger = await client_for(f"{org_id}-other")

    assembled = await stranger.post(
        "/v1/context:assemble", json={"message": "Postgres migration Friday", "scope": {"userId": "u-shared"}}
    )
    primed = await stranger.get("/v1/memory/prime", params={"userId": "u-shared", "initialMessage": "Miso"})

    assert assembled.status_code == 200 and primed.status_code == 200
    assert "Postgres" not in assembled.text and "Miso" not in primed.text
    assert assembled.json()["context"]["firstSession"] is True


async def test_bad_context_requests_name_the_field(client_for, org_id):
    client = await client_for(org_id)

    empty = await client.post("/v1/context:assemble", json={"message": "  "})
    budget = await client.post(
        "/v1/context:assemble",
        json={"message": "hi", "options": {"sectionBudgets": [{"section": "SECTION_KIND_MEMORIES", "tokens": 99999}]}},
    )
    prime_budget = await client.get("/v1/memory/prime", params={"userId": "u", "budgetTokens": "-5"})

    assert empty.status_code == 400 and empty.json()["error"]["details"][0]["metadata"]["field"] == "message"
    assert budget.status_code == 400
    assert budget.json()["error"]["details"][0]["metadata"]["field"] == "options.sectionBudgets[0].tokens"
    assert prime_budget.status_code == 400
    assert prime_budget.json()["error"]["details"][0]["metadata"]["field"] == "budgetTokens"


async def test_context_routes_need_read_scopes(client_for, org_id):
    client = await client_for(org_id, scopes=("memories:read",))

    response = await client.post("/v1/context:assemble", json={"message": "hi"})

    assert response.status_code == 403


async def _all_kept_counted(counts, kept: list[str]) -> bool:
    found = await counts()
    return all(found[memory_id] >= 1 for memory_id in kept)
