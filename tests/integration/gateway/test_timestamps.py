"""One timestamp rule on every route that takes a time (lore_runtime.timestamps).

A memory's ``validAt``, a turn's ``createdAt``, a tool's ``occurredAt`` and the bounds of a filter lie
between 1900-01-01T00:00:00Z and 2999-12-31T23:59:59Z; evidence ``observedAt`` between
1900-01-01T00:00:00Z and now plus five minutes of clock skew. Anything else is a 400 naming the field
and the range, before anything is written: a year-1 ``validAt`` once answered 200, was stored
unpadded and broke the org's listings for good; a year-9999 ``observedAt`` was a 500.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from lore_migrations import discover

CALENDAR = "must be between 1900-01-01T00:00:00Z and 2999-12-31T23:59:59Z"
OBSERVED = "must be between 1900-01-01T00:00:00Z and now (plus 5 minutes of clock skew)"
OUTSIDE_THE_CALENDAR = ["0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "3000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]
FACT = "MEMORY_TYPE_FACT"
EVIDENCE = {"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "t-1"}


def _in_an_hour() -> str:
    return (datetime.now(UTC) + timedelta(hours=1)).isoformat().replace("+00:00", "Z")


def _refused(response, field: str, rule: str) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["message"] == f"invalid {field}: {rule}", error
    assert error["details"][0]["metadata"]["field"] == field


async def _session(client) -> str:
    created = await client.post("/v1/sessions", json={"scope": {"userId": f"u-{uuid.uuid4().hex[:8]}"}})
    assert created.status_code == 200, created.text
    return created.json()["session"]["id"]


async def _memory(client, **fields) -> dict:
    body = {"memories": [{"content": "Planned launch.", "memoryType": FACT, "scope": {"userId": "u-ts"}, **fields}]}
    written = await client.post("/v1/memories", json=body)
    assert written.status_code == 200, written.text
    return written.json()["memories"][0]


@pytest.mark.parametrize("value", OUTSIDE_THE_CALENDAR)
async def test_remember_refuses_a_valid_at_outside_the_calendar_and_writes_nothing(client_for, org_id, value):
    client = await client_for(org_id)
    good = {"content": "Fine.", "memoryType": FACT, "scope": {"userId": "u-ts"}}
    bad = {"content": "Too old or too late.", "memoryType": FACT, "scope": {"userId": "u-ts"}, "validAt": value}
    _refused(await client.post("/v1/memories", json={"memories": [good, bad]}), "memories[1].validAt", CALENDAR)
    listed = await client.get("/v1/memories", params={"userId": "u-ts"})
    assert listed.status_code == 200 and listed.json()["memories"] == []


@pytest.mark.parametrize("value", OUTSIDE_THE_CALENDAR)
async def test_patch_refuses_a_valid_at_outside_the_calendar(client_for, org_id, value):
    client = await client_for(org_id)
    memory = await _memory(client)
    patched = await client.patch(
        f"/v1/memories/{memory['id']}", json={"memory": {"validAt": value}, "updateMask": "validAt"}
    )
    _refused(patched, "memory.validAt", CALENDAR)
    assert (await client.get(f"/v1/memories/{memory['id']}")).json()["memory"]["validAt"] == memory["validAt"]


@pytest.mark.parametrize("field", ["validAfter", "validBefore"])
async def test_search_refuses_a_filter_bound_outside_the_calendar(client_for, org_id, field):
    client = await client_for(org_id)
    found = await client.post(
        "/v1/memories:search", json={"query": "launch", "scope": {"userId": "u-ts"}, field: "0001-01-01T00:00:00Z"}
    )
    _refused(found, field, CALENDAR)


@pytest.mark.parametrize("value", OUTSIDE_THE_CALENDAR)
async def test_import_turns_refuses_a_created_at_outside_the_calendar(client_for, org_id, value):
    client = await client_for(org_id)
    session_id = await _session(client)
    turns = [
        {"role": "TURN_ROLE_USER", "content": "Fine.", "createdAt": "2023-05-08T13:56:00Z"},
        {"role": "TURN_ROLE_USER", "content": "Not fine.", "createdAt": value},
    ]
    imported = await client.post(f"/v1/sessions/{session_id}/turns:import", json={"turns": turns})
    _refused(imported, "turns[1].createdAt", CALENDAR)
    listed = await client.get(f"/v1/sessions/{session_id}/turns")
    assert listed.status_code == 200 and listed.json()["turns"] == []


async def test_a_turns_tool_interaction_refuses_an_occurred_at_outside_the_calendar(client_for, org_id):
    client = await client_for(org_id)
    session_id = await _session(client)
    turn = {
        "role": "TURN_ROLE_ASSISTANT",
        "content": "Looked it up.",
        "toolInteractions": [{"toolName": "lookup", "occurredAt": "0001-01-01T00:00:00Z"}],
    }
    processed = await client.post(f"/v1/sessions/{session_id}/turns", json={"turn": turn})
    _refused(processed, "turn.toolInteractions[0].occurredAt", CALENDAR)


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "9999-12-31T23:59:59Z", "future"])
async def test_observe_refuses_an_observed_at_before_1900_or_in_the_future(client_for, org_id, value):
    client = await client_for(org_id)
    observed_at = _in_an_hour() if value == "future" else value
    body = {
        "agentId": "agent-ts",
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": "user-ts",
            "slot": "database",
            "summary": "Prefers Postgres.",
            "evidence": [EVIDENCE, {**EVIDENCE, "sourceId": "t-2", "observedAt": observed_at}],
        },
    }
    _refused(await client.post("/v1/observations:observe", json=body), "candidate.evidence[1].observedAt", OBSERVED)
    listed = await client.get("/v1/observations", params={"agentId": "agent-ts"})
    assert listed.status_code == 200 and listed.json().get("observations", []) == []


async def test_observe_accepts_an_observed_at_within_the_clock_skew(client_for, org_id):
    client = await client_for(org_id)
    soon = (datetime.now(UTC) + timedelta(minutes=4)).isoformat().replace("+00:00", "Z")
    body = {
        "agentId": "agent-skew",
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": "user-skew",
            "slot": "editor",
            "summary": "Prefers Vim.",
            "evidence": [{**EVIDENCE, "observedAt": soon}],
        },
    }
    observed = await client.post("/v1/observations:observe", json=body)
    assert observed.status_code == 200, observed.text


async def test_contradict_refuses_an_observed_at_in_the_future(client_for, org_id):
    client = await client_for(org_id)
    body = {
        "agentId": "agent-c",
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": "user-c",
            "slot": "shell",
            "summary": "Prefers zsh.",
            "evidence": [EVIDENCE],
        },
    }
    observation_id = (await client.post("/v1/observations:observe", json=body)).json()["observation"]["id"]
    contradicted = await client.post(
        f"/v1/observations/{observation_id}:contradict",
        json={"evidence": {**EVIDENCE, "stance": "EVIDENCE_STANCE_CONTRADICT", "observedAt": _in_an_hour()}},
    )
    _refused(contradicted, "evidence.observedAt", OBSERVED)


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00Z", "future"])
async def test_hypothesis_evidence_refuses_an_observed_at_outside_its_range(client_for, org_id, value):
    client = await client_for(org_id)
    line = {
        "statement": "Most cancellations happen in week 1.",
        "stance": "EVIDENCE_STANCE_SUPPORT",
        "observedAt": _in_an_hour() if value == "future" else value,
    }
    formed = await client.post(
        "/v1/engagement/hypotheses", json={"statement": "Churn is onboarding.", "evidence": [line]}
    )
    _refused(formed, "evidence[0].observedAt", OBSERVED)
    fine = await client.post("/v1/engagement/hypotheses", json={"statement": "Churn is onboarding."})
    assert fine.status_code == 200, fine.text
    added = await client.post(
        f"/v1/engagement/hypotheses/{fine.json()['hypothesis']['id']}/evidence", json={"evidence": line}
    )
    _refused(added, "evidence.observedAt", OBSERVED)


@pytest.mark.parametrize("value", ["1900-01-01T00:00:00Z", "2999-12-31T23:59:59Z"])
async def test_the_bounds_of_the_calendar_round_trip_exactly_through_every_read(client_for, org_id, value):
    client = await client_for(org_id)
    user = f"u-bound-{uuid.uuid4().hex[:8]}"
    written = await client.post(
        "/v1/memories",
        json={
            "memories": [
                {"content": f"Dated {value}.", "memoryType": FACT, "scope": {"userId": user}, "validAt": value}
            ]
        },
    )
    assert written.status_code == 200, written.text
    memory = written.json()["memories"][0]
    assert memory["validAt"] == value
    got = await client.get(f"/v1/memories/{memory['id']}")
    assert got.status_code == 200 and got.json()["memory"]["validAt"] == value
    listed = await client.get("/v1/memories", params={"userId": user})
    assert listed.status_code == 200 and [m["validAt"] for m in listed.json()["memories"]] == [value]
    window = {"validAfter": "1900-01-01T00:00:00Z", "validBefore": "2999-12-31T23:59:59.999999Z"}
    found = await client.post("/v1/memories:search", json={"query": "Dated", "scope": {"userId": user}, **window})
    assert found.status_code == 200, found.text
    assert [hit["memory"]["validAt"] for hit in found.json()["results"]] == [value]
    patched = await client.patch(
        f"/v1/memories/{memory['id']}", json={"memory": {"importance": 0.9}, "updateMask": "importance"}
    )
    assert patched.status_code == 200 and patched.json()["memory"]["validAt"] == value


async def _run_migration(owner_dsn: str, package: str, name: str) -> None:
    """Run one migration's SQL again (every one of them is idempotent), as ``lore migrate`` runs it."""
    (migration,) = [found for found in discover(package) if found.name == name]
    connection = await asyncpg.connect(owner_dsn)
    try:
        async with connection.transaction():
            await connection.execute(migration.sql)
    finally:
        await connection.close()


