"""A change on a single-valued slot replaces the old belief, through REST with no language model:
home, employer, role, partner, diet, a pet's and a child's name, a count, the user's own name
corrected. Afterwards only the new value is a current belief of that slot; the old one is in its
history, superseded."""

from __future__ import annotations

import uuid

import pytest

from tests.polling import eventually

CURRENT = {"OBSERVATION_STATUS_ACTIVE", "OBSERVATION_STATUS_STALE"}

CHANGES = [
    ("home", "I live in Leeds.", "I've just moved to York.", "The user lives in Leeds.", "The user moved to York."),
    ("employer", "I work at Acme.", "I now work at Globex.", "The user works at Acme.", "The user works at Globex."),
    ("role", "I'm a teacher.", "Actually, I'm now a nurse.", "The user is a teacher.", "The user is a nurse."),
    (
        "partner",
        "My partner is called Sam.",
        "My partner's name is Alex, not Sam.",
        "The user's partner is called Sam.",
        "The user's partner is called Alex.",
    ),
    ("diet", "I'm vegetarian.", "I'm vegan now.", "The user is vegetarian.", "The user is vegan."),
    (
        "pet",
        "I have a dog called Rex.",
        "Actually my dog is called Max.",
        "The user's dog is called Rex.",
        "The user's dog is called Max.",
    ),
    (
        "child",
        "My daughter is called Ana.",
        "My daughter's name is Anna, not Ana.",
        "The user's daughter is called Ana.",
        "The user's daughter is called Anna.",
    ),
    (
        "count",
        "I have two kids.",
        "I have three kids now.",
        "The user has two children.",
        "The user has three children.",
    ),
    ("name", "Call me Sam.", "It's Sami, not Sam.", "The user's name is Sam.", "The user's name is Sami."),
]


async def _say(client, session_id: str, lines: list[str]) -> None:
    for index, line in enumerate(lines):
        answer = await client.post(
            f"/v1/sessions/{session_id}/turns",
            json={"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": f"s-{index}"}},
        )
        assert answer.status_code == 200, answer.text

    async def reflected():
        session = (await client.get(f"/v1/sessions/{session_id}")).json()["session"]
        return session["reflectedTurns"] == len(lines)

    await eventually(reflected)


@pytest.mark.parametrize(("slot", "first", "change", "old", "new"), CHANGES, ids=[c[0] for c in CHANGES])
async def test_a_change_on_a_single_valued_slot_leaves_only_the_new_value_current(
    client_for, org_id, slot: str, first: str, change: str, old: str, new: str
) -> None:
    client = await client_for(org_id)
    user = f"u-slot-{uuid.uuid4().hex[:10]}"
    session = (await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": "aria"}})).json()
    await _say(client, session["session"]["id"], [first, change])

    listed = (await client.get("/v1/observations", params={"agentId": "aria", "userId": user})).json()
    current = [o for o in listed["observations"] if o["status"] in CURRENT]
    assert [o["summary"] for o in current] == [new], listed["observations"]
    history = (await client.get(f"/v1/observations/{current[0]['id']}/history")).json()["observations"]
    assert [(o["summary"], o["status"]) for o in history] == [
        (new, "OBSERVATION_STATUS_ACTIVE"),
        (old, "OBSERVATION_STATUS_SUPERSEDED"),
    ], slot
