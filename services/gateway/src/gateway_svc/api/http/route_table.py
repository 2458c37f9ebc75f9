"""The gateway's REST operations, declared once: method, path, operation id, scopes, request and
response messages, summary and section. The routers register each one by its operation id
(``routes/*.py``, through ``declared``), the OpenAPI document's entries are made from it, and the
README's route table is printed from it (``python -m gateway_svc.api.http.route_table --write README.md``;
tests/unit/gateway/test_route_table.py fails when README's table differs).

A route module adds what an operation *does* (the RPC it forwards to, the checks around it, the
examples the document shows); what the operation *is* stands here and nowhere else.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from google.protobuf.message import Message
from lore.agent.v1 import agent_service_pb2 as agent
from lore.assembler.v1 import assembler_service_pb2 as assembler
from lore.memory.v1 import episode_service_pb2 as episodes
from lore.memory.v1 import memory_service_pb2 as memory
from lore.observations.v1 import engagement_service_pb2 as engagement
from lore.observations.v1 import observation_service_pb2 as observations

from gateway_svc.api.openapi.rules import BODY_RULES

# Where the request message is read from: the JSON body, a JSON body that may be left out ("no
# options"), the query string, or nowhere (the path's id at most); "" for a route of no proto message.
Reads = Literal["body", "optional body", "query", "path", ""]


@dataclass(frozen=True, slots=True)
class Route:
    """One REST operation. ``scopes``: those the credential must hold; ``()`` any credential, ``None``
    none at all. ``org_wide``: the operation acts on the whole organisation, so a credential pinned to
    one user may not use it. ``also_tagged``: sections of the API docs after the operation id's own."""

    method: str
    path: str
    operation_id: str
    summary: str
    scopes: tuple[str, ...] | None
    request: type[Message] | None = None
    response: type[Message] | None = None
    reads: Reads = ""
    org_wide: bool = False
    also_tagged: tuple[str, ...] = ()

    @property
    def tag(self) -> str:
        """The operation's section of the API docs: its operation id's first part."""
        return self.operation_id.partition(".")[0]

    @property
    def tags(self) -> list[str]:
        return [self.tag, *self.also_tagged]

    @property
    def name(self) -> str:
        """The route's name, snake_case (``sessions.processTurn`` -> ``process_turn``): the typed
        client's method name, from which ``operation_ids.operation_id`` makes the id again."""
        action = self.operation_id.partition(".")[2]
        return re.sub(r"[A-Z]", lambda letter: "_" + letter.group().lower(), action)

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


_MEMORIES_READ = ("memories:read",)
_MEMORIES_WRITE = ("memories:write",)
_OBSERVATIONS_READ = ("observations:read",)
_OBSERVATIONS_WRITE = ("observations:write",)
_CONTEXT = ("memories:read", "observations:read")
_SESSIONS_READ = ("sessions:read",)
_SESSIONS_WRITE = ("sessions:write",)
_ADMIN = ("admin",)