async def _as_the_bug_left_it(owner_dsn: str, table: str, trigger: str, sql: str, *args) -> None:
    connection = await asyncpg.connect(owner_dsn)
    try:
        async with connection.transaction():
            await connection.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
            await connection.execute(sql, *args)
            await connection.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
    finally:
        await connection.close()


async def test_lore_migrate_moves_a_stored_turn_time_outside_the_calendar_to_its_bound(client_for, org_id, migrated_pg):
    client = await client_for(org_id)
    session_id = await _session(client)
    turn = {"role": "TURN_ROLE_USER", "content": "Long ago.", "createdAt": "2023-05-08T13:56:00Z"}
    assert (await client.post(f"/v1/sessions/{session_id}/turns:import", json={"turns": [turn]})).status_code == 200
    await _as_the_bug_left_it(
        migrated_pg.owner_dsn,
        "agent.turns",
        "turns_append_only",
        "UPDATE agent.turns SET created_at = '0001-01-01T00:00:00Z' WHERE session_id = $1",
        uuid.UUID(session_id),
    )
    await _run_migration(migrated_pg.owner_dsn, "agent_svc", "timestamps_in_range")
    listed = await client.get(f"/v1/sessions/{session_id}/turns")
    assert listed.status_code == 200 and [t["createdAt"] for t in listed.json()["turns"]] == ["1900-01-01T00:00:00Z"]


async def test_lore_migrate_moves_stored_evidence_times_outside_their_range_to_their_bounds(
    client_for, org_id, migrated_pg
):
    client = await client_for(org_id)
    body = {
        "agentId": "agent-old",
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": "user-old",
            "slot": "os",
            "summary": "Prefers Linux.",
            "evidence": [EVIDENCE],
        },
    }
    observation = (await client.post("/v1/observations:observe", json=body)).json()["observation"]
    await _as_the_bug_left_it(
        migrated_pg.owner_dsn,
        "observations.evidence",
        "evidence_guard",
        "UPDATE observations.evidence SET observed_at = '0001-01-01T00:00:00Z' WHERE observation_id = $1",
        uuid.UUID(observation["id"]),
    )
    await _run_migration(migrated_pg.owner_dsn, "observations_svc", "timestamps_in_range")
    got = await client.get(f"/v1/observations/{observation['id']}")
    assert got.status_code == 200 and got.json()["observation"]["evidence"][0]["observedAt"] == "1900-01-01T00:00:00Z"
