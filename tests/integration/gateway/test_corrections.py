"""A spoken correction sticks, through REST with no language model: "I'm not vegetarian any more"
supersedes the belief that the user is vegetarian, the memory that said so leaves contexts and
recall (kept for history, status superseded), and the context shows only the new state."""

from __future__ import annotations

from tests.polling import eventually

SCOPE = {"userId": "u-correct", "agentId": "aria"}


async def _say(client, session_id: str, lines: list[str], offset: int) -> None:
    for index, line in enumerate(lines, start=offset):
        answer = await client.post(
            f"/v1/sessions/{session_id}/turns",
            json={"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": f"c-{index}"}},
        )
        assert answer.status_code == 200, answer.text

    async def reflected():
        session = (await client.get(f"/v1/sessions/{session_id}")).json()["session"]
        return session["reflectedTurns"] == offset + len(lines)

    await eventually(reflected)


async def test_a_spoken_denial_supersedes_the_belief_and_the_memory_that_said_it(client_for, org_id):
    client = await client_for(org_id)
    session = (await client.post("/v1/sessions", json={"scope": SCOPE})).json()["session"]
    await _say(client, session["id"], ["I'm vegetarian."], 0)
    await _say(client, session["id"], ["I'm not vegetarian any more."], 1)

    beliefs = (await client.get("/v1/observations", params={"agentId": "aria", "userId": "u-correct"})).json()
    diet = {o["summary"]: o for o in beliefs["observations"] if "vegetarian" in o["summary"].lower()}
    current = [o for o in diet.values() if o["status"] == "OBSERVATION_STATUS_ACTIVE"]
    assert [o["summary"] for o in current] == ["The user is no longer vegetarian."], diet
    history = (await client.get(f"/v1/observations/{current[0]['id']}/history")).json()["observations"]
    assert [o["status"] for o in history] == ["OBSERVATION_STATUS_ACTIVE", "OBSERVATION_STATUS_SUPERSEDED"]
    assert history[1]["summary"] == "The user is vegetarian."

    listed = (await client.get("/v1/memories", params={"scope.userId": "u-correct", "pageSize": 50})).json()
    statuses = {m["content"]: m["status"] for m in listed["memories"] if m["memoryType"] == "MEMORY_TYPE_PREFERENCE"}
    assert statuses == {
        "The user is vegetarian.": "MEMORY_STATUS_SUPERSEDED",
        "The user is no longer vegetarian.": "MEMORY_STATUS_ACTIVE",
    }, statuses

    found = await client.post("/v1/memories:search", json={"query": "is the user vegetarian", "scope": SCOPE, "k": 20})
    assert "The user is vegetarian." not in {r["memory"]["content"] for r in found.json()["results"]}

    context = await client.post(
        "/v1/context:assemble", json={"scope": SCOPE, "message": "What should I cook tonight? Am I vegetarian?"}
    )
    assert context.status_code == 200, context.text
    text = context.json()["context"]["text"]
    assert "no longer vegetarian" in text and "The user is vegetarian." not in text, text
