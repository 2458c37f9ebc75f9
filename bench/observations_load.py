"""ObservationService load through gRPC, the service in its own process on a migrated embedded
Postgres: Observe throughput (one contended key, then ``--observe-calls`` spread keys), then Query
and Search p50/p95/p99 with concurrent clients at ``--observations`` rows in one org.

Rows beyond the observed ones are seeded straight into the table (random unit embeddings, the
same word pool), because reaching 100k through Observe would take the model ten minutes: the
read figures are for the table's size, the write figures for Observe itself. Each phase prints the
CPU per call of the service and its Postgres (bench.measure.CpuMeter: from the phase's start until
they are idle again).

Every Search of the run, warm-up included, asks a text of its own, so none is answered from the
service's query-embedding cache: questions are drawn as before (half about a team's topic, half a
Zipf-drawn name and a topic) and a text drawn again is rephrased with a prefix or suffix
(bench.measure.rephrase_repeats: "Remind me: what about the billing launch? thanks!"; this service
embeds a query as written). The warm-up's 50 are drawn apart from the measured 400, and the
cache's hits and misses over them are printed (bench.measure.EmbeddingCacheMeter). Query has no
text; its warm-up is its first 50 requests, as before.

    .venv/bin/python -m bench.observations_load --observations 100000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from lore.observations.v1 import observation_service_pb2 as pb
from lore.observations.v1 import observation_service_pb2_grpc
from lore_cli.service_calls import dial

from bench.measure import CpuMeter, EmbeddingCacheMeter, percentile, rephrase_repeats, rss_mib
from bench.memory_process import _wait_serving

TENANT = (("x-lore-org-id", "org-bench"), ("x-lore-principal", "bench"))
TEAMS = "billing search payments onboarding mobile platform data growth support security infra design".split()
STATES = [
    "ships the {} migration on Friday",
    "is blocked on the {} review",
    "moved the {} launch to next sprint",
    "runs {} on Postgres now",
    "dropped Kafka from the {} pipeline",
    "has a budget freeze on {}",
    "is hiring for the {} rewrite",
    "switched {} alerts to the new pager",
]
THINGS = "invoices search-index ledger signup-flow app-store api-gateway warehouse referrals tickets sso".split()
TOPICS = ["migration", "launch", "budget", "review", "Postgres", "Kafka", "pager", "hiring"]


# Names of services, customers and people: a long tail, so some words are rare and others common.
_SYLLABLES = "ka lo mi ra ven to shi dor pa lu ne qua zor bel fi".split()
NAMES = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES][:3000]
_NAME_WEIGHTS = [1 / (rank + 1) for rank in range(len(NAMES))]  # Zipf


def _name(rng: random.Random) -> str:
    return rng.choices(NAMES, weights=_NAME_WEIGHTS)[0]


def _question(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return f"what about the {rng.choice(TEAMS)} {rng.choice(TOPICS)}?"
    return f"{_name(rng)} {rng.choice(TOPICS)}"


def _summary(rng: random.Random) -> str:
    state = rng.choice(STATES).format(rng.choice(THINGS))
    return f"{rng.choice(TEAMS).capitalize()} {state} for {_name(rng)} with {_name(rng)}"


def _candidate(rng: random.Random, slot: str) -> pb.ObservationCandidate:
    return pb.ObservationCandidate(
        kind=pb.OBSERVATION_KIND_PROJECT_STATE,
        subject_type=pb.SUBJECT_TYPE_PROJECT,
        subject_id=f"p-{rng.randrange(50)}",
        slot=slot,
        summary=_summary(rng),
        evidence=[
            pb.EvidenceInput(
                stance=pb.EVIDENCE_STANCE_SUPPORT, source_type=pb.SOURCE_TYPE_MESSAGE, source_id=secrets.token_hex(4)
            )
        ],
    )


async def observe_load(stub, count: int, writers: int, *, one_key: bool) -> float:
    rng = random.Random(7)
    queue = list(range(count))
    started = time.perf_counter()

    async def writer() -> None:
        while queue:
            index = queue.pop()
            slot = "contended" if one_key else f"s-{index}"
            await stub.Observe(pb.ObserveRequest(candidate=_candidate(rng, slot)), metadata=TENANT, timeout=60)

    await asyncio.gather(*(writer() for _ in range(writers)))
    return count / (time.perf_counter() - started)


async def seed(owner_dsn: str, count: int, batch: int = 5000) -> float:
    """Insert ``count`` active observations of org-bench directly; returns rows per second.

    The HNSW index is dropped for the load and rebuilt in bulk afterwards, as an operator
    would for an import: row-by-row graph inserts would take most of the run.
    """
    import asyncpg

    rng = np.random.default_rng(11)
    words = random.Random(5)
    connection = await asyncpg.connect(owner_dsn)
    started = time.perf_counter()
    try:
        definition = await connection.fetchval(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'observations' AND indexname = 'observations_embedding'"
        )
        await connection.execute("DROP INDEX observations.observations_embedding")
        for first in range(0, count, batch):
            size = min(batch, count - first)
            vectors = rng.standard_normal((size, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            rows = []
            for offset, vector in enumerate(vectors):
                subject, slot = f"p-{words.randrange(50)}", f"seed-{first + offset}"
                rows.append(
                    (
                        subject,
                        slot,
                        f"project:{subject}:project_state:{slot}",
                        _summary(words),
                        words.random(),
                        "[" + ",".join(f"{value:.4f}" for value in vector) + "]",
                    )
                )
            await connection.executemany(
                """
                INSERT INTO observations.observations
                    (id, org_id, agent_id, kind, subject_type, subject_id, slot, canonical_key, summary,
                     confidence, confidence_components, freshness, revalidation_due_at, status, embedding,
                     created_at, updated_at)
                VALUES (gen_random_uuid(), 'org-bench', '', 'project_state', 'project', $1, $2, $3, $4,
                        $5, '{}', 1.0, now() + interval '7 days', 'active', $6::halfvec, now(), now())
                """,
                rows,
            )
        await connection.execute("SET maintenance_work_mem = '1GB'")
        await connection.execute(definition)
        await connection.execute("ANALYZE observations.observations")
    finally:
        await connection.close()
    return count / (time.perf_counter() - started)


async def read_load(call, requests: list, clients: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    queue = list(requests)
    started = time.perf_counter()

    async def client() -> None:
        while queue:
            request = queue.pop()
            started = time.perf_counter()
            await call(request, metadata=TENANT, timeout=30)
            latencies.append((time.perf_counter() - started) * 1000)

    await asyncio.gather(*(client() for _ in range(clients)))
    return len(latencies) / (time.perf_counter() - started), latencies


def line(label: str, measured: tuple[float, list[float]]) -> str:
    throughput, latencies = measured
    return (
        f"{label}: {throughput:.0f}/s, p50 {statistics.median(latencies):.1f} ms, "
        f"p95 {percentile(latencies, 95):.1f} ms, p99 {percentile(latencies, 99):.1f} ms ({len(latencies)} calls)"
    )


async def run(observations: int, observe_calls: int, clients: int) -> None:
    from lore_cli.migrate import apply_all
    from lore_devstack import EmbeddedPostgres, free_port, prepare_database

    with tempfile.TemporaryDirectory(prefix="lore-bench-") as tmp:
        root = Path(tmp)
        postgres = EmbeddedPostgres(root / "postgres")
        try:
            urls = await prepare_database(postgres.start(), f"lore_bench_{secrets.token_hex(4)}")
            await apply_all(urls.owner_dsn, quiet=True)
            address = f"127.0.0.1:{free_port()}"
            env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
            env.update(
                LORE_DATABASE_URL=urls.app_dsn,
                LORE_OBSERVATIONS_ADDR=address,
                LORE_LOG_LEVEL="WARNING",
                LORE_REVALIDATION_INTERVAL_SECONDS="0",
                LORE_SERVICE_TOKEN=secrets.token_hex(32),
                LORE_OBSERVATIONS_METRICS_ADDR=f"127.0.0.1:{free_port()}",
            )
            cache = EmbeddingCacheMeter.of_env(env)
            log = root / "observations.log"
            with open(log, "wb") as output:
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "observations_svc", env=env, stdout=output, stderr=asyncio.subprocess.STDOUT
                )
            try:
                await _wait_serving(address, process, log)
                async with dial(env, address) as channel:
                    stub = observation_service_pb2_grpc.ObservationServiceStub(channel)
                    meter = CpuMeter.of_children(root)
                    meter.start()
                    contended = await observe_load(stub, 200, clients, one_key=True)
                    print(f"Observe, one key, {clients} writers: {contended:.0f}/s")
                    print((await meter.stop_async(200)).line())
                    observe_calls = min(observe_calls, observations)
                    meter.start()
                    spread = await observe_load(stub, observe_calls, 8, one_key=False)
                    print(f"Observe, spread keys, 8 writers, {observe_calls} calls: {spread:.0f}/s")
                    print((await meter.stop_async(observe_calls)).line())
                    if observations > observe_calls:
                        rate = await seed(urls.owner_dsn, observations - observe_calls)
                        print(f"seeded {observations - observe_calls} more rows directly ({rate:.0f}/s)")
                    rng = random.Random(3)
                    queries = [
                        pb.QueryObservationsRequest(
                            kind=pb.OBSERVATION_KIND_PROJECT_STATE,
                            subject_type=pb.SUBJECT_TYPE_PROJECT,
                            subject_id=f"p-{rng.randrange(50)}",
                            page_size=20,
                        )
                        for _ in range(400)
                    ]
                    # A first pass warms the caches (and the model) so the figures are the steady state.
                    await read_load(stub.QueryObservations, queries[:50], clients)
                    meter.start()
                    print(line(f"Query, {clients} clients", await read_load(stub.QueryObservations, queries, clients)))
                    print((await meter.stop_async(len(queries))).line())
                    texts = rephrase_repeats((_question(rng) for _ in range(450)), key=None)  # embedded as written
                    searches = [pb.SearchObservationsRequest(query=text, k=10) for text in texts[50:]]
                    warm_up = [pb.SearchObservationsRequest(query=text, k=10) for text in texts[:50]]
                    cache.start()
                    await read_load(stub.SearchObservations, warm_up, clients)
                    meter.start()
                    print(
                        line(f"Search, {clients} clients", await read_load(stub.SearchObservations, searches, clients))
                    )
                    print((await meter.stop_async(len(searches))).line())
                    print(cache.line("every Search, warm-up included: "))
                    print(f"service RSS {rss_mib(process.pid):.0f} MiB")
            finally:
                process.terminate()
                await process.wait()
        finally:
            postgres.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--observe-calls", type=int, default=3000, help="spread-key Observe calls measured")
    parser.add_argument("--clients", type=int, default=4)
    arguments = parser.parse_args()
    asyncio.run(run(arguments.observations, arguments.observe_calls, arguments.clients))


if __name__ == "__main__":
    main()
