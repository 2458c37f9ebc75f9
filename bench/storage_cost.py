"""Storage cost per item of Lore's stores, measured with the real adapters and engines (docs/scaling.md).

    .venv/bin/python -m bench.storage_cost [--memories 10000] [--episodes 2000] [--turns 6000]
        [--observations 2000] [--accesses 15000] [--sessions 100] [--json FILE]

- Qdrant (qdrant-edge, in-process): realistic memory items (~150-character content, user/agent scope,
  metadata, provenance with a session and two turn ids, two entities, the service's BM25 sparse vector,
  random unit 384-d vectors: same size as real ones) written through ``QdrantEdgeMemoryIndex`` as the
  service opens it (float32 vectors), then ``optimize()``d and closed. Disk: bytes actually allocated
  under the shard directory (``st_blocks``), by component, the write-ahead log (a fixed per-shard cost)
  apart. RAM: resident growth of a fresh process (a restarted service) that opens the store and serves
  200 filtered searches, anonymous and file-backed apart; file-backed pages count only once a search has
  touched them, so this is a floor: a store under load keeps resident whatever it reads. Both figures
  are marginal, from a run at a quarter of the size, so a shard's fixed cost cancels out. A second
  configuration opens the same adapter with the engine's int8 scalar quantisation (quantised vectors
  pinned in RAM, float32 originals on disk, ``Memory.Cold``): qdrant-edge supports it, the service does
  not configure it yet. Episodes through ``QdrantEdgeEpisodeIndex``. Writing and measuring run in
  processes of their own, so one step's allocations never count in another's RSS.
- Postgres (embedded, pgvector, every migration applied): transcript turns and their sessions
  (``PostgresTranscript``), each user turn's kept result with its assembled context (``PostgresTurnLoop``;
  the context is the real assembler pipeline's output for 33 candidates, as protobuf), observations with
  two evidence rows and a 384-d embedding (``PostgresObservationStore``), the memory access log
  (``PostgresAccessLog``, three memories per assembled context). After VACUUM ANALYZE: heap, TOAST and index
  bytes of each table (``pg_total_relation_size``) divided by its rows.
- Redis (embedded Valkey): a session's working memory written as the agent writes it (lease, every turn
  appended with its idempotency key, the window trimmed to ``DEFAULT_MAX_TURNS``, a summary, a plan, five
  emotions, a context fingerprint), measured with ``MEMORY USAGE`` over the session's keys, for a session of
  40 turns and one of 200 (each appended turn leaves an ``idem:`` field in the hash until the session
  expires).

Not part of the test suite. Sizes do not depend on the machine; the timings printed alongside do.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import gc
import json
import multiprocessing
import os
import random
import tempfile
import time
import uuid
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

DIMENSION = 384
ORGS = [f"org-{n}" for n in range(10)]
SEARCHES = 200
WORDS = (
    "the user said they prefer to work in the morning and asked about their project deadline next week "
    "because the team in Lisbon moved the review meeting again after the client changed scope twice "
    "she mentioned her sister Ana visits in May and that coffee after noon keeps her awake "
    "we agreed to send a summary every Friday with the open questions budget risks and decisions "
    "he dislikes long emails wants bullet points and often works late on Tuesdays from home"
).split()
NAMES = ["Ana", "Lisbon", "Project Atlas", "Bruno", "Acme Corp", "Friday review", "Marta", "Porto"]


def sentence(rng: random.Random, chars: int) -> str:
    """Text of about ``chars`` characters (whole words, a capital and a full stop)."""
    words: list[str] = []
    while sum(len(word) + 1 for word in words) < chars:
        words.append(rng.choice(WORDS))
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    vectors = rng.standard_normal((count, DIMENSION)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def rss_kib() -> tuple[int, int]:
    """(anonymous, file-backed) resident KiB of this process."""
    fields = dict(
        line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("Rss")
    )
    return int(fields["RssAnon"].split()[0]), int(fields["RssFile"].split()[0])


# --------------------------------------------------------------------------- Qdrant (one process per run)


def disk_usage(path: Path) -> dict[str, int]:
    """Allocated bytes below a store directory, by component: ``wal``, the shard's small files, and
    each segment subdirectory kind (``vector_storage-dense``, its quantised copy ``… int8``,
    ``vector_index-dense`` = HNSW, ``payload_storage``, ``payload_index``, …) summed over segments."""
    parts: dict[str, int] = {}
    for root, _dirs, files in os.walk(path):
        relative = Path(root).relative_to(path).parts
        if relative[:2] == ("shard", "wal"):
            key = "wal"
        elif relative[:2] == ("shard", "segments") and len(relative) >= 4:
            key = relative[3]
        else:
            key = "segment files" if relative[:2] == ("shard", "segments") else "metadata"
        for name in files:
            # The quantised copy sits beside the originals in the vector storage directory.
            part = f"{key} int8" if name.startswith("quantized") else key
            parts[part] = parts.get(part, 0) + os.stat(Path(root, name)).st_blocks * 512
    return parts


def memory_items(rng: random.Random, start: int, count: int, users: int) -> list[Any]:
    from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope

    now = datetime.now(UTC)
    kinds = [MemoryType.MESSAGE] * 4 + [MemoryType.FACT, MemoryType.PREFERENCE, MemoryType.COMMITMENT]
    items = []
    for n in range(start, start + count):
        when = now - timedelta(minutes=rng.randint(0, 60 * 24 * 365))
        items.append(
            MemoryItem(
                id=str(uuid.uuid4()),
                org_id=ORGS[n % len(ORGS)],
                content=sentence(rng, 150),
                memory_type=rng.choice(kinds),
                scope=Scope(user_id=f"user-{rng.randrange(users):06d}", agent_id="agent-coach"),
                importance=round(rng.random(), 3),
                status=MemoryStatus.ACTIVE,
                metadata={"speaker": rng.choice(["user", "assistant"]), "channel": "web"},
                provenance=Provenance(
                    session_id=str(uuid.uuid4()), turn_ids=(str(uuid.uuid4()), str(uuid.uuid4())), source_type="live"
                ),
                entities=tuple(rng.sample(NAMES, 2)),
                created_at=when,
                valid_at=when,
                last_accessed_at=when,
            )
        )
    return items


def episodes(rng: random.Random, start: int, count: int, users: int) -> list[Any]:
    from memory_svc.domain.episode import ActionItem, Episode, OpenThread, Outcome, UserState
    from memory_svc.domain.model import Scope

    now = datetime.now(UTC)
    found = []
    for n in range(start, start + count):
        ended = now - timedelta(minutes=rng.randint(0, 60 * 24 * 365))
        found.append(
            Episode(
                id=str(uuid.uuid4()),
                org_id=ORGS[n % len(ORGS)],
                conversation_id=str(uuid.uuid4()),
                scope=Scope(user_id=f"user-{rng.randrange(users):06d}", agent_id="agent-coach"),
                summary=sentence(rng, 400),
                key_topics=tuple(rng.sample(WORDS, 3)),
                entities_discussed=tuple(rng.sample(NAMES, 3)),
                user_state=UserState(mood="focused", confidence="medium", focus="deadline"),
                outcomes=(Outcome("decision", sentence(rng, 60)),),
                open_threads=(OpenThread(sentence(rng, 40), context=sentence(rng, 80)),),
                decisions=(sentence(rng, 60),),
                action_items=(ActionItem(sentence(rng, 50), owner="user", deadline="Friday"),),
                next_session_questions=(sentence(rng, 50),),
                message_count=40,
                started_at=ended - timedelta(minutes=20),
                ended_at=ended,
                importance=0.5,
                created_at=ended,
                last_accessed_at=ended,
                metadata={"channel": "web"},
            )
        )
    return found


def quantised_memory_index_class() -> type:
    """The memory index adapter on a shard configured as ARCHITECTURE.md §8 plans: int8 scalar
    quantisation pinned in RAM, float32 originals on disk. Same upserts, payloads and indexes."""
    import qdrant_edge as qe
    from memory_svc.adapters.memory_payload import DENSE_VECTOR, PAYLOAD_INDEXES, SPARSE_VECTOR
    from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
    from memory_svc.adapters.qdrant_edge_store import EdgeShardStore

    class QuantisedMemoryIndex(QdrantEdgeMemoryIndex):
        def __init__(self, path: Any, *, embedding_model: str, dimension: int, accept_stored: bool = False) -> None:
            quantisation = qe.ScalarQuantizationConfig(qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Pinned)
            config = qe.EdgeConfig(
                vectors={
                    DENSE_VECTOR: qe.EdgeVectorParams(
                        size=dimension,
                        distance=qe.Distance.Cosine,
                        memory=qe.Memory.Cold,
                        quantization_config=quantisation,
                    )
                },
                sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            )
            EdgeShardStore.__init__(
                self,
                path,
                embedding_model=embedding_model,
                dimension=dimension,
                config=config,
                payload_indexes=PAYLOAD_INDEXES,
                accept_stored=accept_stored,
            )

    return QuantisedMemoryIndex


def index_class(kind: str) -> Any:
    from memory_svc.adapters.qdrant_edge_episodes import QdrantEdgeEpisodeIndex
    from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex

    if kind == "memories-int8":
        return quantised_memory_index_class()
    return {"memories": QdrantEdgeMemoryIndex, "episodes": QdrantEdgeEpisodeIndex}[kind]


async def _qdrant_write(kind: str, path: Path, count: int, seed: int) -> dict[str, Any]:
    """Write ``count`` items, optimise until nothing is left to do, close; the disk it takes."""
    from memory_svc.domain.lexical import encode_document

    rng, vector_rng = random.Random(seed), np.random.default_rng(seed)
    users = max(1, count // 100)
    gc.collect()
    before = rss_kib()
    index = await index_class(kind).open(path, embedding_model="bench/random", dimension=DIMENSION)
    started = time.perf_counter()
    for offset in range(0, count, 1000):
        size = min(1000, count - offset)
        vectors = unit_vectors(vector_rng, size)
        if kind == "episodes":
            for episode, vector in zip(episodes(rng, offset, size, users), vectors, strict=True):
                await index.upsert(episode, vector)
        else:
            batch = memory_items(rng, offset, size, users)
            await index.upsert(batch, vectors, [encode_document(item.content) for item in batch])
    written = time.perf_counter() - started
    started = time.perf_counter()
    while await index.optimize():  # until the optimisers have nothing left to do
        pass
    optimised = time.perf_counter() - started
    info = await asyncio.to_thread(index._shard.info)
    gc.collect()
    live = rss_kib()
    await index.close()
    return {
        "kind": kind,
        "count": count,
        "points": info.points_count,
        "indexed_vectors": info.indexed_vectors_count,
        "segments": info.segments_count,
        "write_s": written,
        "optimize_s": optimised,
        "disk": disk_usage(path),
        "rss_live_anon_kib": live[0] - before[0],
        "rss_live_file_kib": live[1] - before[1],
    }


async def _qdrant_reopen(kind: str, path: Path, count: int, seed: int) -> dict[str, Any]:
    """A fresh process (a restarted memory service) opens the store and serves filtered searches:
    what it keeps resident for the store."""
    from memory_svc.domain.model import Scope

    rng, vector_rng = random.Random(seed), np.random.default_rng(seed)
    users = max(1, count // 100)
    queries = unit_vectors(vector_rng, SEARCHES)
    gc.collect()
    before = rss_kib()
    index = await index_class(kind).open(path, embedding_model="bench/random", dimension=DIMENSION)
    try:
        for query in queries:
            scope = Scope(user_id=f"user-{rng.randrange(users):06d}")
            if kind == "episodes":
                await index.list(rng.choice(ORGS), scope, 10)
            else:
                await index.search(rng.choice(ORGS), scope, query, k=10)
        gc.collect()
        after = rss_kib()
    finally:
        await index.close()
    return {"rss_anon_kib": after[0] - before[0], "rss_file_kib": after[1] - before[1]}


def qdrant_step(step: str, kind: str, path: str, count: int, seed: int) -> dict[str, Any]:
    """Entry point of a child process."""
    run = _qdrant_write if step == "write" else _qdrant_reopen
    return asyncio.run(run(kind, Path(path), count, seed))


def in_child(step: str, kind: str, path: Path, count: int, seed: int) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(qdrant_step, step, kind, str(path), count, seed).result()


def qdrant_costs(kind: str, count: int, seed: int) -> dict[str, Any]:
    """Write in one process, measure resident memory in another, both on the same directory."""
    with tempfile.TemporaryDirectory(prefix="lore-storage-cost-") as directory:
        written = in_child("write", kind, Path(directory), count, seed)
        return written | in_child("reopen", kind, Path(directory), count, seed)


# --------------------------------------------------------------------------- Postgres


def assembled_context(seed: int) -> bytes:
    """The protobuf the agent keeps per processed turn, from the real assembler pipeline over 33
    candidates (the agent benchmark's recall k 20 gives 33) and the default budgets."""
    from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
    from assembler_svc.api.assembler_convert import assembly_to_pb
    from assembler_svc.domain.model import AssemblyPolicy
    from assembler_svc.domain.pipeline import assemble

    from bench.assembler_pipeline import make_candidates

    assembly = assemble(
        make_candidates(33, seed), policy=AssemblyPolicy(), counter=TiktokenCounter(), persona_mode="coach", mood=""
    )
    return assembly_to_pb(assembly, ()).SerializeToString()


@dataclass
class PostgresLoad:
    turns: int
    observations: int
    accesses: int
    turns_per_session: int = 40
    orgs: list[str] = field(default_factory=lambda: ORGS)


async def write_transcripts(pool: Any, load: PostgresLoad, rng: random.Random, context: bytes) -> dict[str, int]:
    from agent_svc.adapters.postgres_transcript import PostgresTranscript
    from agent_svc.adapters.postgres_turn_loop import PostgresTurnLoop
    from agent_svc.domain.transcript import Scope, Session, Turn, turn_id_for
    from agent_svc.domain.turn_loop import TurnResult

    transcript, results = PostgresTranscript(pool), PostgresTurnLoop(pool)
    sessions = max(1, load.turns // load.turns_per_session)
    exchanges = load.turns // 2

    async def one_session(number: int) -> None:
        org = load.orgs[number % len(load.orgs)]
        now = datetime.now(UTC)
        session = await transcript.start(
            Session(
                id=str(uuid.uuid4()),
                org_id=org,
                scope=Scope(f"user-{number:06d}", "agent-coach"),
                status="active",
                started_at=now,
                last_active_at=now,
                metadata={"channel": "web"},
            ),
            request_id=str(uuid.uuid4()),
        )
        for _ in range(exchanges // sessions):
            key = str(uuid.uuid4())
            user = Turn(
                id=turn_id_for(session.id, key),
                session_id=session.id,
                sequence=0,
                role="user",
                content=sentence(rng, 150),
                created_at=datetime.now(UTC),
                metadata={"channel": "web"},
                idempotency_key=key,
            )
            reply = Turn(
                id=turn_id_for(session.id, f"{key}:reply"),
                session_id=session.id,
                sequence=0,
                role="assistant",
                content=sentence(rng, 450),
                created_at=datetime.now(UTC),
                idempotency_key=f"{key}:reply",
            )
            await transcript.append(org, session.id, [user], datetime.now(UTC))
            await transcript.append(org, session.id, [reply], datetime.now(UTC))
            kept = TurnResult(reply=reply.content, reply_turn_id=reply.id, context=context)
            await results.save_result(org, session.id, user.id, kept, datetime.now(UTC))

    await _in_parallel([one_session(number) for number in range(sessions)])
    return {"sessions": sessions}


async def write_observations(pool: Any, load: PostgresLoad, rng: random.Random) -> None:
    from observations_svc.adapters.postgres.observation_store import PostgresObservationStore
    from observations_svc.domain.model import ConfidenceComponents, EvidenceDraft, Observation

    store = PostgresObservationStore(pool)
    vectors = unit_vectors(np.random.default_rng(3), load.observations)
    slots = ["working_hours", "email_style", "deadline", "home_city", "review_day", "coffee"]

    async def one(number: int) -> None:
        org = load.orgs[number % len(load.orgs)]
        subject, slot = f"user-{number // len(slots):06d}", slots[number % len(slots)]
        now = datetime.now(UTC)
        observation = Observation(
            id=str(uuid.uuid4()),
            org_id=org,
            agent_id="agent-coach",
            kind="operator_preference",
            subject_type="entity",
            subject_id=subject,
            slot=slot,
            canonical_key=f"entity:{subject}:operator_preference:{slot}",
            summary=sentence(rng, 100),
            detail=sentence(rng, 200),
            tags=("work", "schedule"),
            confidence=0.72,
            components=ConfidenceComponents(2, 0.5, 1.6, 0.0, 0.9, 0.0),
            freshness=1.0,
            last_supported_at=now,
            revalidation_due_at=now + timedelta(days=30),
            status="active",
            supersedes_observation_id=None,
            created_at=now,
            updated_at=now,
        )
        evidence = [
            EvidenceDraft("support", 0.8, "message", str(uuid.uuid4()), sentence(rng, 120), now) for _ in range(2)
        ]
        async with store.transaction(org) as transaction:
            await transaction.insert(observation, vectors[number].tolist())
            await transaction.add_evidence(observation.id, evidence, now)

    await _in_parallel([one(number) for number in range(load.observations)])


async def write_accesses(pool: Any, load: PostgresLoad, rng: random.Random) -> None:
    from memory_svc.adapters.postgres_access_log import PostgresAccessLog
    from memory_svc.usecases.memory_ports import Access

    log = PostgresAccessLog(pool)
    # RecordAccess names the memories a context kept: the pipeline keeps 2-3 of 33 candidates at the
    # default budgets (150 tokens of memories), so 3 per assembled context.
    per_context = 3

    async def one(number: int) -> None:
        org, user, session = load.orgs[number % len(load.orgs)], f"user-{number % 1000:06d}", str(uuid.uuid4())
        request, now = str(uuid.uuid4()), datetime.now(UTC)
        batch = [
            Access(str(uuid.uuid4()), user, session, "assembled_context", "service:assembler", request, now)
            for _ in range(per_context)
        ]
        await log.record(org, batch)

    await _in_parallel([one(number) for number in range(load.accesses // per_context)])


async def _in_parallel(jobs: list[Any], width: int = 4) -> None:
    """Run coroutines ``width`` at a time (the pool's connections), in order of the list."""
    pending = iter(jobs)

    async def worker() -> None:
        for job in pending:
            await job

    await asyncio.gather(*(worker() for _ in range(width)))


TABLES = (
    "agent.sessions",
    "agent.turns",
    "agent.turn_results",
    "observations.observations",
    "observations.evidence",
    "memory.access_log",
)


async def postgres_costs(load: PostgresLoad, seed: int) -> dict[str, Any]:
    import asyncpg
    from lore_cli.migrate import apply_all
    from lore_devstack import EmbeddedPostgres, prepare_database
    from lore_runtime.stores import open_postgres

    rng = random.Random(seed)
    context = assembled_context(seed)
    with tempfile.TemporaryDirectory(prefix="lore-storage-cost-pg-") as directory:
        server = EmbeddedPostgres(Path(directory) / "data")
        try:
            urls = await prepare_database(server.start(), "lore_storage_cost")
            await apply_all(urls.owner_dsn, quiet=True)
            timings: dict[str, float] = {}
            async with AsyncExitStack() as stack:
                pool = await open_postgres(stack, urls.app_dsn, vectors=True, max_size=4)
                for name, job in (
                    ("transcripts", write_transcripts(pool, load, rng, context)),
                    ("observations", write_observations(pool, load, rng)),
                    ("accesses", write_accesses(pool, load, rng)),
                ):
                    started = time.perf_counter()
                    await job
                    timings[name] = time.perf_counter() - started
            connection = await asyncpg.connect(urls.superuser_dsn)
            try:
                await connection.execute("VACUUM ANALYZE")
                tables = {}
                for table in TABLES:
                    row = await connection.fetchrow(
                        f"""SELECT (SELECT count(*) FROM {table}) AS rows,
                                   pg_relation_size($1::regclass) AS heap,
                                   pg_indexes_size($1::regclass) AS indexes,
                                   pg_total_relation_size($1::regclass) AS total""",
                        table,
                    )
                    tables[table] = dict(row) | {"toast": row["total"] - row["heap"] - row["indexes"]}
                database = await connection.fetchval("SELECT pg_database_size(current_database())")
            finally:
                await connection.close()
        finally:
            server.stop()
    return {"tables": tables, "database_bytes": database, "context_bytes": len(context), "timings": timings}


# --------------------------------------------------------------------------- Redis


async def redis_costs(sessions: int, seed: int) -> dict[str, Any]:
    import redis.asyncio as redis
    from lore_devstack import EmbeddedRedis
    from memory_svc.adapters.redis_session_leases import RedisSessionLeases
    from memory_svc.adapters.redis_working_memory import RedisWorkingMemoryStore
    from memory_svc.domain.working_memory import (
        DEFAULT_MAX_TURNS,
        DEFAULT_TTL,
        EmotionReading,
        Plan,
        Turn,
        TurnRole,
        WorkingMemory,
    )

    rng = random.Random(seed)
    profiles: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="lore-storage-cost-redis-") as directory:
        server = EmbeddedRedis(Path(directory))
        client = redis.Redis.from_url(server.start())
        try:
            store, leases = RedisWorkingMemoryStore(client), RedisSessionLeases(client)
            # Load the scripts first: the server's script cache must not count as the first profile's memory.
            lease = await leases.acquire("warm-up", "warm-up", "warm-up", timedelta(seconds=1), timedelta(0))
            await store.append_turn(
                "warm-up", "warm-up", Turn(TurnRole.USER, "hi"), max_turns=1, ttl=DEFAULT_TTL, now=datetime.now(UTC)
            )
            await leases.release("warm-up", "warm-up", "warm-up", lease.fencing_token)
            for turns in (40, 200):
                await client.execute_command("FLUSHDB", "SYNC")  # freed before the baseline is read
                baseline = (await client.info("memory"))["used_memory"]
                keys: list[str] = []
                for number in range(sessions):
                    org, session = ORGS[number % len(ORGS)], str(uuid.uuid4())
                    now = datetime.now(UTC)
                    # As the agent appends: under the session's lease (one here, the agent takes one per turn:
                    # the same fence key), each turn with `turn:<id>` as its idempotency key.
                    holder = str(uuid.uuid4())
                    lease = await leases.acquire(org, session, holder, timedelta(seconds=30), timedelta(0))
                    for sequence in range(turns):
                        role = TurnRole.USER if sequence % 2 == 0 else TurnRole.ASSISTANT
                        turn = Turn(
                            role=role,
                            content=sentence(rng, 150 if role is TurnRole.USER else 450),
                            created_at=now,
                            idempotency_key=f"turn:{uuid.uuid4()}",
                        )
                        await store.append_turn(
                            org,
                            session,
                            turn,
                            max_turns=DEFAULT_MAX_TURNS,
                            ttl=DEFAULT_TTL,
                            now=now,
                            fencing_token=lease.fencing_token,
                        )
                    changes = WorkingMemory(
                        session_id=session,
                        summary=sentence(rng, 600),
                        active_plan=Plan(sentence(rng, 60), sentence(rng, 60), sentence(rng, 60)),
                        emotion_trajectory=tuple(
                            EmotionReading("focused", 0.3, 0.5, str(uuid.uuid4()), now) for _ in range(5)
                        ),
                        context_fingerprint=uuid.uuid4().hex + uuid.uuid4().hex,
                    )
                    paths = ("summary", "active_plan", "emotion_trajectory", "context_fingerprint")
                    await store.update(
                        org, session, changes, paths, ttl=DEFAULT_TTL, now=now, fencing_token=lease.fencing_token
                    )
                    await leases.release(org, session, holder, lease.fencing_token)
                    keys += [*store.keys(org, session), *leases.keys(org, session)]
                usage = {"hash": 0, "turns": 0, "fence": 0}
                for key in keys:
                    size = await client.memory_usage(key, samples=0)
                    if size is not None:
                        usage["fence" if key.endswith(":fence") else "turns" if key.endswith(":turns") else "hash"] += (
                            size
                        )
                used = (await client.info("memory"))["used_memory"] - baseline
                profiles[f"{turns} turns"] = {
                    "sessions": sessions,
                    "per_session": {part: size / sessions for part, size in usage.items()},
                    "used_memory_per_session": used / sessions,
                    "window": DEFAULT_MAX_TURNS,
                }
        finally:
            await client.aclose()
            server.stop()
    return profiles


# --------------------------------------------------------------------------- report


def segments_bytes(disk: dict[str, int]) -> int:
    """Everything but the write-ahead log (a fixed, preallocated per-shard cost)."""
    return sum(size for part, size in disk.items() if part != "wal")


def _size(value: float) -> str:
    return f"{value:,.0f}"


def report(results: dict[str, Any]) -> None:
    rows: list[tuple[str, int, str, str, str]] = []
    for run in results["qdrant"]:
        small, count = run["small"], run["count"]
        added = count - small["count"]  # the marginal cost: the fixed cost of a shard cancels out
        disk = (segments_bytes(run["disk"]) - segments_bytes(small["disk"])) / added
        anon = (run["rss_anon_kib"] - small["rss_anon_kib"]) * 1024 / added
        file = (run["rss_file_kib"] - small["rss_file_kib"]) * 1024 / added
        rows.append(
            (
                f"qdrant {run['kind']}",
                count,
                _size(disk),
                f"{_size(anon)} anon + {_size(file)} file",
                f"marginal from {small['count']}; WAL {run['disk'].get('wal', 0) / 2**20:.0f} MiB/shard; "
                f"{run['points']} points, {run['indexed_vectors']} indexed vectors, {run['segments']} segments",
            )
        )
    for table, row in results["postgres"]["tables"].items():
        rows.append(
            (
                f"postgres {table}",
                row["rows"],
                _size(row["total"] / max(1, row["rows"])),
                "",
                f"heap {_size(row['heap'] / max(1, row['rows']))}, toast {_size(row['toast'] / max(1, row['rows']))},"
                f" indexes {_size(row['indexes'] / max(1, row['rows']))}",
            )
        )
    for profile, figures in results["redis"].items():
        parts = figures["per_session"]
        rows.append(
            (
                f"redis session, {profile}",
                figures["sessions"],
                "",
                _size(sum(parts.values())),
                ", ".join(f"{part} {_size(size)}" for part, size in parts.items())
                + f"; used_memory {_size(figures['used_memory_per_session'])}",
            )
        )
    print(f"\n{'item':<38}{'count':>8}{'bytes/item disk':>17}  {'bytes/item RAM':<28}notes")
    for name, count, disk_bytes, ram, notes in rows:
        print(f"{name:<38}{count:>8}{disk_bytes:>17}  {ram:<28}{notes}")
    print("\nqdrant disk by component (marginal bytes per item):")
    for run in results["qdrant"]:
        small, added = run["small"], run["count"] - run["small"]["count"]
        parts = ", ".join(
            f"{part} {_size((size - small['disk'].get(part, 0)) / added)}"
            for part, size in sorted(run["disk"].items())
            if part != "wal"
        )
        print(f"  {run['kind']}: {parts}")
        print(
            f"    write {run['write_s']:.1f} s, optimize {run['optimize_s']:.1f} s; RSS right after optimize "
            f"{_size(run['rss_live_anon_kib'] * 1024 / run['count'])} anon + "
            f"{_size(run['rss_live_file_kib'] * 1024 / run['count'])} file bytes/item"
        )
    postgres = results["postgres"]
    print(
        f"\npostgres: database {postgres['database_bytes'] / 2**20:.0f} MiB; assembled context kept per user turn "
        f"{postgres['context_bytes']:,} bytes (protobuf, before TOAST compression); "
        + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in postgres["timings"].items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000, help="memory items per Qdrant run (HNSW needs ~7k+)")
    parser.add_argument("--episodes", type=int, default=2_000)
    parser.add_argument("--turns", type=int, default=6_000, help="transcript turns (half user, half assistant)")
    parser.add_argument("--observations", type=int, default=2_000)
    parser.add_argument("--accesses", type=int, default=15_000, help="access-log rows (3 per assembled context)")
    parser.add_argument("--sessions", type=int, default=100, help="Redis sessions per profile")
    parser.add_argument("--skip-int8", action="store_true", help="skip the quantised Qdrant run")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    args = parser.parse_args()

    started = time.perf_counter()
    kinds = [("memories", args.memories), ("memories-int8", args.memories), ("episodes", args.episodes)]
    if args.skip_int8:
        kinds.pop(1)
    results: dict[str, Any] = {"qdrant": []}
    for kind, count in kinds:
        small = qdrant_costs(kind, count // 4, args.seed + 1)
        run = qdrant_costs(kind, count, args.seed)
        print(f"qdrant {kind}: {count} written in {run['write_s']:.1f} s, optimized in {run['optimize_s']:.1f} s")
        results["qdrant"].append(run | {"small": small})
    load = PostgresLoad(turns=args.turns, observations=args.observations, accesses=args.accesses)
    results["postgres"] = asyncio.run(postgres_costs(load, args.seed))
    print("postgres: written and vacuumed")
    results["redis"] = asyncio.run(redis_costs(args.sessions, args.seed))
    report(results)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