ROUTES: tuple[Route, ...] = (
    # health: probes and metrics, no credential
    Route("GET", "/metrics", "health.metrics", "Prometheus metrics of the gateway (text format)", None),
    Route("GET", "/healthz", "health.healthz", "The gateway process is alive", None),
    Route("GET", "/readyz", "health.readyz", "The gateway's own dependencies answer", None),
    Route("GET", "/v1/status", "health.status", "Health of every Lore service", None),
    # memories and episodes
    Route(
        "POST", "/v1/memories", "memories.remember",
        "Remember a batch of memories (MemoryService.Remember)",
        _MEMORIES_WRITE, memory.RememberRequest, memory.RememberResponse, "body",
    ),
    Route(
        "POST", "/v1/memories:search", "memories.search",
        "Recall memories by meaning (MemoryService.Recall)",
        _MEMORIES_READ, memory.RecallRequest, memory.RecallResponse, "body",
    ),
    Route(
        "POST", "/v1/memories:forget", "memories.forgetAbout",
        "Forget what a user's memories and beliefs say about something (AgentService.ForgetAbout)",
        _MEMORIES_WRITE, agent.ForgetAboutRequest, agent.ForgetAboutResponse, "body",
    ),
    Route(
        "GET", "/v1/memories", "memories.listMemories",
        "List memories of a scope, paginated (MemoryService.ListMemories)",
        _MEMORIES_READ, memory.ListMemoriesRequest, memory.ListMemoriesResponse, "query",
    ),
    Route(
        "GET", "/v1/memories/{memory_id}", "memories.getMemory",
        "One memory (MemoryService.GetMemory)",
        _MEMORIES_READ, memory.GetMemoryRequest, memory.GetMemoryResponse, "path",
    ),
    Route(
        "PATCH", "/v1/memories/{memory_id}", "memories.updateMemory",
        "Update fields of a memory named by updateMask (MemoryService.UpdateMemory)",
        _MEMORIES_WRITE, memory.UpdateMemoryRequest, memory.UpdateMemoryResponse, "body",
    ),
    Route(
        "DELETE", "/v1/memories/{memory_id}", "memories.forgetMemory",
        "Forget (archive) a memory (MemoryService.ForgetMemory)",
        _MEMORIES_WRITE, memory.ForgetMemoryRequest, memory.ForgetMemoryResponse, "path",
    ),
    Route(
        "GET", "/v1/episodes", "memories.listEpisodes",
        "Conversation episodes, newest first (EpisodeService.ListEpisodes)",
        _MEMORIES_READ, episodes.ListEpisodesRequest, episodes.ListEpisodesResponse, "query",
        also_tagged=("episodes",),
    ),
    Route(
        "GET", "/v1/open-threads", "memories.listOpenThreads",
        "Open threads of recent episodes, newest first (EpisodeService.ListOpenThreads)",
        _MEMORIES_READ, episodes.ListOpenThreadsRequest, episodes.ListOpenThreadsResponse, "query",
        also_tagged=("episodes",),
    ),
    Route(
        "POST", "/v1/open-threads/{episode_id}/{thread_index}:resolve", "memories.resolveThread",
        "Resolve an open thread of an episode; idempotent, the body may be left out (EpisodeService.ResolveThread)",
        _MEMORIES_WRITE, episodes.ResolveThreadRequest, episodes.ResolveThreadResponse, "optional body",
        also_tagged=("episodes",),
    ),
    # observations (beliefs)
    Route(
        "GET", "/v1/observations", "observations.queryObservations",
        "Observations by filters, best first (ObservationService.QueryObservations)",
        _OBSERVATIONS_READ, observations.QueryObservationsRequest, observations.QueryObservationsResponse, "query",
    ),
    Route(
        "POST", "/v1/observations:search", "observations.searchObservations",
        "Observations by meaning and words (ObservationService.SearchObservations)",
        _OBSERVATIONS_READ, observations.SearchObservationsRequest, observations.SearchObservationsResponse, "body",
    ),
    Route(
        "POST", "/v1/observations:observe", "observations.observe",
        "Create, support, contradict or supersede a belief (ObservationService.Observe)",
        _OBSERVATIONS_WRITE, observations.ObserveRequest, observations.ObserveResponse, "body",
    ),
    Route(
        "GET", "/v1/observations/{observation_id}", "observations.getObservation",
        "One observation with its evidence (GetObservation)",
        _OBSERVATIONS_READ, observations.GetObservationRequest, observations.GetObservationResponse, "path",
    ),
    Route(
        "GET", "/v1/observations/{observation_id}/history", "observations.observationHistory",
        "The supersession chain both ways, newest first (GetObservationHistory)",
        _OBSERVATIONS_READ,
        observations.GetObservationHistoryRequest, observations.GetObservationHistoryResponse, "path",
    ),
    Route(
        "POST", "/v1/observations/{observation_id}:confirm", "observations.confirmObservation",
        "An operator confirms a belief (ObservationService.ConfirmObservation)",
        _OBSERVATIONS_WRITE,
        observations.ConfirmObservationRequest, observations.ConfirmObservationResponse, "optional body",
    ),
    Route(
        "POST", "/v1/observations/{observation_id}:contradict", "observations.contradictObservation",
        "A correction becomes contradicting evidence (ObservationService.ContradictObservation)",
        _OBSERVATIONS_WRITE,
        observations.ContradictObservationRequest, observations.ContradictObservationResponse, "body",
    ),
    # engagement: one state per organisation
    Route(
        "GET", "/v1/engagement", "engagement.getEngagement",
        "The organisation's engagement state; reading writes nothing (GetEngagement)",
        _OBSERVATIONS_READ, engagement.GetEngagementRequest, engagement.GetEngagementResponse, "path",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement/hypotheses", "engagement.formHypothesis",
        "Form a hypothesis (EngagementService.FormHypothesis)",
        _OBSERVATIONS_WRITE, engagement.FormHypothesisRequest, engagement.FormHypothesisResponse, "body",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement/hypotheses/{hypothesis_id}/evidence", "engagement.addHypothesisEvidence",
        "Add evidence; the confidence follows the documented rule (AddHypothesisEvidence)",
        _OBSERVATIONS_WRITE,
        engagement.AddHypothesisEvidenceRequest, engagement.AddHypothesisEvidenceResponse, "body",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement/hypotheses/{hypothesis_id}:revise", "engagement.reviseHypothesis",
        "Set the confidence with a reason (ReviseHypothesis)",
        _OBSERVATIONS_WRITE, engagement.ReviseHypothesisRequest, engagement.ReviseHypothesisResponse, "body",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement/hypotheses/{hypothesis_id}:promote", "engagement.promoteHypothesis",
        "Turn a hypothesis into a finding (PromoteHypothesis)",
        _OBSERVATIONS_WRITE,
        engagement.PromoteHypothesisRequest, engagement.PromoteHypothesisResponse, "optional body",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement/hypotheses/{hypothesis_id}:archive", "engagement.archiveHypothesis",
        "Archive a hypothesis with a note (ArchiveHypothesis)",
        _OBSERVATIONS_WRITE, engagement.ArchiveHypothesisRequest, engagement.ArchiveHypothesisResponse, "body",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement/unknowns", "engagement.addUnknown",
        "Record an open question (AddUnknown)",
        _OBSERVATIONS_WRITE, engagement.AddUnknownRequest, engagement.AddUnknownResponse, "body",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement/unknowns/{unknown_id}:resolve", "engagement.resolveUnknown",
        "Resolve an unknown with its answer (ResolveUnknown)",
        _OBSERVATIONS_WRITE, engagement.ResolveUnknownRequest, engagement.ResolveUnknownResponse, "body",
        org_wide=True,
    ),
    Route(
        "POST", "/v1/engagement:advanceWeek", "engagement.advanceWeek",
        "Start the next week, only ever by this explicit call (AdvanceWeek)",
        _OBSERVATIONS_WRITE, engagement.AdvanceWeekRequest, engagement.AdvanceWeekResponse, "optional body",
        org_wide=True,
    ),
    # context
    Route(
        "POST", "/v1/context:assemble", "context.assembleContext",
        "A ranked, deduplicated, token-budgeted context with its manifest (AssemblerService.AssembleContext)",
        _CONTEXT, assembler.AssembleContextRequest, assembler.AssembleContextResponse, "body",
    ),
    Route(
        "GET", "/v1/memory/prime", "context.prime",
        '"What I remember" at the start of a conversation (AssemblerService.Prime)',
        _CONTEXT, assembler.PrimeRequest, assembler.PrimeResponse, "query",
    ),
    Route(
        "GET", "/v1/users/{user_id}/profile", "context.getUserProfile",
        "What Lore has learnt about a user, newest truth only: the context's user profile"
        " (AssemblerService.GetUserProfile)",
        _CONTEXT, assembler.GetUserProfileRequest, assembler.GetUserProfileResponse, "query",
    ),
    # sessions and the per-turn loop
    Route(
        "POST", "/v1/sessions", "sessions.startSession",
        "Start a session; a repeated requestId returns the same one; with initialMessage or includePrime,"
        " the Prime of its scope too (AgentService.StartSession)",
        _SESSIONS_WRITE, agent.StartSessionRequest, agent.StartSessionResponse, "optional body",
    ),
    Route(
        "GET", "/v1/sessions", "sessions.listSessions",
        "Sessions, newest first, by scope and status (AgentService.ListSessions)",
        _SESSIONS_READ, agent.ListSessionsRequest, agent.ListSessionsResponse, "query",
    ),
    Route(
        "GET", "/v1/sessions/{session_id}", "sessions.getSession",
        "One session (AgentService.GetSession)",
        _SESSIONS_READ, agent.GetSessionRequest, agent.GetSessionResponse, "path",
    ),
    Route(
        "POST", "/v1/sessions/{session_id}:end", "sessions.endSession",
        "End a session (AgentService.EndSession); the body may be left out",
        _SESSIONS_WRITE, agent.EndSessionRequest, agent.EndSessionResponse, "optional body",
    ),
    Route(
        "GET", "/v1/sessions/{session_id}/turns", "sessions.listTurns",
        "The session's transcript in order (AgentService.ListTurns)",
        _SESSIONS_READ, agent.ListTurnsRequest, agent.ListTurnsResponse, "query",
    ),
    Route(
        "POST", "/v1/sessions/{session_id}/turns", "sessions.processTurn",
        "The per-turn loop: store the turn, assemble context, reply when a model is configured, queue reflection;"
        ' role "assistant" stores the caller\'s own reply, with no context (AgentService.ProcessTurn)',
        _SESSIONS_WRITE, agent.ProcessTurnRequest, agent.ProcessTurnResponse, "body",
    ),
    Route(
        "POST", "/v1/sessions/{session_id}/turns:import", "sessions.importTurns",
        "Historical turns with their real timestamps, indexed as message memories (AgentService.ImportTurns)",
        _SESSIONS_WRITE, agent.ImportTurnsRequest, agent.ImportTurnsResponse, "body",
    ),
    Route(
        "GET", "/v1/sessions/{session_id}/turns/{turn_id}/context", "sessions.getTurnContext",
        "The context assembled for a turn, with its manifest, while the turn's result is kept; or why there is"
        " none (an assistant or imported turn) or no longer one (past the retention) (AgentService.GetTurnContext)",
        _SESSIONS_READ, agent.GetTurnContextRequest, agent.GetTurnContextResponse, "path",
    ),
    # erasure
    Route(
        "POST", "/v1/subjects:forget", "erasure.forgetSubject",
        "Erase a subject's data everywhere, as a durable job that leaves a tombstone (AgentService.ForgetSubject)",
        ("subjects:forget",), agent.ForgetSubjectRequest, agent.ForgetSubjectResponse, "body",
    ),
    # operator chores of the caller's org; reindex is the store's (operator scope)
    Route(
        "POST", "/v1/admin/decay:run", "admin.runDecay",
        "Materialise current salience now (MemoryService.RunDecay)",
        _ADMIN, memory.RunDecayRequest, memory.RunDecayResponse, "optional body",
    ),
    Route(
        "POST", "/v1/admin/consolidation:run", "admin.runConsolidation",
        "Fold near-duplicate memories now (MemoryService.RunConsolidation)",
        _ADMIN, memory.RunConsolidationRequest, memory.RunConsolidationResponse, "optional body",
    ),
    Route(
        "POST", "/v1/admin/revalidation:run", "admin.runRevalidation",
        "Recompute freshness and confidence of due observations now (ObservationService.RunRevalidation)",
        _ADMIN, observations.RunRevalidationRequest, observations.RunRevalidationResponse, "optional body",
    ),
    Route(
        "POST", "/v1/admin/reindex", "admin.reindex",
        "Re-embed every org's memories (`operator` scope); answers the last progress step (MemoryService.Reindex)",
        ("operator",), memory.ReindexRequest, memory.ReindexResponse, "optional body",
    ),
    Route(
        "GET", "/v1/admin/jobs", "admin.jobStats",
        "The org's background jobs by kind and state (AgentService.GetJobStats)",
        _ADMIN, agent.GetJobStatsRequest, agent.GetJobStatsResponse, "path",
    ),
    Route(
        "GET", "/v1/admin/jobs:list", "admin.listJobs",
        "The org's background jobs, newest first, by kind and state (queued, running, retrying, dead),"
        " with their last error (AgentService.ListJobs)",
        _ADMIN, agent.ListJobsRequest, agent.ListJobsResponse, "query",
    ),
    Route(
        "POST", "/v1/admin/jobs:retry", "admin.retryJobs",
        "Queue the org's dead-lettered jobs again, once their cause is fixed (AgentService.RetryJobs)",
        _ADMIN, agent.RetryJobsRequest, agent.RetryJobsResponse, "optional body",
    ),
    # the calling credential
    Route(
        "GET", "/v1/whoami", "credentials.whoami",
        "The calling credential's org, principal, pinned user and scopes", (),
    ),
)  # fmt: skip

