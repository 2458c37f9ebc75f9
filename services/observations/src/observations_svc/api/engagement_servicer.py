"""gRPC transport of the EngagementService: the tenant from metadata, requests converted, use cases called."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from lore.observations.v1 import engagement_service_pb2 as pb
from lore.observations.v1 import engagement_service_pb2_grpc
from lore_runtime import errors, request_context
from lore_runtime.clock import Clock

from observations_svc.api import engagement_convert as convert
from observations_svc.api import import_convert
from observations_svc.domain.engagement import DEFAULT_PROMOTION_THRESHOLD
from observations_svc.usecases import engagement, org_transfer
from observations_svc.usecases.engagement_ports import EngagementArchive, EngagementStore

Result = TypeVar("Result")


class EngagementServicer(engagement_service_pb2_grpc.EngagementServiceServicer):
    """Per-org engagement state: week, hypotheses, findings, unknowns (docs/engagement.md)."""

    def __init__(
        self,
        store: EngagementStore,
        archive: EngagementArchive,
        clock: Clock,
        *,
        promotion_threshold: float = DEFAULT_PROMOTION_THRESHOLD,
    ) -> None:
        if not 0.0 < promotion_threshold <= 1.0:
            raise ValueError("the promotion threshold must be in (0, 1]")
        self._store = store
        self._archive = archive
        self._clock = clock
        self._threshold = promotion_threshold

    async def _for_caller(self, use_case: Callable[..., Awaitable[Result]], *arguments: Any, **options: Any) -> Result:
        """``use_case`` on the caller's org (from the request context, never the request), with this
        servicer's store and clock."""
        caller = request_context.current()
        return await use_case(caller.org_id, *arguments, store=self._store, clock=self._clock, **options)

    async def GetEngagement(self, request: pb.GetEngagementRequest, context) -> pb.GetEngagementResponse:
        org_id = request_context.current().org_id
        if convert.digest_requested(request.view):
            return convert.digest_to_pb(await engagement.get_engagement_digest(org_id, store=self._store))
        return convert.engagement_to_pb(await engagement.get_engagement(org_id, store=self._store))

    async def FormHypothesis(self, request: pb.FormHypothesisRequest, context) -> pb.FormHypothesisResponse:
        drafts = [
            convert.evidence_from_pb(line, f"evidence[{i}]", self._clock.now())
            for i, line in enumerate(request.evidence)
        ]
        hypothesis = await self._for_caller(engagement.form_hypothesis, request.statement, drafts, request.request_id)
        return pb.FormHypothesisResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def AddHypothesisEvidence(
        self, request: pb.AddHypothesisEvidenceRequest, context
    ) -> pb.AddHypothesisEvidenceResponse:
        if not request.HasField("evidence"):
            raise errors.InvalidArgument("evidence", "is required")
        evidence = convert.evidence_from_pb(request.evidence, "evidence", self._clock.now())
        hypothesis = await self._for_caller(
            engagement.add_hypothesis_evidence, request.hypothesis_id, evidence, request.request_id
        )
        return pb.AddHypothesisEvidenceResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def ReviseHypothesis(self, request: pb.ReviseHypothesisRequest, context) -> pb.ReviseHypothesisResponse:
        confidence = request.confidence if request.HasField("confidence") else None
        hypothesis = await self._for_caller(
            engagement.revise_hypothesis, request.hypothesis_id, confidence, request.reason, request.statement
        )
        return pb.ReviseHypothesisResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def PromoteHypothesis(self, request: pb.PromoteHypothesisRequest, context) -> pb.PromoteHypothesisResponse:
        hypothesis, finding = await self._for_caller(
            engagement.promote_hypothesis,
            request.hypothesis_id,
            request.statement,
            request.source,
            threshold=self._threshold,
        )
        return pb.PromoteHypothesisResponse(
            hypothesis=convert.hypothesis_to_pb(hypothesis), finding=convert.finding_to_pb(finding)
        )

    async def ArchiveHypothesis(self, request: pb.ArchiveHypothesisRequest, context) -> pb.ArchiveHypothesisResponse:
        hypothesis = await self._for_caller(engagement.archive_hypothesis, request.hypothesis_id, request.note)
        return pb.ArchiveHypothesisResponse(hypothesis=convert.hypothesis_to_pb(hypothesis))

    async def AddUnknown(self, request: pb.AddUnknownRequest, context) -> pb.AddUnknownResponse:
        unknown = await self._for_caller(
            engagement.add_unknown, request.question, request.why_it_matters, request.request_id
        )
        return pb.AddUnknownResponse(unknown=convert.unknown_to_pb(unknown))

    async def ResolveUnknown(self, request: pb.ResolveUnknownRequest, context) -> pb.ResolveUnknownResponse:
        unknown = await self._for_caller(engagement.resolve_unknown, request.unknown_id, request.resolution)
        return pb.ResolveUnknownResponse(unknown=convert.unknown_to_pb(unknown))

    async def AdvanceWeek(self, request: pb.AdvanceWeekRequest, context) -> pb.AdvanceWeekResponse:
        expected = request.expected_week_number if request.HasField("expected_week_number") else None
        return pb.AdvanceWeekResponse(week_number=await self._for_caller(engagement.advance_week, expected))

    async def ExportEngagement(self, request: pb.ExportEngagementRequest, context):
        caller = request_context.current()
        async for page in org_transfer.export_engagement(caller.org_id, request.page_size, store=self._archive):
            yield pb.ExportEngagementResponse(
                engagement=convert.engagement_row_to_pb(page.row) if page.row is not None else None,
                hypotheses=[convert.hypothesis_to_pb(hypothesis, finding) for hypothesis, finding in page.hypotheses],
                unknowns=[convert.unknown_to_pb(unknown) for unknown in page.unknowns],
            )

    async def ImportEngagement(self, request: pb.ImportEngagementRequest, context) -> pb.ImportEngagementResponse:
        # An operator restore into the caller's org (the gateway's admin scope would guard a route to it).
        caller = request_context.current()
        row, hypotheses, unknowns = import_convert.engagement_import_from_pb(request, self._clock.now())
        counts = await org_transfer.import_engagement(caller.org_id, row, hypotheses, unknowns, store=self._archive)
        return pb.ImportEngagementResponse(
            imported_hypotheses=counts.hypotheses, imported_unknowns=counts.unknowns, skipped=counts.skipped
        )
