"""The Observations and Engagement ports on the observations service.

A claim becomes an Observe call whose evidence is the turn (the speaker's words) and the
memories reflection wrote from it, scoped to the session's user, agent and team (the belief is
that user's: it reaches only their contexts; one current belief per agent, user, team and key);
its request id comes from reflection, so a re-run after a crash replays instead of adding
evidence twice. The Engagement port (used only for the agents reflection engages for) is one
EngagementService call per method; what to call is decided in usecases/engage.py.
"""

from __future__ import annotations

import re

import grpc
from lore.observations.v1 import engagement_service_pb2 as epb
from lore.observations.v1 import engagement_service_pb2_grpc, observation_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2 as opb
from lore_runtime.proto_time import to_timestamp

from agent_svc.adapters.grpc_calls import rpc
from agent_svc.adapters.grpc_memories import scope_to_pb
from agent_svc.domain.engagement import ActiveHypothesis, EngagementView
from agent_svc.domain.extraction import ExtractedClaim
from agent_svc.domain.transcript import Scope
from agent_svc.usecases.reflection_ports import Evidence

TIMEOUT_S = 15.0
MAX_EXCERPT = 1_000
MAX_STATEMENT = 1_000
MAX_HYPOTHESIS = 500  # EngagementService's statement limit
MAX_SOURCE = 200
KINDS = {
    "operator_preference": opb.OBSERVATION_KIND_OPERATOR_PREFERENCE,
    "project_state": opb.OBSERVATION_KIND_PROJECT_STATE,
    "world_fact": opb.OBSERVATION_KIND_WORLD_FACT,
    "self_model": opb.OBSERVATION_KIND_SELF_MODEL,
    "relationship_fact": opb.OBSERVATION_KIND_RELATIONSHIP_FACT,
    "tooling_state": opb.OBSERVATION_KIND_TOOLING_STATE,
}
_NOT_SLOT = re.compile(r"[^a-z0-9_.-]+")


def slot_of(text: str) -> str:
    """The observations service's slot alphabet: lower-case [a-z0-9_.-], 1..64 characters."""
    return _NOT_SLOT.sub(".", text.lower()).strip(".")[:64] or "general"


def subject_of(scope: Scope, claim: ExtractedClaim) -> tuple[int, str]:
    """The user of the scope is an entity named by their id; the agent is the scope's agent."""
    if claim.subject_type == "user":
        return opb.SUBJECT_TYPE_ENTITY, scope.user_id or "user"
    if claim.subject_type == "agent":
        return opb.SUBJECT_TYPE_AGENT, scope.agent_id or "agent"
    if claim.subject_type == "tool":
        return opb.SUBJECT_TYPE_TOOL, claim.subject_id or "tool"
    return opb.SUBJECT_TYPE_PROJECT, claim.subject_id or "project"


class GrpcObservations:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._stub = observation_service_pb2_grpc.ObservationServiceStub(channel)

    async def observe(self, scope: Scope, claim: ExtractedClaim, evidence: Evidence, request_id: str) -> list[str]:
        subject_type, subject_id = subject_of(scope, claim)
        observed_at = to_timestamp(evidence.observed_at)
        # The summary states what is now true, a denial included ("The user is no longer vegetarian"), so
        # the turn supports it; Observe records that support against the slot's earlier belief, and the
        # newer claim wins a tie. Sending a denial as contradiction left the old belief standing.
        stance = opb.EVIDENCE_STANCE_SUPPORT
        lines = [
            opb.EvidenceInput(
                stance=stance,
                source_type=opb.SOURCE_TYPE_MESSAGE,
                source_id=evidence.turn_id,
                excerpt=claim.excerpt[:MAX_EXCERPT],
                observed_at=observed_at,
            )
        ] + [
            opb.EvidenceInput(
                stance=opb.EVIDENCE_STANCE_CONTEXT,
                source_type=opb.SOURCE_TYPE_MEMORY_ITEM,
                source_id=memory_id,
                observed_at=observed_at,
            )
            for memory_id in evidence.memory_ids
        ]
        request = opb.ObserveRequest(
            agent_id=scope.agent_id,
            scope=scope_to_pb(scope),
            candidate=opb.ObservationCandidate(
                kind=KINDS[claim.kind],
                subject_type=subject_type,
                subject_id=subject_id,
                slot=slot_of(claim.slot),
                summary=claim.summary[:MAX_STATEMENT],
                evidence=lines,
            ),
            request_id=request_id,
        )
        observed = await rpc(self._stub.Observe(request, timeout=TIMEOUT_S))
        replaced = observed.observation.supersedes_observation_id
        if observed.outcome != opb.OBSERVE_OUTCOME_SUPERSEDED or not replaced:
            return []
        earlier = await rpc(self._stub.GetObservation(opb.GetObservationRequest(id=replaced), timeout=TIMEOUT_S))
        return [
            line.source_id
            for line in earlier.observation.evidence
            if line.source_type == opb.SOURCE_TYPE_MEMORY_ITEM and line.source_id
        ]


