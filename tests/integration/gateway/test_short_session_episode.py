"""A session whose turns give nothing to summarise ends with no episode and a finished job, never a
job retried into the dead-letter state: a greeting is not a conversation to remember."""

from __future__ import annotations

from tests.polling import eventually


async def episode_jobs_done(client) -> bool:
    """True once the org's episode jobs have all finished; fails at the first failed attempt."""
    jobs = (await client.get("/v1/admin/jobs:list", params={"kind": "episode"})).json()["jobs"]
    failed = [job for job in jobs if job["state"] in ("retrying", "dead") or job.get("attempts", 0)]
    assert not failed, f"the episode job failed: {failed[0].get('lastError', '')[-300:]}"
    return not jobs


async def test_a_session_of_one_short_turn_ends_with_no_episode_and_no_failed_job(client_for, org_id):
    client = await client_for(org_id)
    session = (await client.post("/v1/sessions", json={"scope": {"userId": "u-hi"}})).json()["session"]["id"]
    said = await client.post(f"/v1/sessions/{session}/turns", json={"turn": {"content": "hi"}})
    ended = await client.post(f"/v1/sessions/{session}:end")
    assert said.status_code == 200 and ended.status_code == 200, ended.text

    await eventually(lambda: episode_jobs_done(client), what="the episode job did not finish")

    episodes = await client.get("/v1/episodes", params={"userId": "u-hi"})
    assert episodes.status_code == 200 and episodes.json().get("episodes", []) == []
    stats = (await client.get("/v1/admin/jobs")).json()["kinds"]
    assert [kind.get("dead", 0) for kind in stats if kind["kind"] == "episode"] == [0]


async def test_a_session_with_something_said_still_gets_its_episode(client_for, org_id):
    client = await client_for(org_id)
    session = (await client.post("/v1/sessions", json={"scope": {"userId": "u-said"}})).json()["session"]["id"]
    turn = {"turn": {"content": "hi! I finally booked the train tickets to Lisbon for the conference."}}
    assert (await client.post(f"/v1/sessions/{session}/turns", json=turn)).status_code == 200
    await client.post(f"/v1/sessions/{session}:end")

    await eventually(lambda: episode_jobs_done(client), what="the episode job did not finish")

    [episode] = (await client.get("/v1/episodes", params={"userId": "u-said"})).json()["episodes"]
    assert "Lisbon" in episode["summary"] and episode["messageCount"] == 1
