"""gRPC transport of the ObservationService: validate, call the use case, convert. The tenant
always comes from ``request_context.current()``, never from the request."""

from __future__ import annotations

from lore.observations.v1 import observation_service_pb2 as pb
from lore.observations.v1 import observation_service_pb2_grpc
from lore_embeddings import Embedder
from lore_runtime import request_context
from lore_runtime.clock import Clock
from lore_runtime.page_tokens import PageTokens

from observations_svc.api import import_convert
from observations_svc.api import observation_convert as convert
from observations_svc.domain import limits
from observations_svc.domain.keys import validate_agent_id
from observations_svc.usecases import maintenance, observe, org_transfer, read
from observations_svc.usecases.ports import ObservationArchive, ObservationStore


class ObservationServicer(observation_service_pb2_grpc.ObservationServiceServicer):
    """Knowledge observations with evidence, confidence and supersession."""

    def __init__(
        self,
        store: ObservationStore,
        archive: ObservationArchive,
        embedder: Embedder,
        clock: Clock,
        page_tokens: PageTokens,
    ) -> None:
        self._store = store
        self._archive = archive
        self._embedder = embedder
        self._clock = clock
        self._page_tokens = page_tokens

    async def Observe(self, request: pb.ObserveRequest, context) -> pb.ObserveResponse:
        caller = request_context.current()
        scope = convert.belief_scope_from_pb(request)
        candidate = convert.candidate_from_pb(request.candidate, self._clock.now())
        observation, outcome = await observe.observe(
            caller.org_id,
            scope,
            candidate,
            convert.request_id_from_pb(request.request_id),
            store=self._store,
            embedder=self._embedder,
            clock=self._clock,
        )
        return pb.ObserveResponse(observation=convert.observation_to_pb(observation), outcome=convert.OUTCOMES[outcome])

    async def GetObservation(self, request: pb.GetObservationRequest, context) -> pb.GetObservationResponse:
        caller = request_context.current()
        found = await read.get_observation(caller.org_id, convert.id_from_pb(request.id), store=self._store)
        return pb.GetObservationResponse(observation=convert.observation_to_pb(found))

    async def QueryObservations(self, request: pb.QueryObservationsRequest, context) -> pb.QueryObservationsResponse:
        caller = request_context.current()
        rows, token = await read.query_observations(
            caller.org_id,
            convert.query_filters_from_pb(request),
            convert.page_size(request.page_size),
            request.page_token,
            store=self._store,
            tokens=self._page_tokens,
        )
        return pb.QueryObservationsResponse(
            observations=[convert.observation_to_pb(row) for row in rows], next_page_token=token
        )

    async def SearchObservations(self, request: pb.SearchObservationsRequest, context) -> pb.SearchObservationsResponse:
        caller = request_context.current()
        text = convert.bounded_text(request.query, "query", limits.MAX_QUERY_CHARS, required=True)
        results = await read.search_observations(
            caller.org_id,
            text,
            convert.search_filters_from_pb(request),
            convert.search_k(request.k),
            store=self._store,
            embedder=self._embedder,
            vector=convert.query_vector_from_pb(request, self._embedder),
            include_embeddings=request.include_embeddings,
        )
        return pb.SearchObservationsResponse(
            results=[convert.search_result_to_pb(result) for result in results],
            embedding_model=self._embedder.model_name,
        )

    async def ConfirmObservation(self, request: pb.ConfirmObservationRequest, context) -> pb.ConfirmObservationResponse:
        caller = request_context.current()
        note = convert.bounded_text(request.note, "note", limits.MAX_EXCERPT_CHARS)
        observation = await observe.confirm(
            caller.org_id,
            convert.id_from_pb(request.id),
            caller.principal,
            note,
            convert.request_id_from_pb(request.request_id),
            store=self._store,
            clock=self._clock,
        )
        return pb.ConfirmObservationResponse(observation=convert.observation_to_pb(observation))

    async def ContradictObservation(
        self, request: pb.ContradictObservationRequest, context
    ) -> pb.ContradictObservationResponse:
        caller = request_context.current()
        evidence, correction = convert.contradiction_from_pb(request, self._clock.now())
        observation, outcome = await observe.contradict(
            caller.org_id,
            convert.id_from_pb(request.id),
            evidence,
            correction,
            convert.request_id_from_pb(request.request_id),
            store=self._store,
            embedder=self._embedder,
            clock=self._clock,
        )
        return pb.ContradictObservationResponse(
            observation=convert.observation_to_pb(observation), outcome=convert.OUTCOMES[outcome]
        )

    async def GetObservationHistory(
        self, request: pb.GetObservationHistoryRequest, context
    ) -> pb.GetObservationHistoryResponse:
        caller = request_context.current()
        chain = await read.observation_history(caller.org_id, convert.id_from_pb(request.id), store=self._store)
        return pb.GetObservationHistoryResponse(observations=[convert.observation_to_pb(row) for row in chain])

    async def RunRevalidation(self, request: pb.RunRevalidationRequest, context) -> pb.RunRevalidationResponse:
        caller = request_context.current()
        result = await maintenance.run_revalidation(
            caller.org_id, validate_agent_id(request.agent_id), store=self._store, clock=self._clock
        )
        return pb.RunRevalidationResponse(
            checked=result.checked, marked_stale=result.marked_stale, marked_invalidated=result.marked_invalidated
        )

    async def EraseSubject(self, request: pb.EraseSubjectRequest, context) -> pb.EraseSubjectResponse:
        caller = request_context.current()
        asked = convert.erasure_from_pb(request, caller)
        erasure = await maintenance.erase_subject(caller.org_id, asked, store=self._store, clock=self._clock)
        return pb.EraseSubjectResponse(
            observations_erased=erasure.observations_erased,
            evidence_erased=erasure.evidence_erased,
            tombstone_id=erasure.tombstone_id,
            recomputed_observation_ids=erasure.recomputed_ids,
            shared_erased_observation_ids=erasure.shared_erased_ids,
            **convert.engagement_erasure_to_pb(erasure.engagement),
        )

    async def FenceSubject(self, request: pb.FenceSubjectRequest, context) -> pb.FenceSubjectResponse:
        caller = request_context.current()
        subject = convert.fence_subject_from_pb(request.subject)
        await maintenance.fence_subject(caller.org_id, subject, request.erasure_id, store=self._store)
        return pb.FenceSubjectResponse()

    async def LiftSubjectFence(self, request: pb.LiftSubjectFenceRequest, context) -> pb.LiftSubjectFenceResponse:
        caller = request_context.current()
        await maintenance.lift_subject_fence(caller.org_id, request.erasure_id, store=self._store)
        return pb.LiftSubjectFenceResponse()

    async def ExportObservations(self, request: pb.ExportObservationsRequest, context):
        caller = request_context.current()
        async for page in org_transfer.export_observations(caller.org_id, request.page_size, store=self._archive):
            yield pb.ExportObservationsResponse(observations=[convert.observation_to_pb(item) for item in page])

    async def ImportObservations(self, request: pb.ImportObservationsRequest, context) -> pb.ImportObservationsResponse:
        # An operator restore into the caller's org (the gateway's admin scope would guard a route to it).
        caller = request_context.current()
        observations = import_convert.observations_from_pb(request, caller.org_id, self._clock.now())
        report = await org_transfer.import_observations(
            caller.org_id, observations, store=self._archive, embedder=self._embedder
        )
        return pb.ImportObservationsResponse(imported=report.imported, skipped=report.skipped)
