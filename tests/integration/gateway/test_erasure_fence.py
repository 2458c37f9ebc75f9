"""Erasure wins its race through REST, for the writes the gateway routes straight to the memory and
observations services (real Postgres, Redis, qdrant-edge; the in-process services): while a
ForgetSubject runs, Remember, PATCH, Observe and engagement state naming the user answer 409
SUBJECT_ERASING, another user's writes go through; afterwards the same user writes again and sees
nothing old; engagement hypotheses, evidence lines, findings and unknowns naming the user or citing
the user's erased memories are gone after the erasure and after a purge, and so is everything of the
user in `lore org export`.

The erasure is held open deterministically: the erase job's call that reads the subject's memory
ids (made once the services' fences are up) waits for an event the test sets, never for a sleep."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lore_cli import erasure as erasure_cli
from lore_cli import org_transfer

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.polling import eventually

SOURCE = "survey-7"


class HeldEraser:
    """The erase job's calls to the services, except that reading the subject's memory ids (after the
    fences are up, before the sweep) waits for ``release``; ``entered`` tells the test it got there."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def memory_ids(self, subject):
        self.entered.set()
        await self.release.wait()
        return await self._inner.memory_ids(subject)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


@pytest.fixture
async def held(services) -> AsyncIterator[HeldEraser]:
    container = services["agent"].container
    original = container.erasure
    eraser = HeldEraser(original.eraser)
    container.erasure = dataclasses.replace(original, eraser=eraser)
    try:
        yield eraser
    finally:
        eraser.release.set()
        container.erasure = original


@pytest.fixture
def org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


async def remember(client, user: str, content: str):
    body = {"memories": [{"content": content, "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": user}}]}
    return await client.post("/v1/memories", json=body)


async def observe(client, user: str, slot: str, summary: str):
    body = {
        "agentId": "aria",
        "scope": {"userId": user},
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": user,
            "slot": slot,
            "summary": summary,
            "evidence": [
                {"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": f"turn-{slot}"}
            ],
        },
    }
    return await client.post("/v1/observations:observe", json=body)


async def hypothesis(client, statement: str, *evidence: dict):
    return await client.post("/v1/engagement/hypotheses", json={"statement": statement, "evidence": list(evidence)})


def line(statement: str, source: str = "", weight: float = 1.0) -> dict:
    return {"statement": statement, "stance": "EVIDENCE_STANCE_SUPPORT", "weight": weight, "source": source}


def ok(response) -> dict:
    assert response.status_code == 200, response.text
    return response.json()


def erasing(response) -> None:
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert error["status"] == "ABORTED" and "being erased" in error["message"], error
    assert any(detail.get("reason") == "SUBJECT_ERASING" for detail in error["details"]), error


async def forget(client, user: str) -> dict:
    return ok(await client.post("/v1/subjects:forget", json={"subject": {"userId": user}, "requestId": f"e-{user}"}))


async def completed(client, user: str) -> dict | None:
    job = (await forget(client, user))["job"]
    return job if job["status"] == "ERASURE_STATUS_COMPLETED" else None


async def memories_of(client, user: str) -> list[str]:
    listed = ok(await client.get("/v1/memories", params={"userId": user, "pageSize": 100}))
    return [memory["content"] for memory in listed.get("memories", [])]


async def beliefs_of(client, user: str) -> list[str]:
    found = ok(await client.get("/v1/observations", params={"userId": user}))
    return [belief["summary"] for belief in found.get("observations", [])]


async def engagement(client) -> dict:
    return ok(await client.get("/v1/engagement"))


