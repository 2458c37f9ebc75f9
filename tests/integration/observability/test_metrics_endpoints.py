"""Each service's /metrics page, scraped from the real processes after real REST calls: the call
counters moved with the right service, method and code labels, and the domain gauges and counters
(job queue, items per collection, scheduled maintenance and revalidation) are there."""

from __future__ import annotations

import uuid

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.observability.conftest import Stack
from tests.polling import eventually

Samples = dict[str, dict[frozenset, float]]


async def scrape(url: str) -> Samples:
    async with httpx.AsyncClient() as client:
        page = await client.get(url, timeout=10)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    for family in text_string_to_metric_families(page.text):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[frozenset(sample.labels.items())] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get(name, {}).get(frozenset(labels.items()), 0.0)


def calls(samples: Samples, service: str, method: str, code: str) -> float:
    return value(samples, "lore_grpc_server_requests_total", grpc_service=service, grpc_method=method, grpc_code=code)


async def test_the_call_counters_move_with_the_service_method_and_code(observed_stack: Stack):
    before = {name: await scrape(url) for name, url in observed_stack.metrics.items()}
    async with observed_stack.client() as client:
        remembered = await client.post(
            "/v1/memories",
            json={
                "memories": [
                    {
                        "content": "Ada keeps bees on her roof.",
                        "memoryType": "MEMORY_TYPE_FACT",
                        "scope": {"userId": "m"},
                    },
                    {
                        "content": "Ada's sister lives in Porto.",
                        "memoryType": "MEMORY_TYPE_FACT",
                        "scope": {"userId": "m"},
                    },
                ]
            },
        )
        assert remembered.status_code == 200, remembered.text
        missing = await client.get(f"/v1/memories/{uuid.uuid4()}")
        assert missing.status_code == 404, missing.text
        session_id = (await client.post("/v1/sessions", json={"scope": {"userId": "m"}})).json()["session"]["id"]
        turn = {"turn": {"role": "TURN_ROLE_USER", "content": "Where does Ada's sister live?", "idempotencyKey": "q"}}
        assert (await client.post(f"/v1/sessions/{session_id}/turns", json=turn)).status_code == 200
    after = {name: await scrape(url) for name, url in observed_stack.metrics.items()}

    def moved(service_name: str, grpc_service: str, method: str, code: str = "OK") -> float:
        key = (grpc_service, method, code)
        return calls(after[service_name], *key) - calls(before[service_name], *key)

    # Background reflections of earlier turns remember too: at least ours.
    assert moved("memory", "lore.memory.v1.MemoryService", "Remember") >= 1
    assert moved("memory", "lore.memory.v1.MemoryService", "GetMemory", "NOT_FOUND") == 1
    assert moved("memory", "lore.memory.v1.ContextSourceService", "GatherContext") >= 1  # the turn's context
    assert moved("agent", "lore.agent.v1.AgentService", "ProcessTurn") == 1
    assert moved("assembler", "lore.assembler.v1.AssemblerService", "AssembleContext") >= 1
    observations_calls = sum(
        count
        for labels, count in after["observations"].get("lore_grpc_server_requests_total", {}).items()
        if ("grpc_code", "OK") in labels
    )
    assert observations_calls >= 1
    latency = {"grpc_service": "lore.agent.v1.AgentService", "grpc_method": "ProcessTurn"}
    count = "lore_grpc_server_handling_seconds_count"
    assert value(after["agent"], count, **latency) - value(before["agent"], count, **latency) == 1
    assert value(after["agent"], "lore_grpc_server_handling_seconds_bucket", **latency, le="10.0") >= 1
    # No probe is counted, and no label carries a tenant.
    for samples in after.values():
        for labels in samples.get("lore_grpc_server_requests_total", {}):
            assert not any("Health" in label_value or "dev" == label_value for _, label_value in labels)


async def test_the_domain_metrics_are_exported(observed_stack: Stack):
    async with observed_stack.client() as client:
        remembered = await client.post(
            "/v1/memories",
            json={"memories": [{"content": "Ada's roof faces south.", "memoryType": "MEMORY_TYPE_FACT"}]},
        )
        assert remembered.status_code == 200, remembered.text

    # Memory: points per collection, counted at scrape time (cached up to ten seconds).
    async def items() -> float:
        samples = await scrape(observed_stack.metrics["memory"])
        assert frozenset({("collection", "episodes")}) in samples["lore_memory_items"]
        return value(samples, "lore_memory_items", collection="memory_items") >= 1

    await eventually(items, timeout=30, what="lore_memory_items never counted the remembered item")

    # The scheduled maintenance (decay + consolidation) and revalidation run every few seconds here.
    async def ran(service: str, job: str) -> bool:
        samples = await scrape(observed_stack.metrics[service])
        runs = value(samples, "lore_scheduled_runs_total", scheduled_job=job, outcome="ok")
        last = value(samples, "lore_scheduled_last_success_timestamp_seconds", scheduled_job=job)
        return runs >= 1 and last > 1.7e9

    await eventually(lambda: ran("memory", "memory_maintenance"), what="no maintenance run was counted")
    await eventually(lambda: ran("observations", "revalidation"), what="no revalidation run was counted")

    # Once an org has items, a maintenance run counts what it went over.
    async def maintained() -> bool:
        samples = await scrape(observed_stack.metrics["memory"])
        return value(samples, "lore_scheduled_items_total", scheduled_job="memory_maintenance", item="orgs") >= 1

    await eventually(maintained, timeout=30, what="the maintenance runs never counted an org")

    # Agent: the queue by kind and status, every org together (no org label).
    agent = await scrape(observed_stack.metrics["agent"])
    jobs = agent["lore_agent_jobs"]
    assert {dict(labels)["status"] for labels in jobs} == {"queued", "running", "retrying", "dead"}
    assert {dict(labels)["kind"] for labels in jobs} == {"reflect", "episode", "erase"}
    assert all(set(dict(labels)) == {"kind", "status"} for labels in jobs)
    assert set(agent["lore_agent_jobs_oldest_queued_seconds"]) == {
        frozenset({("kind", kind)}) for kind in ("reflect", "episode", "erase")
    }


async def test_every_service_measures_its_event_loop_and_the_memory_service_its_maintenance(observed_stack: Stack):
    async def woken(url: str) -> bool:
        samples = await scrape(url)
        return value(samples, "lore_event_loop_lag_seconds_count") >= 1 and "lore_event_loop_lag_max_seconds" in samples

    for name, url in observed_stack.metrics.items():
        await eventually(lambda url=url: woken(url), what=f"the {name} service never measured its event loop")

    memory = await scrape(observed_stack.metrics["memory"])
    kinds = {frozenset({("kind", "optimisation")}), frozenset({("kind", "compaction")})}
    assert set(memory["lore_memory_maintenance_running"]) == kinds
    assert set(memory["lore_memory_maintenance_pending"]) == kinds
    assert value(memory, "lore_memory_maintenance_running", kind="compaction") == 0
    collections = {frozenset({("collection", "memory_items")}), frozenset({("collection", "episodes")})}
    assert set(memory["lore_memory_shard_writes"]) == collections
    assert set(memory["lore_memory_shard_writes_optimised"]) == collections
