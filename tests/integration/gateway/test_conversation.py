"""The agent issue's "done when", through REST with no language model: a conversation posted turn
by turn yields extracted memories, observations with evidence, an episode with open threads when
it ends, and a Prime that mentions them."""

from __future__ import annotations

from tests.polling import eventually

CONVERSATION = (
    "Hi! I'm planning meals for next week.",
    "I'm vegetarian, by the way.",
    "We decided to go with the Mediterranean menu.",
    "I'll send you my shopping list on Friday.",
    "Do you know whether chickpeas freeze well after cooking?",
)


async def test_a_conversation_becomes_memories_beliefs_an_episode_and_a_prime(client_for, org_id):
    client = await client_for(org_id)
    scope = {"userId": "u-conv", "agentId": "aria"}
    session = (await client.post("/v1/sessions", json={"scope": scope})).json()["session"]

    answers = []
    for index, line in enumerate(CONVERSATION):
        answer = await client.post(
            f"/v1/sessions/{session['id']}/turns",
            json={"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": f"m-{index}"}},
        )
        assert answer.status_code == 200, answer.text
        answers.append(answer.json())
    assert [a["turn"]["sequence"] for a in answers] == [1, 2, 3, 4, 5]
    assert all(a["reply"] == "" and "manifest" in a["context"] for a in answers), "no model: context only"

    async def preferences():
        listed = await client.get("/v1/memories", params={"userId": "u-conv", "memoryTypes": "MEMORY_TYPE_PREFERENCE"})
        return listed.json()["memories"]

    async def reflected():
        session_now = (await client.get(f"/v1/sessions/{session['id']}")).json()["session"]
        return session_now["reflectedTurns"] == len(CONVERSATION)

    await eventually(reflected)  # every turn's memories, beliefs and engagement are written
    [preference] = await preferences()
    assert "vegetarian" in preference["content"].lower()

    beliefs = (await client.get("/v1/observations", params={"agentId": "aria", "subjectId": "u-conv"})).json()
    [belief] = [o for o in beliefs["observations"] if "vegetarian" in o["summary"].lower()]
    evidence = (await client.get(f"/v1/observations/{belief['id']}")).json()["observation"]["evidence"]
    assert {e["sourceType"] for e in evidence} >= {"SOURCE_TYPE_MESSAGE", "SOURCE_TYPE_MEMORY_ITEM"}
    assert answers[1]["turn"]["id"] in {e["sourceId"] for e in evidence}

    ended = await client.post(f"/v1/sessions/{session['id']}:end")
    assert ended.json()["session"]["status"] == "SESSION_STATUS_ENDED"

    async def episodes():
        return (await client.get("/v1/episodes", params={"userId": "u-conv"})).json()["episodes"]

    [episode] = await eventually(episodes)
    assert episode["messageCount"] == len(CONVERSATION)
    assert any("chickpeas" in (t["topic"] + t["context"]).lower() for t in episode["openThreads"])

    primed = (await client.get("/v1/memory/prime", params={"userId": "u-conv", "agentId": "aria"})).json()
    text = primed["formattedContext"].lower()
    assert "vegetarian" in text and "chickpeas" in text, primed["formattedContext"]
