"""Through REST: a question about someone the user's memory never mentions gets a context saying
nothing relevant is remembered (the near misses stay in the manifest), while a question about the
people it does mention — the user, the other speaker, someone they spoke of — gets what was said."""

from __future__ import annotations

from tests.integration.gateway.test_who_said_it import converse, turn

NOTHING = "Nothing relevant is remembered about this."
SAID = [
    ("user", "Noor", "I started a pottery class at the community centre on Tuesdays."),
    ("assistant", "Ilse", "My brother Tomas studied marine biology in Aveiro and now tags dolphins."),
    ("user", "Noor", "My greyhound Biscuit sleeps on the sofa all afternoon."),
    ("assistant", "Ilse", "I am training for a half marathon along the river in spring."),
]


async def assembled(client, scope: dict, message: str) -> dict:
    response = await client.post("/v1/context:assemble", json={"scope": scope, "message": message})
    assert response.status_code == 200, response.text
    return response.json()["context"]


async def test_a_question_about_someone_never_mentioned_finds_nothing_relevant(client_for, org_id):
    client = await client_for(org_id)
    scope = {"userId": "u-nobody-named", "agentId": "aria"}
    await converse(client, scope, [turn(role, text, i, who) for i, (role, who, text) in enumerate(SAID)])

    # As close by its other words as a question about Tomas's studies, but about someone else.
    stranger = await assembled(client, scope, "What did Caroline study at university?")

    assert NOTHING in stranger["text"] and "marine biology" not in stranger["text"]
    # The user profile stays up front (the user's own core facts); what is remembered about the
    # question is the memories section, where every memory is a near miss.
    missed = [
        entry
        for entry in stranger["manifest"]
        if entry["source"] == "CANDIDATE_SOURCE_MEMORY" and entry["section"] != "SECTION_KIND_USER_PROFILE"
    ]
    assert missed and all(entry["outcome"] == "MANIFEST_OUTCOME_BELOW_THRESHOLD" for entry in missed)
    assert {entry["reason"] for entry in missed} == {"nothing relevant found: no candidate mentions Caroline"}

    for known, said in [
        ("What did Tomas study at university?", "marine biology"),  # someone they spoke of
        ("What did Ilse's brother study?", "marine biology"),  # the other speaker
        ("How is Noor's pottery class going?", "pottery class"),  # the user
    ]:
        context = await assembled(client, scope, known)
        assert NOTHING not in context["text"] and said in context["text"], (known, context["text"])