class GrpcEngagement:
    """Each method one EngagementService call; the service's errors come back as domain errors."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._stub = engagement_service_pb2_grpc.EngagementServiceStub(channel)

    async def _call(self, method: str, request):
        return await rpc(getattr(self._stub, method)(request, timeout=TIMEOUT_S))

    async def state(self) -> EngagementView:
        # The digest: active hypotheses with their evidence counted, no lines; open unknowns.
        found = await self._call("GetEngagement", epb.GetEngagementRequest(view=epb.ENGAGEMENT_VIEW_DIGEST))
        return EngagementView(
            hypotheses=tuple(_hypothesis(h) for h in found.hypotheses if h.status == epb.HYPOTHESIS_STATUS_ACTIVE),
            unknowns=tuple(u.question for u in found.unknowns if u.status == epb.UNKNOWN_STATUS_OPEN),
        )

    async def form(self, statement: str, request_id: str) -> ActiveHypothesis:
        request = epb.FormHypothesisRequest(statement=statement[:MAX_HYPOTHESIS], request_id=request_id)
        return _hypothesis((await self._call("FormHypothesis", request)).hypothesis)

    async def add_evidence(
        self, hypothesis_id: str, statement: str, supports: bool, source: str, request_id: str
    ) -> ActiveHypothesis:
        request = epb.AddHypothesisEvidenceRequest(
            hypothesis_id=hypothesis_id,
            evidence=epb.HypothesisEvidenceInput(
                statement=statement[:MAX_HYPOTHESIS],
                stance=opb.EVIDENCE_STANCE_SUPPORT if supports else opb.EVIDENCE_STANCE_CONTRADICT,
                source=source[:MAX_SOURCE],
            ),
            request_id=request_id,
        )
        return _hypothesis((await self._call("AddHypothesisEvidence", request)).hypothesis)

    async def promote(self, hypothesis_id: str, source: str) -> None:
        request = epb.PromoteHypothesisRequest(hypothesis_id=hypothesis_id, source=source[:MAX_SOURCE])
        await self._call("PromoteHypothesis", request)

    async def archive(self, hypothesis_id: str, note: str) -> None:
        await self._call("ArchiveHypothesis", epb.ArchiveHypothesisRequest(hypothesis_id=hypothesis_id, note=note))

    async def add_unknown(self, question: str, why_it_matters: str, request_id: str) -> None:
        request = epb.AddUnknownRequest(
            question=question[:MAX_STATEMENT], why_it_matters=why_it_matters, request_id=request_id
        )
        await self._call("AddUnknown", request)


def _hypothesis(message: epb.Hypothesis) -> ActiveHypothesis:
    """The service counts the lines (a digest carries none); counted here too when it sends lines
    without the counts (a service older than the digest)."""
    epoch = len(message.revisions)
    return ActiveHypothesis(
        id=message.id,
        statement=message.statement,
        confidence=message.confidence,
        outstanding_contradictions=max(
            message.outstanding_contradictions,
            sum(
                1 for line in message.evidence if line.stance == opb.EVIDENCE_STANCE_CONTRADICT and line.epoch >= epoch
            ),
        ),
        evidence_count=max(message.evidence_count, len(message.evidence)),
        active=message.status == epb.HYPOTHESIS_STATUS_ACTIVE,
    )
