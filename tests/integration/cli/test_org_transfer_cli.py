"""`lore org export` / `lore org import`, `lore decay run`, `lore revalidate run` against the real services
(memory on qdrant-edge + Postgres + Redis, observations on Postgres with pgvector), as an operator runs them.

The key property: an org exported, imported as another org and exported again gives the same records
(ids re-derived for the copy, as documented), and restored into fresh stores under its own org gives the
same file, line for line, apart from the header's time.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from contextlib import AsyncExitStack
from pathlib import Path

import memory_svc.bootstrap
import memory_svc.config
import memory_svc.server
import observations_svc.bootstrap
import observations_svc.config
import observations_svc.server
import pytest
from google.protobuf import json_format
from lore.common.v1 import provenance_pb2, scope_pb2
from lore.memory.v1 import episode_service_pb2 as epb
from lore.memory.v1 import episode_service_pb2_grpc, memory_service_pb2_grpc
from lore.memory.v1 import memory_service_pb2 as mpb
from lore.observations.v1 import engagement_service_pb2 as gpb
from lore.observations.v1 import engagement_service_pb2_grpc, observation_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2 as opb
from lore_cli import org_ids, org_transfer

from tests.backends import fresh_migrated_database
from tests.grpc_harness import SERVICE_TOKEN_ENV, start_service
from tests.polling import eventually

LORE = str(Path(__file__).resolve().parents[3] / ".venv/bin/lore")
SUPPORT, CONTRADICT = opb.EVIDENCE_STANCE_SUPPORT, opb.EVIDENCE_STANCE_CONTRADICT


def tenant(org: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org), ("x-lore-principal", "operator"))


def environ(memory: str, observations: str) -> dict[str, str]:
    return {"LORE_MEMORY_ADDR": memory, "LORE_OBSERVATIONS_ADDR": observations, **SERVICE_TOKEN_ENV}


class Stubs:
    def __init__(self, memory_channel, observations_channel) -> None:
        self.memory = memory_service_pb2_grpc.MemoryServiceStub(memory_channel)
        self.episodes = episode_service_pb2_grpc.EpisodeServiceStub(memory_channel)
        self.observations = observation_service_pb2_grpc.ObservationServiceStub(observations_channel)
        self.engagement = engagement_service_pb2_grpc.EngagementServiceStub(observations_channel)


@pytest.fixture
def stubs(services) -> Stubs:
    return Stubs(services["memory"].channel, services["observations"].channel)


@pytest.fixture
def env(services) -> dict[str, str]:
    return environ(services["memory"].address, services["observations"].address)


async def build_rich_org(stubs: Stubs, org: str) -> dict[str, str]:
    """Memories in several scopes (one accessed, two consolidated, one archived), an episode, beliefs
    with support/contradict/context evidence (one superseded), and engagement with a finding, an
    archived and an active hypothesis, a resolved and an open unknown, in week 2."""
    meta = tenant(org)
    inputs = [
        ("Sam drinks green tea every morning.", scope_pb2.Scope(user_id="u-1"), "k-1"),
        ("Sam drinks green tea every morning!", scope_pb2.Scope(user_id="u-1"), "k-2"),
        ("The deploy runbook lives in the ops wiki.", scope_pb2.Scope(agent_id="aria"), "k-3"),
        ("The team ships on Thursdays.", scope_pb2.Scope(team_id="core"), "k-4"),
        ("The office closes at 6 pm.", scope_pb2.Scope(), "k-5"),
        ("Sam prefers window seats.", scope_pb2.Scope(user_id="u-1", agent_id="aria"), "k-6"),
    ]
    remembered = await stubs.memory.Remember(
        mpb.RememberRequest(
            memories=[
                mpb.MemoryInput(
                    content=content,
                    memory_type=mpb.MEMORY_TYPE_PREFERENCE if index < 2 else mpb.MEMORY_TYPE_FACT,
                    scope=scope,
                    importance=0.2 + 0.1 * index,
                    metadata={"turn_ref": f"D1:{index}"},
                    idempotency_key=key,
                    entities=["Sam"] if "Sam" in content else [],
                    # A client's own writes (API), which Remember keeps as asked: reflection's restatement of
                    # a fact it already keeps would be folded into it, and there would be nothing to consolidate.
                    provenance=provenance_pb2.Provenance(
                        session_id="s-1", turn_ids=[f"t-{index}"], source=provenance_pb2.PROVENANCE_SOURCE_API
                    ),
                )
                for index, (content, scope, key) in enumerate(inputs)
            ]
        ),
        metadata=meta,
    )
    ids = [memory.id for memory in remembered.memories]
    await stubs.memory.RecordAccess(mpb.RecordAccessRequest(memory_ids=[ids[2]], reason="client"), metadata=meta)

    async def counted() -> bool:  # the counters follow the answer, within LORE_ACCESS_FLUSH_SECONDS
        found = await stubs.memory.GetMemory(mpb.GetMemoryRequest(id=ids[2]), metadata=meta)
        return found.memory.access_count == 1

    await eventually(counted, timeout=10, what="the access was not counted")
    consolidated = await stubs.memory.RunConsolidation(
        mpb.RunConsolidationRequest(scope=scope_pb2.Scope(user_id="u-1"), threshold=0.9), metadata=meta
    )
    assert consolidated.consolidated == 1
    await stubs.memory.ForgetMemory(mpb.ForgetMemoryRequest(id=ids[4]), metadata=meta)
    await stubs.memory.RunDecay(mpb.RunDecayRequest(), metadata=meta)
    episode = await stubs.episodes.CreateEpisode(
        epb.CreateEpisodeRequest(
            episode=epb.Episode(
                conversation_id="s-1",
                scope=scope_pb2.Scope(user_id="u-1", agent_id="aria"),
                summary="Sam planned a trip and asked about tea shops.",
                key_topics=["travel", "tea"],
                entities_discussed=["sam"],
                user_state=epb.UserState(mood="cheerful", focus="travel"),
                outcomes=[epb.Outcome(type="decision", content="Book the train.")],
                open_threads=[
                    epb.OpenThread(topic="hotel", status=epb.THREAD_STATUS_OPEN, context="two options"),
                    epb.OpenThread(topic="visa", status=epb.THREAD_STATUS_RESOLVED),
                ],
                decisions=["train over plane"],
                action_items=[epb.ActionItem(owner="Sam", task="book the train", deadline="Friday")],
                next_session_questions=["Which hotel?"],
                message_count=12,
                importance=0.7,
                metadata={"source": "test"},
            ),
            request_id="episode-1",
        ),
        metadata=meta,
    )

    def candidate(summary: str, slot: str, *evidence: opb.EvidenceInput) -> opb.ObservationCandidate:
        return opb.ObservationCandidate(
            kind=opb.OBSERVATION_KIND_OPERATOR_PREFERENCE,
            subject_type=opb.SUBJECT_TYPE_ENTITY,
            subject_id="sam",
            slot=slot,
            summary=summary,
            detail="said in passing",
            tags=["drinks"],
            evidence=list(evidence),
        )

    first = await stubs.observations.Observe(
        opb.ObserveRequest(
            agent_id="aria",
            candidate=candidate(
                "Sam drinks tea.",
                "drink",
                opb.EvidenceInput(
                    stance=SUPPORT, weight=3.0, source_type=opb.SOURCE_TYPE_MEMORY_ITEM, source_id=ids[0]
                ),
                opb.EvidenceInput(
                    stance=opb.EVIDENCE_STANCE_CONTEXT,
                    source_type=opb.SOURCE_TYPE_EPISODE,
                    source_id=episode.episode.id,
                    excerpt="asked about tea shops",
                ),
            ),
        ),
        metadata=meta,
    )
    weak = await stubs.observations.Observe(
        opb.ObserveRequest(
            agent_id="aria",
            candidate=candidate(
                "Sam drinks coffee.",
                "drink",
                opb.EvidenceInput(stance=SUPPORT, source_type=opb.SOURCE_TYPE_MESSAGE, source_id="t-9"),
            ),
        ),
        metadata=meta,
    )
    assert weak.outcome == opb.OBSERVE_OUTCOME_CONTRADICTED
    strong = await stubs.observations.Observe(
        opb.ObserveRequest(
            agent_id="aria",
            candidate=candidate(
                "Sam drinks coffee.",
                "drink",
                opb.EvidenceInput(stance=SUPPORT, source_type=opb.SOURCE_TYPE_MESSAGE, source_id="t-10", weight=2.5),
            ),
        ),
        metadata=meta,
    )
    assert strong.outcome == opb.OBSERVE_OUTCOME_SUPERSEDED
    assert strong.observation.supersedes_observation_id == first.observation.id
    await stubs.observations.Observe(
        opb.ObserveRequest(
            agent_id="aria",
            candidate=candidate(
                "Sam likes window seats.",
                "seat",
                opb.EvidenceInput(stance=SUPPORT, source_type=opb.SOURCE_TYPE_ENTITY, source_id="sam"),
            ),
        ),
        metadata=meta,
    )
    await stubs.observations.ConfirmObservation(
        opb.ConfirmObservationRequest(id=strong.observation.id, note="checked"), metadata=meta
    )

    def line(statement: str, stance: int = SUPPORT) -> gpb.HypothesisEvidenceInput:
        return gpb.HypothesisEvidenceInput(statement=statement, stance=stance, weight=1.0)

    finding_to_be = await stubs.engagement.FormHypothesis(
        gpb.FormHypothesisRequest(
            statement="Onboarding emails cut churn.", evidence=[line("Cohort A kept more users."), line("So did B.")]
        ),
        metadata=meta,
    )
    hypothesis_id = finding_to_be.hypothesis.id
    await stubs.engagement.AddHypothesisEvidence(
        gpb.AddHypothesisEvidenceRequest(hypothesis_id=hypothesis_id, evidence=line("C churned.", CONTRADICT)),
        metadata=meta,
    )
    await stubs.engagement.ReviseHypothesis(
        gpb.ReviseHypothesisRequest(hypothesis_id=hypothesis_id, confidence=0.85, reason="C had no emails."),
        metadata=meta,
    )
    await stubs.engagement.AddHypothesisEvidence(
        gpb.AddHypothesisEvidenceRequest(hypothesis_id=hypothesis_id, evidence=line("Cohort D kept more users.")),
        metadata=meta,
    )
    promoted = await stubs.engagement.PromoteHypothesis(
        gpb.PromoteHypothesisRequest(hypothesis_id=hypothesis_id), metadata=meta
    )
    assert promoted.hypothesis.status == gpb.HYPOTHESIS_STATUS_PROMOTED
    archived = await stubs.engagement.FormHypothesis(
        gpb.FormHypothesisRequest(statement="Pricing drives churn."), metadata=meta
    )
    await stubs.engagement.ArchiveHypothesis(
        gpb.ArchiveHypothesisRequest(hypothesis_id=archived.hypothesis.id, note="No signal."), metadata=meta
    )
    await stubs.engagement.FormHypothesis(
        gpb.FormHypothesisRequest(statement="Support speed matters.", evidence=[line("Tickets closed fast.")]),
        metadata=meta,
    )
    resolved = await stubs.engagement.AddUnknown(
        gpb.AddUnknownRequest(question="Who owns billing?", why_it_matters="Churn follow-up."), metadata=meta
    )
    await stubs.engagement.ResolveUnknown(
        gpb.ResolveUnknownRequest(unknown_id=resolved.unknown.id, resolution="Dana."), metadata=meta
    )
    await stubs.engagement.AddUnknown(
        gpb.AddUnknownRequest(question="Is Q3 seasonal?", why_it_matters="Baseline."), metadata=meta
    )
    await stubs.engagement.AdvanceWeek(gpb.AdvanceWeekRequest(), metadata=meta)
    return {"accessed": ids[2], "superseded": first.observation.id, "episode": episode.episode.id}


async def export(env: dict[str, str], org: str, path: Path, capsys) -> tuple[dict, list[str]]:
    assert await org_transfer.export_org(env, org=org, output=path) == 0, capsys.readouterr().err
    header, *lines = path.read_text().splitlines()
    return json.loads(header), lines


async def import_(env: dict[str, str], org: str, path: Path, capsys) -> tuple[int, str, str]:
    code = await org_transfer.import_org(env, org=org, source=path)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def translated(lines: list[str], source: str, target: str) -> list[str]:
    """``lines`` as a copy into ``target`` carries them (the documented id derivation)."""
    out = []
    for text in lines:
        kind, record = org_transfer.parse_line(0, text)
        org_ids.translate(kind, record, source, target)
        out.append(org_transfer.record_line(kind, record))
    return out


def canonical(lines: list[str]) -> list[str]:
    """Records in a fixed order; a record's evidence lines in the store's order (time, then id), which
    new ids may reorder among lines written in the same instant."""
    out = []
    for text in lines:
        document = json.loads(text)
        evidence = document["record"].get("evidence")
        if evidence:
            evidence.sort(key=lambda item: (item.get("recordedAt") or item.get("createdAt"), item["id"]))
        out.append(json.dumps(document, sort_keys=True))
    return sorted(out)


async def test_an_org_round_trips_through_export_and_import(services, stubs, env, tmp_path, capsys):
    org_a, org_b = "org-export-a", "org-export-b"
    facts = await build_rich_org(stubs, org_a)

    header, lines_a = await export(env, org_a, tmp_path / "a.jsonl", capsys)
    assert (header["format"], header["version"], header["org"]) == ("lore.org-export", 1, org_a)
    assert header["counts"] == {
        "memory": 6,
        "episode": 1,
        "observation": 3,
        "engagement": 1,
        "hypothesis": 3,
        "unknown": 2,
    }
    records = [json.loads(text) for text in lines_a]
    memories = {r["record"]["id"]: r["record"] for r in records if r["kind"] == "memory"}
    assert memories[facts["accessed"]]["accessCount"] == 1
    assert {m["status"] for m in memories.values()} == {
        "MEMORY_STATUS_ACTIVE",
        "MEMORY_STATUS_CONSOLIDATED",
        "MEMORY_STATUS_ARCHIVED",
    }
    assert {json.dumps(m.get("scope", {}), sort_keys=True) for m in memories.values()} >= {
        '{"userId": "u-1"}',
        '{"agentId": "aria"}',
        '{"teamId": "core"}',
        "{}",
    }
    observations = [r["record"] for r in records if r["kind"] == "observation"]
    superseded = next(o for o in observations if o["id"] == facts["superseded"])
    assert superseded["status"] == "OBSERVATION_STATUS_SUPERSEDED"
    assert {e["stance"] for e in superseded["evidence"]} == {
        "EVIDENCE_STANCE_SUPPORT",
        "EVIDENCE_STANCE_CONTRADICT",
        "EVIDENCE_STANCE_CONTEXT",
    }
    hypotheses = [r["record"] for r in records if r["kind"] == "hypothesis"]
    promoted = next(h for h in hypotheses if h["status"] == "HYPOTHESIS_STATUS_PROMOTED")
    assert promoted["finding"]["hypothesisId"] == promoted["id"]
    assert [line.get("epoch", 0) for line in promoted["evidence"]] == [0, 0, 0, 1]

    code, out, err = await import_(env, org_b, tmp_path / "a.jsonl", capsys)
    assert code == 0, err
    assert "6 memory, 1 episode, 3 observation, 3 hypothesis, 2 unknown" in out

    _, lines_b = await export(env, org_b, tmp_path / "b.jsonl", capsys)
    assert canonical(lines_b) == canonical(translated(lines_a, org_a, org_b))

    # Imported memories are searchable in B, and the superseded belief keeps its place in the chain.
    recall = await stubs.memory.Recall(
        mpb.RecallRequest(query="What does Sam drink?", scope=scope_pb2.Scope(user_id="u-1"), record_access=False),
        metadata=tenant(org_b),
    )
    assert recall.results and "tea" in recall.results[0].memory.content
    copied = org_ids.copied_id(org_a, org_b, facts["superseded"])
    history = await stubs.observations.GetObservationHistory(
        opb.GetObservationHistoryRequest(id=copied), metadata=tenant(org_b)
    )
    assert [o.status for o in history.observations] == [
        opb.OBSERVATION_STATUS_ACTIVE,
        opb.OBSERVATION_STATUS_SUPERSEDED,
    ]

    # A re-import changes nothing and duplicates nothing.
    code, out, err = await import_(env, org_b, tmp_path / "a.jsonl", capsys)
    assert code == 0, err
    assert "0 memory, 0 episode, 0 observation, 0 hypothesis, 0 unknown" in out and "15 already there" in out
    _, again = await export(env, org_b, tmp_path / "b2.jsonl", capsys)
    assert sorted(again) == sorted(lines_b)

    # B's import never touched A.
    _, lines_a_after = await export(env, org_a, tmp_path / "a2.jsonl", capsys)
    assert sorted(lines_a_after) == sorted(lines_a)


async def test_a_restore_into_fresh_stores_reproduces_the_file(
    services, stubs, env, pg_superuser_dsn, redis_url, tmp_path, capsys
):
    org = "org-restore"
    await build_rich_org(stubs, org)
    _, original = await export(env, org, tmp_path / "original.jsonl", capsys)

    async with AsyncExitStack() as stack:
        database = await stack.enter_async_context(fresh_migrated_database(pg_superuser_dsn, "lore_restore"))
        base = {
            "LORE_DATABASE_URL": database.app_dsn,
            "LORE_REDIS_URL": redis_url,
            "LORE_DATA_DIR": str(tmp_path / "fresh-data"),
            "LORE_MAINTENANCE_INTERVAL_SECONDS": "0",
            "LORE_REVALIDATION_INTERVAL_SECONDS": "0",
        }
        embedder = services["memory"].container.embedder
        memory = await start_service(
            stack,
            "memory",
            memory_svc.bootstrap,
            memory_svc.server,
            memory_svc.config.Settings,
            base,
            overrides=memory_svc.bootstrap.MemoryOverrides(embedder=embedder),
        )
        observations = await start_service(
            stack,
            "observations",
            observations_svc.bootstrap,
            observations_svc.server,
            observations_svc.config.Settings,
            base,
            overrides=observations_svc.bootstrap.ObservationsOverrides(
                embedder=services["observations"].container.embedder
            ),
        )
        fresh = environ(memory.address, observations.address)
        code, out, err = await import_(fresh, org, tmp_path / "original.jsonl", capsys)
        assert code == 0, err
        assert "(a copy" not in out  # the file's own org: ids kept
        _, restored = await export(fresh, org, tmp_path / "restored.jsonl", capsys)
        assert sorted(restored) == sorted(original)
        # Searchable: the vectors were made on import.
        found = await Stubs(memory.channel, observations.channel).observations.SearchObservations(
            opb.SearchObservationsRequest(agent_id="aria", query="What does Sam drink?"), metadata=tenant(org)
        )
        assert found.results and found.results[0].observation.summary == "Sam drinks coffee."


async def test_a_tampered_line_is_refused_with_its_number_and_nothing_of_its_batch_is_written(
    stubs, env, tmp_path, capsys
):
    org, target = "org-tamper-src", "org-tamper-dst"
    await build_rich_org(stubs, org)
    _, lines = await export(env, org, tmp_path / "src.jsonl", capsys)
    header = (tmp_path / "src.jsonl").read_text().splitlines()[0]
    position = 3  # the fourth memory, line 5 of the file
    record = json.loads(lines[position])
    assert record["kind"] == "memory"
    record["record"]["importance"] = 7
    lines[position] = json.dumps(record)
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join([header, *lines]) + "\n")

    code, _, err = await import_(env, target, tampered, capsys)
    assert code == 1
    assert "line 5:" in err and "memories[3].importance" in err and "must be between 0 and 1" in err
    listed = await stubs.memory.ListMemories(mpb.ListMemoriesRequest(), metadata=tenant(target))
    assert list(listed.memories) == []

    observation_line = next(i for i, text in enumerate(lines) if json.loads(text)["kind"] == "observation")
    lines[position] = json.dumps(json.loads((tmp_path / "src.jsonl").read_text().splitlines()[position + 1]))
    record = json.loads(lines[observation_line])
    record["record"]["evidence"][0]["weight"] = 0
    lines[observation_line] = json.dumps(record)
    tampered.write_text("\n".join([header, *lines]) + "\n")
    code, _, err = await import_(env, target, tampered, capsys)
    assert code == 1
    assert f"line {observation_line + 2}:" in err and "evidence[0].weight" in err
    beliefs = await stubs.observations.QueryObservations(
        opb.QueryObservationsRequest(agent_id="aria"), metadata=tenant(target)
    )
    assert list(beliefs.observations) == []  # the whole observation batch was refused


async def test_a_file_without_a_header_or_of_another_version_is_refused(env, tmp_path, capsys):
    body = json.dumps({"kind": "unknown", "record": {}})
    for content, expected in [
        (body + "\n", "line 1: not a Lore org export"),
        (json.dumps({"format": "lore.org-export", "version": 2, "org": "x"}) + "\n", "version 2 is not supported"),
        (json.dumps({"format": "something-else", "version": 1, "org": "x"}) + "\n", "not a Lore org export"),
    ]:
        path = tmp_path / "bad.jsonl"
        path.write_text(content)
        code, _, err = await import_(env, "org-bad-file", path, capsys)
        assert code == 1 and expected in err


async def test_an_id_of_another_org_is_refused_not_moved(stubs, env, tmp_path, capsys):
    """A file forged to carry org A's ids under B's name in the header: the stores refuse them."""
    org_a = "org-owner"
    await build_rich_org(stubs, org_a)
    header, lines = await export(env, org_a, tmp_path / "a.jsonl", capsys)
    header["org"] = "org-thief"
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([json.dumps(header), *lines]) + "\n")
    code, _, err = await import_(env, "org-thief", forged, capsys)
    assert code == 1 and "ALREADY_EXISTS" in err and "belongs to another organisation" in err
    _, after = await export(env, org_a, tmp_path / "a2.jsonl", capsys)
    assert sorted(after) == sorted(lines)


async def lore(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    clean = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    process = await asyncio.create_subprocess_exec(
        LORE, *args, env={**clean, **SERVICE_TOKEN_ENV, **env}, stdout=-1, stderr=-1
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    return process.returncode, out.decode(), err.decode()


async def test_decay_and_revalidation_run_by_hand_through_the_services(stubs, env):
    org = "org-maintenance"
    await stubs.memory.Remember(
        mpb.RememberRequest(memories=[mpb.MemoryInput(content="Ada likes tea.", memory_type=mpb.MEMORY_TYPE_FACT)]),
        metadata=tenant(org),
    )
    await stubs.observations.Observe(
        opb.ObserveRequest(
            candidate=opb.ObservationCandidate(
                kind=opb.OBSERVATION_KIND_WORLD_FACT,
                subject_type=opb.SUBJECT_TYPE_GLOBAL,
                slot="office",
                summary="The office is in Leeds.",
                evidence=[opb.EvidenceInput(stance=SUPPORT, source_type=opb.SOURCE_TYPE_MESSAGE, source_id="t-1")],
            )
        ),
        metadata=tenant(org),
    )
    code, out, err = await lore(env, "decay", "run", "--org", org)
    assert code == 0, err
    assert out.startswith(f"decay of org {org}: ") and "memories updated" in out
    code, out, err = await lore(env, "revalidate", "run", "--org", org)
    assert code == 0, err
    assert out.startswith(f"revalidation of org {org}: ") and "0 marked stale" in out

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{probe.getsockname()[1]}"
    code, _, err = await lore({"LORE_MEMORY_ADDR": closed}, "decay", "run", "--org", org)
    assert code == 1 and f"the memory service at {closed} is unreachable" in err
    code, _, err = await lore({"LORE_OBSERVATIONS_ADDR": closed}, "revalidate", "run", "--org", org)
    assert code == 1 and "LORE_OBSERVATIONS_ADDR" in err


def test_record_lines_are_proto3_json_of_the_service_messages():
    memory = mpb.Memory(id="5b3c3a8e-9a43-4d6e-8f21-3c0b7e9a4d58", content="x", importance=0.25)
    kind, parsed = org_transfer.parse_line(2, org_transfer.record_line("memory", memory))
    assert kind == "memory" and parsed == memory
    assert json.loads(org_transfer.record_line("memory", memory))["record"] == json_format.MessageToDict(memory)


async def test_the_commands_stream_through_stdout_and_stdin_and_name_an_unreachable_service(stubs, env, tmp_path):
    org = "org-pipe"
    await stubs.memory.Remember(
        mpb.RememberRequest(
            memories=[mpb.MemoryInput(content="Ada likes tea.", memory_type=mpb.MEMORY_TYPE_FACT, idempotency_key="a")]
        ),
        metadata=tenant(org),
    )
    code, out, err = await lore(env, "org", "export", "--org", org)
    assert code == 0, err
    header, *lines = out.splitlines()
    assert json.loads(header)["counts"]["memory"] == 1 and len(lines) == 1
    assert "exported org org-pipe: 1 memory" in err

    clean = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    process = await asyncio.create_subprocess_exec(
        LORE, "org", "import", "--org", "org-pipe-copy", env={**clean, **env}, stdin=-1, stdout=-1, stderr=-1
    )
    piped_out, piped_err = await asyncio.wait_for(process.communicate(out.encode()), timeout=120)
    assert process.returncode == 0, piped_err.decode()
    assert "imported into org org-pipe-copy (a copy of org org-pipe: new ids): 1 memory" in piped_out.decode()

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{probe.getsockname()[1]}"
    code, _, err = await lore({**env, "LORE_MEMORY_ADDR": closed}, "org", "export", "--org", org)
    assert code == 1 and f"the memory service at {closed} is unreachable" in err
    (tmp_path / "one.jsonl").write_text(out)
    code, _, err = await lore(
        {**env, "LORE_MEMORY_ADDR": closed}, "org", "import", "--org", org, "--input", str(tmp_path / "one.jsonl")
    )
    assert code == 1 and f"the memory service at {closed} is unreachable" in err
