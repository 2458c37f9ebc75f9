"""The contracts: generated code is fresh, buf lint is clean, every RPC of the design exists."""

from __future__ import annotations

import filecmp
import importlib
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# ARCHITECTURE.md §1: every gRPC service and RPC, by package.
DESIGNED_RPCS = {
    "lore.memory.v1.working_memory_service_pb2": {
        "WorkingMemoryService": [
            "GetWorkingMemory",
            "AppendTurn",
            "UpdateWorkingMemory",
            "ClearWorkingMemory",
            "AcquireSessionLease",
            "ReleaseSessionLease",
        ],
    },
    "lore.memory.v1.memory_service_pb2": {
        "MemoryService": [
            "Remember",
            "Recall",
            "RecordAccess",
            "GetMemory",
            "ListMemories",
            "UpdateMemory",
            "ForgetMemory",
            "ForgetSubject",
            "RunDecay",
            "RunConsolidation",
            "Reindex",
            "ExportMemories",
            # Added since the first contract: `lore org import`.
            "ImportMemories",
            # Added since the first contract: erased content gone from the stores' files.
            "PurgeErased",
            # Added since the first contract: erasure's fence on the writes routed straight to the service.
            "FenceSubject",
            "LiftSubjectFence",
        ],
    },
    "lore.memory.v1.episode_service_pb2": {
        "EpisodeService": [
            "CreateEpisode",
            "GetEpisode",
            "ListEpisodes",
            "ListOpenThreads",
            # Added since the first contract: threads that close.
            "ResolveThread",
            # Added since the first contract: `lore org export` / `lore org import`.
            "ExportEpisodes",
            "ImportEpisodes",
            # Added since the first contract: episodes searched by meaning, their uses recorded.
            "SearchEpisodes",
            "RecordEpisodeAccess",
            # Added since the first contract: an episode holding what the user asked to forget is rewritten.
            "RewriteEpisode",
            "DeleteEpisode",
        ],
    },
    # Added since the first contract: a context's reads of the memory service in one call, and what it kept in one.
    "lore.memory.v1.context_source_service_pb2": {
        "ContextSourceService": ["GatherContext", "RecordContextUse"],
    },
    "lore.observations.v1.observation_service_pb2": {
        "ObservationService": [
            "Observe",
            "GetObservation",
            "QueryObservations",
            "SearchObservations",
            "ConfirmObservation",
            "ContradictObservation",
            "GetObservationHistory",
            "RunRevalidation",
            "EraseSubject",
            # Added since the first contract: `lore org export` / `lore org import`.
            "ExportObservations",
            "ImportObservations",
            # Added since the first contract: erasure's fence on the writes routed straight to the service.
            "FenceSubject",
            "LiftSubjectFence",
        ],
    },
    "lore.observations.v1.engagement_service_pb2": {
        "EngagementService": [
            "GetEngagement",
            "FormHypothesis",
            "AddHypothesisEvidence",
            "ReviseHypothesis",
            "PromoteHypothesis",
            "ArchiveHypothesis",
            "AddUnknown",
            "ResolveUnknown",
            "AdvanceWeek",
            # Added since the first contract: `lore org export` / `lore org import`.
            "ExportEngagement",
            "ImportEngagement",
        ],
    },
    "lore.assembler.v1.assembler_service_pb2": {"AssemblerService": ["AssembleContext", "Prime", "GetUserProfile"]},
    "lore.agent.v1.agent_service_pb2": {
        "AgentService": [
            "StartSession",
            "GetSession",
            "ListSessions",
            "ProcessTurn",
            "ImportTurns",
            "ListTurns",
            "EndSession",
            "ForgetSubject",
            # Added since the first contract: the job queue's state (docs/agent.md), background work made visible.
            "GetJobStats",
            "RetryJobs",
            # Added since the first contract: what the memory browser reads (a turn's kept context, the jobs).
            "GetTurnContext",
            "ListJobs",
            # Added since the first contract: spoken memory control as a call ("forget what I said about X").
            "ForgetAbout",
        ],
    },
}


def test_generated_code_matches_the_protos(tmp_path: Path) -> None:
    subprocess.run([str(ROOT / "scripts/gen-protos"), str(tmp_path)], check=True, cwd=ROOT)
    committed, fresh = ROOT / "libs/lore_proto/lore", tmp_path / "lore"
    stale = _differences(filecmp.dircmp(committed, fresh))
    assert not stale, f"generated code is stale, run scripts/gen-protos: {stale}"


def _differences(comparison: filecmp.dircmp) -> list[str]:
    ignored = {"__pycache__"}
    found = [f"{comparison.left}/{name}" for name in comparison.left_only if name not in ignored]
    found += [f"{comparison.right}/{name}" for name in comparison.right_only if name not in ignored]
    _, mismatch, errors = filecmp.cmpfiles(comparison.left, comparison.right, comparison.common_files, shallow=False)
    found += [f"{comparison.left}/{name}" for name in mismatch + errors]
    for name, sub in comparison.subdirs.items():
        if name not in ignored:
            found += _differences(sub)
    return found


def test_buf_lint_is_clean() -> None:
    buf = ROOT / "node_modules/.bin/buf"
    assert buf.exists(), "buf is missing: scripts/bootstrap --dev installs it from package-lock.json"
    result = subprocess.run([str(buf), "lint"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


RELEASED_V1 = ROOT / "contracts/lore-v1.json"


def _buf_breaking(module_root: Path) -> subprocess.CompletedProcess[str]:
    buf = ROOT / "node_modules/.bin/buf"
    return subprocess.run(
        [str(buf), "breaking", "--against", str(RELEASED_V1)], cwd=module_root, capture_output=True, text=True
    )


def test_the_contracts_change_only_additively_since_v1() -> None:
    """v1 is released (contracts/README.md): buf breaking against its image must stay clean."""
    result = _buf_breaking(ROOT)

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_breaking_check_catches_a_removed_field(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "protos", tmp_path / "protos")
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    proto = tmp_path / "protos/lore/memory/v1/memory_service.proto"
    text = proto.read_text()
    line = next(line for line in text.splitlines(keepends=True) if line.startswith("  double current_salience = "))
    proto.write_text(text.replace(line, "", 1))  # Memory.current_salience removed

    result = _buf_breaking(tmp_path)

    assert result.returncode != 0
    assert "current_salience" in result.stdout


@pytest.mark.parametrize("module_name", sorted(DESIGNED_RPCS))
def test_every_designed_rpc_is_in_the_contracts(module_name: str) -> None:
    module = importlib.import_module(module_name)
    for service_name, methods in DESIGNED_RPCS[module_name].items():
        service = module.DESCRIPTOR.services_by_name[service_name]
        assert [method.name for method in service.methods] == methods


def test_requests_and_responses_are_named_after_their_rpc() -> None:
    for module_name, services in DESIGNED_RPCS.items():
        module = importlib.import_module(module_name)
        for service_name in services:
            for method in module.DESCRIPTOR.services_by_name[service_name].methods:
                assert method.input_type.name == f"{method.name}Request"
                assert method.output_type.name == f"{method.name}Response"


def test_every_list_rpc_is_paginated() -> None:
    for module_name, services in DESIGNED_RPCS.items():
        module = importlib.import_module(module_name)
        for service_name in services:
            for method in module.DESCRIPTOR.services_by_name[service_name].methods:
                if method.name.startswith("List"):
                    assert {"page_size", "page_token"} <= set(method.input_type.fields_by_name), method.name
                    assert "next_page_token" in method.output_type.fields_by_name, method.name