async def test_direct_writes_for_a_subject_being_erased_are_409_and_the_user_starts_afresh_after(
    client_for, org, held
) -> None:
    client = await client_for(org)
    user, other = "u-leaving", "u-staying"
    (old,) = ok(await remember(client, user, "I live in Porto."))["memories"]
    ok(await observe(client, user, "city", "Lives in Porto."))
    named = ok(await hypothesis(client, "u-leaving learns best in the morning."))["hypothesis"]

    await forget(client, user)
    await asyncio.wait_for(held.entered.wait(), timeout=30)  # the fences are up, the sweep waits

    erasing(await remember(client, user, "I moved to Braga."))
    patch = {"memory": {"importance": 0.9}, "updateMask": "importance"}
    erasing(await client.patch(f"/v1/memories/{old['id']}", json=patch))
    erasing(await observe(client, user, "city", "Lives in Braga."))
    erasing(await hypothesis(client, "Ask u-leaving about mornings again."))
    erasing(await client.post(f"/v1/engagement/hypotheses/{named['id']}/evidence", json={"evidence": line("Seen.")}))
    erasing(
        await client.post("/v1/engagement/unknowns", json={"question": "Why did U-Leaving go?", "whyItMatters": "x"})
    )
    # Another user of the org is not fenced, nor is engagement state that does not name the user.
    ok(await remember(client, other, "I live in Lisbon."))
    ok(await observe(client, other, "city", "Lives in Lisbon."))
    ok(await hypothesis(client, "u-staying learns best at night."))

    held.release.set()
    done = await eventually(lambda: completed(client, user))

    assert done["counts"]["hypotheses"] == 1, done["counts"]
    ok(await remember(client, user, "I'm new here."))
    ok(await observe(client, user, "greeting", "Says hello."))
    ok(await hypothesis(client, "u-leaving came back."))
    assert await memories_of(client, user) == ["I'm new here."]
    assert await beliefs_of(client, user) == ["Says hello."]
    assert await memories_of(client, other) == ["I live in Lisbon."]
    statements = [found["statement"] for found in (await engagement(client))["hypotheses"]]
    assert sorted(statements) == ["u-leaving came back.", "u-staying learns best at night."]


async def test_engagement_naming_the_user_or_citing_their_memories_is_gone_after_erasure_and_purge(
    client_for, org, migrated_pg, services, capsys
) -> None:
    client = await client_for(org)
    user = "u-gone"
    (memory,) = ok(await remember(client, user, "I prefer short lessons."))["memories"]
    ok(await hypothesis(client, "U-Gone prefers short lessons.", line("Said so twice.")))
    mixed = ok(
        await hypothesis(
            client,
            "Short lessons keep learners.",
            line("A learner asked for shorter lessons.", source=memory["id"], weight=3.0),
            line("The survey says so.", source=SOURCE, weight=1.0),
            line("Confirmed by u-gone on the call.", weight=2.0),
        )
    )["hypothesis"]
    cited = ok(await hypothesis(client, "Lessons under ten minutes work.", line("Strong signal.", weight=10.0)))
    promoted = ok(
        await client.post(
            f"/v1/engagement/hypotheses/{cited['hypothesis']['id']}:promote", json={"source": memory["id"]}
        )
    )
    assert promoted["finding"]["source"] == memory["id"]
    ok(await client.post("/v1/engagement/unknowns", json={"question": "What does u-gone need?", "whyItMatters": "x"}))
    kept = ok(await client.post("/v1/engagement/unknowns", json={"question": "Which plan?", "whyItMatters": "y"}))

    await forget(client, user)
    done = await eventually(lambda: completed(client, user))
    env = {
        "LORE_MEMORY_ADDR": services["memory"].address,
        "LORE_OBSERVATIONS_ADDR": services["observations"].address,
        "LORE_MIGRATIONS_DATABASE_URL": migrated_pg.owner_dsn,
        **SERVICE_TOKEN_ENV,
    }

    assert done["counts"]["hypotheses"] == 2 and done["counts"]["findings"] == 1, done["counts"]
    assert done["counts"]["unknowns"] == 1, done["counts"]
    for moment in ("erasure", "purge"):
        state = await engagement(client)
        (left,) = state["hypotheses"]
        assert left["id"] == mixed["id"], moment
        assert [found["statement"] for found in left["evidence"]] == ["The survey says so."], moment
        # The confidence follows the documented rule over the line left: (S + 2·prior) / (S + 2).
        assert left["confidence"] == pytest.approx((1.0 + 2 * 0.5) / (1.0 + 2)), moment
        assert state.get("findings", []) == [] and [u["id"] for u in state["unknowns"]] == [kept["unknown"]["id"]]
        text = await exported(env, org)
        assert "u-gone" not in text.lower() and memory["id"] not in text, moment
        if moment == "erasure":
            assert await erasure_cli.purge(env) == 0, capsys.readouterr().err


async def exported(env: dict[str, str], org: str) -> str:
    """``lore org export`` of the org, as the file it writes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "org.jsonl"
        assert await org_transfer.export_org(env, org=org, output=path) == 0
        text = path.read_text(encoding="utf-8")
    assert json.loads(text.splitlines()[0])["org"] == org
    return text
