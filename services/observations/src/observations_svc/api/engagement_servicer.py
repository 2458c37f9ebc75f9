"""gRPC transport of the EngagementService: the tenant from metadata, requests converted, use cases called."""

from __future__ import annotations

from lore.observations.v1 import engagement_service_pb2 as pb
from lore.observations.v1 import engagement_service_pb2_grpc
from lore_runtime import errors, request_context
from lore_runtime.clock import Clock

from observations_svc.api import engagement_convert as convert
from observations_svc.api import import_convert
from observations_svc.domain.engagement import DEFAULT_PROMOTION_THRESHOLD
from observations_svc.usecases import engagement, org_transfer
from observations_svc.usecases.engagement_ports import EngagementStore


class EngagementServicer(engagement_service_pb2_grpc.EngagementServiceServicer):
    """Per-org engagement state: week, hypotheses, findings, unknowns (docs/engagement.md)."""

    def __init__(
        self, store: EngagementStore, clock: Clock, *, promotion_threshold: float = DEFAULT_PROMOTION_THRESHOLD
    ) -> None:
        if not 0.0 < promotion_threshold <= 1.0:
            raise ValueError("the promotion threshold must be in (0, 1]")
        self._store = store
        self._clock = clock
        self._threshold = promotion_threshold

    async def GetEngagement(self, request: pb.GetEngagementRequest, context) -> pb.GetEngagementResponse:
        state = await engagement.get_engagement(request_context.current().org_id, store=self._store)
        return convert.engagement_to_pb(state)

    async def FormHypothesis(self, request: pb.FormHypothesisRequest, context) -> pb.FormHypothesisResponse:
        caller = request_context.current()
        drafts = [convert.evidence_from_pb(line, f"evidence[{i}]") for i, line in enumerate(request.evidence)]
        hypothesis = await engagement.form_hypothesis(
            caller.org_id, request.statement, drafts, request.request_id, store=self._store, clock=self._clock
        )
        return pb.FormHypothesisResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def AddHypothesisEvidence(
        self, request: pb.AddHypothesisEvidenceRequest, context
    ) -> pb.AddHypothesisEvidenceResponse:
        caller = request_context.current()
        if not request.HasField("evidence"):
            raise errors.InvalidArgument("evidence", "is required")
        hypothesis = await engagement.add_hypothesis_evidence(
            caller.org_id,
            request.hypothesis_id,
            convert.evidence_from_pb(request.evidence, "evidence"),
            request.request_id,
            store=self._store,
            clock=self._clock,
        )
        return pb.AddHypothesisEvidenceResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def ReviseHypothesis(self, request: pb.ReviseHypothesisRequest, context) -> pb.ReviseHypothesisResponse:
        caller = request_context.current()
        hypothesis = await engagement.revise_hypothesis(
            caller.org_id,
            request.hypothesis_id,
            request.confidence if request.HasField("confidence") else None,
            request.reason,
            request.statement,
            store=self._store,
            clock=self._clock,
        )
        return pb.ReviseHypothesisResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def PromoteHypothesis(self, request: pb.PromoteHypothesisRequest, context) -> pb.PromoteHypothesisResponse:
        caller = request_context.current()
        hypothesis, finding = await engagement.promote_hypothesis(
            caller.org_id,
            request.hypothesis_id,
            request.statement,
            request.source,
            threshold=self._threshold,
            store=self._store,
            clock=self._clock,
        )
        return pb.PromoteHypothesisResponse(
            hypothesis=convert.hypothesis_to_pb(hypothesis), finding=convert.finding_to_pb(finding)
        )

    async def ArchiveHypothesis(self, request: pb.ArchiveHypothesisRequest, context) -> pb.ArchiveHypothesisResponse:
        caller = request_context.current()
        hypothesis = await engagement.archive_hypothesis(
            caller.org_id, request.hypothesis_id, request.note, store=self._store, clock=self._clock
        )
        return pb.ArchiveHypothesisResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def AddUnknown(self, request: pb.AddUnknownRequest, context) -> pb.AddUnknownResponse:
        caller = request_context.current()
        unknown = await engagement.add_unknown(
            caller.org_id,
            request.question,
            request.why_it_matters,
            request.request_id,
            store=self._store,
            clock=self._clock,
        )
        return pb.AddUnknownResponse(unknown=convert.unknown_to_pb(unknown))

    async def ResolveUnknown(self, request: pb.ResolveUnknownRequest, context) -> pb.ResolveUnknownResponse:
        caller = request_context.current()
        unknown = await engagement.resolve_unknown(
            caller.org_id, request.unknown_id, request.resolution, store=self._store, clock=self._clock
        )
        return pb.ResolveUnknownResponse(unknown=convert.unknown_to_pb(unknown))

    async def AdvanceWeek(self, request: pb.AdvanceWeekRequest, context) -> pb.AdvanceWeekResponse:
        caller = request_context.current()
        expected = request.expected_week_number if request.HasField("expected_week_number") else None
        week = await engagement.advance_week(caller.org_id, expected, store=self._store, clock=self._clock)
        return pb.AdvanceWeekResponse(week_number=week)

    async def ExportEngagement(self, request: pb.ExportEngagementRequest, context):
        caller = request_context.current()
        async for page in org_transfer.export_engagement(caller.org_id, request.page_size, store=self._store):
            yield pb.ExportEngagementResponse(
                engagement=convert.engagement_row_to_pb(page.row) if page.row is not None else None,
                hypotheses=[convert.hypothesis_to_pb(hypothesis, finding) for hypothesis, finding in page.hypotheses],
                unknowns=[convert.unknown_to_pb(unknown) for unknown in page.unknowns],
            )

    async def ImportEngagement(self, request: pb.ImportEngagementRequest, context) -> pb.ImportEngagementResponse:
        # An operator restore into the caller's org (the gateway's admin scope would guard a route to it).
        caller = request_context.current()
        row, hypotheses, unknowns = import_convert.engagement_import_from_pb(request)
        counts = await org_transfer.import_engagement(caller.org_id, row, hypotheses, unknowns, store=self._store)
        return pb.ImportEngagementResponse(
            imported_hypotheses=counts.hypotheses, imported_unknowns=counts.unknowns, skipped=counts.skipped
        )