BY_ID: dict[str, Route] = {route.operation_id: route for route in ROUTES}
if len(BY_ID) != len(ROUTES) or len({route.label for route in ROUTES}) != len(ROUTES):
    raise ValueError("two routes share an operation id, or a method and path")


def route(operation_id: str) -> Route:
    """The declared operation ``operation_id`` (KeyError naming it when there is none)."""
    return BY_ID[operation_id]


# README.md's route table stands between these two lines.
TABLE_START = "<!-- route table: python -m gateway_svc.api.http.route_table --write README.md -->"
TABLE_END = "<!-- end of route table -->"


def _scopes_text(scopes: tuple[str, ...] | None) -> str:
    if scopes is None:
        return "none"
    return " + ".join(f"`{scope}`" for scope in scopes) if scopes else "any credential"


def markdown_table(routes: tuple[Route, ...] = ROUTES) -> str:
    """The route table README.md shows: one row per operation, in declaration order."""
    rows = ["| route | operation id | credential | what it does |", "|---|---|---|---|"]
    for declared in routes:
        summary = declared.summary.replace("|", "\\|")
        rows.append(
            f"| `{declared.method} {declared.path}` | `{declared.operation_id}` | {_scopes_text(declared.scopes)}"
            f"{' (org-wide)' if declared.org_wide else ''} | {summary} |"
        )
    return "\n".join(rows)


