"""Threads only for what is open, through REST on the real services with no language model: a
statement opens no thread, an unanswered question does, and an answer said in a later session of
the same user closes it for the open-threads route and Prime — never another user's answer, nor
another organisation's."""

from __future__ import annotations

import json
import uuid

from tests.polling import eventually

AGENT = "aria"
QUESTION = "What time does the pharmacy on Elm Street open on Sundays?"
ANSWER = "The pharmacy on Elm Street opens at 10 on Sundays."


async def _conversation(client, user: str, lines: list[str]) -> str:
    session = (await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": AGENT}})).json()
    session_id = session["session"]["id"]
    for index, line in enumerate(lines):
        body = {"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": f"{session_id}-{index}"}}
        answer = await client.post(f"/v1/sessions/{session_id}/turns", json=body)
        assert answer.status_code == 200, answer.text
    ended = await client.post(f"/v1/sessions/{session_id}:end")
    assert ended.status_code == 200, ended.text

    async def episode() -> bool:
        listed = (await client.get("/v1/episodes", params={"userId": user, "pageSize": 50})).json()["episodes"]
        return any(e["conversationId"] == session_id for e in listed)

    await eventually(episode, timeout=60)
    return session_id


async def _open(client, user: str) -> tuple[list[str], str]:
    """The user's open thread topics, and what Prime lists as open."""
    listed = await client.get("/v1/open-threads", params={"userId": user})
    assert listed.status_code == 200, listed.text
    prime = await client.get("/v1/memory/prime", params={"userId": user, "agentId": AGENT})
    assert prime.status_code == 200, prime.text
    return [t["thread"]["topic"] for t in listed.json()["threads"]], json.dumps(prime.json()["openThreads"])


async def test_statements_open_no_thread(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"

    await _conversation(
        client,
        user,
        [
            "I'm allergic to peanuts.",
            "My card number is 4242 4242 4242 4242.",
            "I have to work on Saturday.",
            "My sister Jo lives in Bristol.",
        ],
    )

    assert await _open(client, user) == ([], "[]")


async def test_an_unanswered_question_stays_open_until_a_later_session_answers_it(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    await _conversation(client, user, ["Hi there.", QUESTION])
    topics, primed = await _open(client, user)
    assert topics == [QUESTION] and QUESTION in primed

    await _conversation(client, user, ["Quick update.", ANSWER])

    topics, primed = await _open(client, user)
    assert topics == [] and QUESTION not in primed, primed
    episodes = (await client.get("/v1/episodes", params={"userId": user, "pageSize": 50})).json()["episodes"]
    [closed] = [t for e in episodes for t in e.get("openThreads", []) if t["topic"] == QUESTION]
    assert closed["status"] == "THREAD_STATUS_RESOLVED" and "opens at 10" in closed["resolution"]


async def test_another_users_or_another_orgs_answer_never_closes_my_thread(client_for, org_id):
    client = await client_for(org_id)
    stranger = await client_for(f"org-{uuid.uuid4().hex[:10]}")
    mine, theirs = f"u-{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"
    await _conversation(client, mine, [QUESTION])

    await _conversation(client, theirs, [ANSWER])  # another user of my org
    await _conversation(stranger, mine, [ANSWER])  # my user id, in another org

    topics, primed = await _open(client, mine)
    assert topics == [QUESTION] and QUESTION in primed
    await _conversation(client, mine, [ANSWER])
    assert await _open(client, mine) == ([], "[]")
