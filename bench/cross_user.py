"""Private by scope: how much of other users' memory reaches a user's context, and what the wall costs.

    .venv/bin/python -m bench.cross_user [--conversations 4] [--questions 40] [--engagement]

Starts the whole stack as the README does (``lore up``, embedded back ends, a temporary data
directory, free ports). Each LoCoMo conversation of ../shared/data/locomo-dev.json becomes one user
of one org talking to one agent (``companion``): a session, its turns imported with their real
times (speaker A as the user, speaker B as the assistant), and reflection left to finish, so the org
holds each user's message memories, extracted facts, beliefs and (with ``--engagement``, which lists
the agent in ``LORE_ENGAGEMENT_AGENTS``) engagement hypotheses.

Then, for ``--questions`` LoCoMo questions spread over the conversations, POST /v1/context:assemble
for the question's own user, and GET /v1/memory/prime (with the question as initial message) for it
and for a brand-new user of the org. Every candidate of every manifest (kept or dropped) is
attributed to its owner, read back with the org key (memories, beliefs and episodes by their scope;
hypotheses by the turns their evidence cites), and counted: the user's own, the org's shared ones,
another user's. Prints the counts and the latency of both calls (p50/p95, one client), and the CPU
each process of the stack spent per call over those calls (AssembleContext, Prime and the newcomer's
Prime, interleaved; bench.measure.CpuMeter: from the first call until the stack is idle again).

Embeddings: every call, all with default options, embeds its message in the memory service (the
assembler hands recall's vector to the belief and episode searches), whose LRU of query embeddings
is keyed by the exact text embedded, the message without its names (bench.measure.memory_embeds).
Questions are picked among the first of each embedded text: LoCoMo asks one question twice in
conv-30, and questions differing only by a name ("What books has … read?") are one embedding, so
a repeat would be answered from the cache. The user's Prime asks the question its AssembleContext
just embedded, so it is answered from that cache: realistic, since an agent's conversation opens
the same way (StartSession primes with the opening message, then the first turn assembles a
context for that same message: one embedding for the two calls), and the question must be the
question for the counts to mean anything. So per question AssembleContext's latency includes the
embedding and Prime's does not (an agent's order is the other way round: its Prime would carry
it). The newcomer is another person, who would not open with another user's exact words: its
message is the question after "Hi, I'm new here." (its own embedding; the wall is what it
measures, not what it finds). Two embeddings per three calls, in the CPU per call; the cache's
hits and misses over the calls are printed (bench.measure.EmbeddingCacheMeter: one hit per
question, the user's Prime).

Runs against any version of the API that has these routes, so the same command measures before and
after a change (beliefs recorded before scopes existed are attributed by their ``entity:<user>``
subject).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bench.local_stack import stack_environment, start, stop
from bench.measure import CpuMeter, EmbeddingCacheMeter, memory_embeds, percentile

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
KEY = "bench-development-key-0123456789"
AGENT = "companion"
IMPORT_BATCH = 400


def _session_date(text: str) -> datetime:
    return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _turns(sample: dict[str, Any]) -> list[dict[str, Any]]:
    conversation = sample["conversation"]
    speaker_a = conversation["speaker_a"]
    turns = []
    sessions = sorted(
        (key for key in conversation if key.startswith("session_") and isinstance(conversation[key], list)),
        key=lambda key: int(key.split("_")[1]),
    )
    for key in sessions:
        when = _session_date(conversation[f"{key}_date_time"])
        for index, turn in enumerate(conversation[key]):
            text = turn["text"] + (f" [shares {turn['blip_caption']}]" if turn.get("blip_caption") else "")
            turns.append(
                {
                    "role": "TURN_ROLE_USER" if turn["speaker"] == speaker_a else "TURN_ROLE_ASSISTANT",
                    "content": text,
                    "createdAt": when.replace(second=index % 60).isoformat().replace("+00:00", "Z"),
                    "metadata": {"dia_id": turn["dia_id"]},
                }
            )
    return turns


async def _ok(response: httpx.Response) -> Any:
    if response.status_code != 200:
        raise SystemExit(f"{response.request.method} {response.request.url}: {response.status_code} {response.text}")
    return response.json()


async def _pages(client: httpx.AsyncClient, path: str, listed: str, **params: str) -> list[dict[str, Any]]:
    items, token = [], ""
    while True:
        page = await _ok(await client.get(path, params={**params, "pageSize": "500", "pageToken": token}))
        items += page[listed]
        token = page["nextPageToken"]
        if not token:
            return items


async def _import(client: httpx.AsyncClient, sample: dict[str, Any]) -> tuple[str, int]:
    user = sample["sample_id"]
    started = await _ok(await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": AGENT}}))
    session = started["session"]["id"]
    turns = _turns(sample)
    for begin in range(0, len(turns), IMPORT_BATCH):
        body = {"turns": turns[begin : begin + IMPORT_BATCH]}
        await _ok(await client.post(f"/v1/sessions/{session}/turns:import", json=body))
    return session, len(turns)


async def _reflected(client: httpx.AsyncClient, sessions: dict[str, int]) -> float:
    began = time.monotonic()
    while True:
        done = [
            (await _ok(await client.get(f"/v1/sessions/{session}")))["session"]["reflectedTurns"] >= count
            for session, count in sessions.items()
        ]
        if all(done):
            return time.monotonic() - began
        await asyncio.sleep(2)


async def _owners(client: httpx.AsyncClient, users: dict[str, str]) -> dict[str, str]:
    """Every candidate id the org holds → its user ("" for the org's shared records)."""
    owner: dict[str, str] = {}
    for user in users:
        for memory in await _pages(client, "/v1/memories", "memories", userId=user):
            owner[memory["id"]] = memory["scope"]["userId"]
        for episode in await _pages(client, "/v1/episodes", "episodes", userId=user):
            owner[episode["id"]] = user
    for memory in await _pages(client, "/v1/memories", "memories"):
        owner.setdefault(memory["id"], memory["scope"]["userId"])
    # By agent: before scopes, a query without one read only agent-less beliefs.
    for belief in await _pages(client, "/v1/observations", "observations", agentId=AGENT):
        scoped = belief.get("scope", {}).get("userId", "")
        subject = belief["subjectId"] if belief["subjectType"] == "SUBJECT_TYPE_ENTITY" else ""
        owner[belief["id"]] = scoped or (subject if subject in users else "")
    turn_owner = {}
    for user, session in users.items():
        for turn in await _pages(client, f"/v1/sessions/{session}/turns", "turns"):
            turn_owner[turn["id"]] = user
    engagement = await _ok(await client.get("/v1/engagement"))
    for hypothesis in engagement["hypotheses"]:
        cited = {turn_owner.get(line["source"].removeprefix("turn:"), "") for line in hypothesis["evidence"]}
        owner[hypothesis["id"]] = next(iter(cited)) if len(cited) == 1 else ""
    return owner


def _tally(manifest: list[dict[str, Any]], user: str, owner: dict[str, str], counts: Counter[str]) -> None:
    for entry in manifest:
        if entry["source"] in ("CANDIDATE_SOURCE_CALLER", "CANDIDATE_SOURCE_WORKING_MEMORY"):
            continue
        found = owner.get(entry["id"])
        kind = "unknown" if found is None else "own" if found == user else "shared" if found == "" else "other"
        kept = "kept" if entry["outcome"] == "MANIFEST_OUTCOME_KEPT" else "dropped"
        counts[f"{kind} {kept}"] += 1
        if entry["source"] == "CANDIDATE_SOURCE_ENGAGEMENT" and kept == "kept":
            counts[f"hypotheses {kind}"] += 1


async def run(args: argparse.Namespace) -> dict[str, Any]:
    samples = json.loads(Path(args.data).read_text())[: args.conversations]
    extra = {"LORE_ENGAGEMENT_AGENTS": AGENT} if args.engagement else {}
    with tempfile.TemporaryDirectory(prefix="lore-bench-users-") as directory:
        data_dir = Path(directory) / "data"
        env, url = stack_environment(data_dir, KEY, **extra)
        process, _ = start(data_dir, env, url)
        try:
            async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {KEY}"}, timeout=60) as api:
                sessions, users = {}, {}
                for sample in samples:
                    session, count = await _import(api, sample)
                    sessions[session], users[sample["sample_id"]] = count, session
                reflect_seconds = await _reflected(api, sessions)
                owner = await _owners(api, users)

                rng = random.Random(7)
                # Each embedded text once (the docstring says why): the first question of each.
                first: dict[str, tuple[str, str]] = {}
                for sample in samples:
                    for qa in sample["qa"]:
                        if qa.get("evidence"):
                            first.setdefault(memory_embeds(qa["question"]), (sample["sample_id"], qa["question"]))
                questions = list(first.values())
                picked = rng.sample(questions, min(args.questions, len(questions)))
                contexts: Counter[str] = Counter()
                primes: Counter[str] = Counter()
                newcomer: Counter[str] = Counter()
                assemble_ms, prime_ms = [], []
                meter, cache = CpuMeter.of_stack(process.pid, data_dir), EmbeddingCacheMeter.of_env(env)
                cache.start()
                meter.start()
                for user, question in picked:
                    scope = {"userId": user, "agentId": AGENT}
                    began = time.perf_counter()
                    context = await _ok(
                        await api.post("/v1/context:assemble", json={"scope": scope, "message": question})
                    )
                    assemble_ms.append((time.perf_counter() - began) * 1000)
                    _tally(context["context"]["manifest"], user, owner, contexts)
                    began = time.perf_counter()
                    params = {"userId": user, "agentId": AGENT, "initialMessage": question}
                    primed = await _ok(await api.get("/v1/memory/prime", params=params))
                    prime_ms.append((time.perf_counter() - began) * 1000)
                    _tally(primed["manifest"], user, owner, primes)
                    opening = f"Hi, I'm new here. {question}"  # another person's words, not the user's
                    params = {"userId": f"newcomer-{user}", "agentId": AGENT, "initialMessage": opening}
                    fresh = await _ok(await api.get("/v1/memory/prime", params=params))
                    _tally(fresh["manifest"], f"newcomer-{user}", owner, newcomer)
                cpu = await meter.stop_async(3 * len(picked))
                print(f"AssembleContext, Prime and a newcomer's Prime for each of {len(picked)} questions:")
                print(cpu.line())
                print(cache.line())  # the user's Prime answered from it: one hit per question (docstring)
        finally:
            stop(process)
    return {
        "conversations": len(samples),
        "turns": sum(sessions.values()),
        "reflection_seconds": round(reflect_seconds, 1),
        "records_attributed": len(owner),
        "questions": len(picked),
        "engagement_agents": AGENT if args.engagement else "",
        "context_candidates": dict(sorted(contexts.items())),
        "prime_candidates": dict(sorted(primes.items())),
        "newcomer_prime_candidates": dict(sorted(newcomer.items())),
        "assemble_ms_p50_p95": [round(percentile(assemble_ms, 50), 1), round(percentile(assemble_ms, 95), 1)],
        "prime_ms_p50_p95": [round(percentile(prime_ms, 50), 1), round(percentile(prime_ms, 95), 1)],
        "cpu_ms_per_call": {name: round(ms, 2) for name, ms in cpu.per_call_ms().items()},
        "cpu_span": f"{cpu.span}; {cpu.calls} calls",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DATA), help="the LoCoMo file")
    parser.add_argument("--conversations", type=int, default=4)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--engagement", action="store_true", help="list the agent in LORE_ENGAGEMENT_AGENTS")
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=2))


if __name__ == "__main__":
    main()