def with_table(text: str, table: str) -> str:
    """``text`` (README.md) with ``table`` between ``TABLE_START`` and ``TABLE_END``."""
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    return text[:start] + "\n" + table + "\n" + text[end:]


# The typed client's copy of the body rules (lore_client does not depend on the gateway): its tools'
# argument schemas are made from it.
CLIENT_RULES = Path("libs/lore_client/src/lore_client/route_rules.py")


def _python(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)}: {_python(item)}" for key, item in value.items()) + "}"
    return repr(value) if isinstance(value, bool | int | float) else json.dumps(value)


def client_rules() -> str:
    """``route_rules.py`` of lore_client: ``rules.BODY_RULES``, the rules the document states on
    request bodies, as Python."""
    lines = [
        '"""The rules the gateway holds request body fields to, by operation id and field (JSON names,',
        "dotted, ``[]`` for an array's items): the tools' argument schemas are made from them (``tools.py``).",
        "",
        "Generated from the gateway's ``rules.BODY_RULES`` by ``python -m gateway_svc.api.http.route_table",
        f"--write-client-rules {CLIENT_RULES}``:",
        'do not edit (tests/unit/gateway/test_route_table.py fails when it differs)."""',
        "",
        "# ruff: noqa: E501 - one line per field, as generated",
        "from typing import Any",
        "",
        "# fmt: off",
        "ROUTE_RULES: dict[str, dict[str, dict[str, Any]]] = {",
    ]
    for operation_id, fields in BODY_RULES.items():
        lines.append(f"    {json.dumps(operation_id)}: {{")
        lines += [f"        {json.dumps(field)}: {_python(rule)}," for field, rule in fields.items()]
        lines.append("    },")
    return "\n".join([*lines, "}", "# fmt: on", ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print the gateway's route table, or write it into a README.")
    parser.add_argument("--write", type=Path, help="replace the table between the markers of this file")
    parser.add_argument("--write-client-rules", type=Path, help=f"write the client's body rules ({CLIENT_RULES})")
    arguments = parser.parse_args(argv)
    if arguments.write_client_rules is not None:
        arguments.write_client_rules.write_text(client_rules())
    if arguments.write is not None:
        arguments.write.write_text(with_table(arguments.write.read_text(), markdown_table()))
    if arguments.write is None and arguments.write_client_rules is None:
        print(markdown_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
