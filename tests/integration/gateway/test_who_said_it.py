"""Through REST with no language model: when the other side of a conversation — the assistant in the
agent's own session, or another named speaker in an import — states facts about themselves, the
context and Prime name them as the speaker and never hand those facts to the user."""

from __future__ import annotations

import re

from tests.polling import eventually

SAID_AT = "2026-03-09T18:00:00Z"
# What the other side says about themselves, and the word that finds it in a context.
THEIRS = [
    ("My kids and I painted the garden fence blue yesterday.", "fence"),
    ("I work as a night nurse at the harbour hospital.", "nurse"),
    ("My husband Pedro bakes sourdough every Sunday.", "sourdough"),
]
USERS = [
    "I'm thinking about taking up painting again.",
    "I adopted a greyhound called Biscuit last month.",
]
_LABEL = re.compile(r"(The user said:|You said:|[A-Z][a-z]+ said:)")


def owner_of(text: str, word: str, other: str) -> list[str]:
    """For each line of ``text`` holding ``word``: the label said last before it ("" for none), or
    "user" when the sentence holding it speaks of the user (and not of ``other``, the other side,
    nor with a label) before it."""
    found = []
    for line in text.splitlines():
        at = line.find(word)
        if at < 0:
            continue
        before = line[:at]
        labels = _LABEL.findall(before)
        sentence = re.split(r"[.!?]\s", before)[-1]
        theirs = re.search(rf"\b({other}|you)\b", sentence, re.IGNORECASE) or _LABEL.search(sentence)
        if re.search(r"\b(the user|User:|Noor)\b", sentence, re.IGNORECASE) and not theirs:
            found.append("user")
        else:
            found.append(labels[-1] if labels else "")
    return found


async def reflected(client, session_id: str, turns: int) -> None:
    async def done():
        session = (await client.get(f"/v1/sessions/{session_id}")).json()["session"]
        return session["reflectedTurns"] >= turns

    await eventually(done, timeout=60)


async def converse(client, scope: dict, turns: list[dict]) -> None:
    session = (await client.post("/v1/sessions", json={"scope": scope})).json()["session"]
    imported = await client.post(f"/v1/sessions/{session['id']}/turns:import", json={"turns": turns})
    assert imported.status_code == 200, imported.text
    await reflected(client, session["id"], len(turns))
    ended = await client.post(f"/v1/sessions/{session['id']}:end")
    assert ended.status_code == 200, ended.text

    async def summarised():
        listed = await client.get("/v1/episodes", params={"userId": scope["userId"], "pageSize": 10})
        return listed.json().get("episodes")

    await eventually(summarised, timeout=60)


def turn(role: str, content: str, index: int, speaker: str = "") -> dict:
    return {
        "role": f"TURN_ROLE_{role.upper()}",
        "content": content,
        "createdAt": SAID_AT,
        "idempotencyKey": f"who-{index}",
        **({"speaker": speaker} if speaker else {}),
    }


async def read_back(client, scope: dict, message: str) -> tuple[str, str]:
    context = await client.post("/v1/context:assemble", json={"scope": scope, "message": message})
    assert context.status_code == 200, context.text
    primed = await client.get("/v1/memory/prime", params={**scope, "initialMessage": message})
    assert primed.status_code == 200, primed.text
    return context.json()["context"]["text"], primed.json()["formattedContext"]


async def test_the_assistants_own_statements_are_never_the_users(client_for, org_id):
    client = await client_for(org_id)
    scope = {"userId": "u-own-session", "agentId": "aria"}
    lines = [USERS[0], THEIRS[0][0], USERS[1], THEIRS[1][0], "That's great!", THEIRS[2][0]]
    roles = ["user", "assistant"] * 3
    said = enumerate(zip(roles, lines, strict=True))
    await converse(client, scope, [turn(role, text, i) for i, (role, text) in said])

    quoted = []
    for _, word in THEIRS:
        context, primed = await read_back(client, scope, f"Tell me about the {word}.")
        for text in (context, primed):
            owners = owner_of(text, word, "assistant")
            assert "user" not in owners and "The user said:" not in owners, text
        quoted += owner_of(context, word, "assistant")
    assert "You said:" in quoted  # a reply quoted is the assistant's own: the context speaks to it
    context, primed = await read_back(client, scope, "I want to paint again, any ideas?")
    assert "The user said: I'm thinking about taking up painting again." in context + primed
    assert "That's great!" not in context and "That's great!" not in primed  # filler, never placed


async def test_another_named_speakers_statements_are_theirs_in_an_import(client_for, org_id):
    client = await client_for(org_id)
    scope = {"userId": "u-named", "agentId": "aria"}
    speakers = ["Noor", "Ilse"] * 3
    lines = [USERS[0], THEIRS[0][0], USERS[1], THEIRS[1][0], "Wow, love that!", THEIRS[2][0]]
    roles = ["user", "assistant"] * 3
    said = enumerate(zip(roles, lines, speakers, strict=True))
    await converse(client, scope, [turn(role, text, i, who) for i, (role, text, who) in said])

    for _, word in THEIRS:
        for text in await read_back(client, scope, f"Tell me about the {word}."):
            owners = owner_of(text, word, "Ilse|assistant")
            assert "user" not in owners and "Noor said:" not in owners and "The user said:" not in owners, text
            assert "Ilse said:" in owners, text  # named where the line quotes her
    context, primed = await read_back(client, scope, "Noor wants to paint again, any ideas?")
    assert "Noor said: I'm thinking about taking up painting again." in context + primed
    assert "love that" not in context and "love that" not in primed  # small talk, on either side


async def test_a_message_the_user_profile_states_is_not_spent_again_in_what_i_remember(client_for, org_id):
    client = await client_for(org_id)
    scope = {"userId": "u-profile-lines", "agentId": "aria"}
    sister = "My sister Ana lives in Lisbon and we talk on the phone every single evening after dinner."
    said = [("user", sister, "Noor"), ("assistant", "That sounds lovely, give her my best!", "Ilse")]
    await converse(client, scope, [turn(role, text, i, who) for i, (role, text, who) in enumerate(said)])
    listed = await client.get(
        "/v1/memories", params={"userId": "u-profile-lines", "memoryTypes": "MEMORY_TYPE_MESSAGE"}
    )
    [message] = [m["id"] for m in listed.json()["memories"] if "Lisbon" in m["content"]]

    async def answer(question: str) -> dict:
        found = await client.post("/v1/context:assemble", json={"scope": scope, "message": question})
        assert found.status_code == 200, found.text
        return found.json()["context"]

    context = await answer("Where does Noor's sister live?")
    [profile] = [s for s in context["sections"] if s["kind"] == "SECTION_KIND_USER_PROFILE"]
    [line] = [item for item in profile["items"] if "Lisbon" in item["text"]]
    [entry] = [e for e in context["manifest"] if e["id"] == message]
    # The profile states it (learnt from this very turn): the message is not spent a second time.
    assert entry["outcome"] == "MANIFEST_OUTCOME_DUPLICATE" and entry["duplicateOf"] == line["id"], entry
    assert sister not in context["text"], context["text"]

    # Asked about what only the message says, its own words are placed.
    asked = await answer("When does Noor talk to Ana on the phone?")
    assert f"Noor said: {sister}" in asked["text"], asked["text"]
