"""gRPC transport of the agent service: every AgentService RPC."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore_runtime import request_context
from lore_runtime.clock import Clock
from lore_runtime.errors import Unimplemented
from lore_runtime.page_tokens import PageTokens

from agent_svc.api import agent_convert as convert
from agent_svc.domain.transcript import bounded_id, requester_of
from agent_svc.usecases import sessions
from agent_svc.usecases.erasure import ErasureServices, forget_subject
from agent_svc.usecases.forget import forget_on_request
from agent_svc.usecases.import_turns import import_turns
from agent_svc.usecases.job_ports import JobQueueAdmin
from agent_svc.usecases.jobs import list_jobs, retry_jobs
from agent_svc.usecases.memory_ports import MessageIndex
from agent_svc.usecases.process_turn import TurnServices, process_turn
from agent_svc.usecases.transcript_ports import Transcript
from agent_svc.usecases.turn_context import get_turn_context


class AgentServicer(agent_service_pb2_grpc.AgentServiceServicer):
    """Sessions, the transcript (imported turns included), the per-turn loop and a turn's kept context,
    erasure and the job queue's administration (GetJobStats, ListJobs, RetryJobs)."""

    def __init__(
        self,
        transcript: Transcript,
        messages: MessageIndex,
        clock: Clock,
        turns: TurnServices,
        erasure: ErasureServices,
        job_queue: JobQueueAdmin,
        page_tokens: PageTokens,
        turn_result_retention: timedelta | None = None,
    ) -> None:
        """``turn_result_retention``: how long a turn's result is kept (None: forever)."""
        self._transcript = transcript
        self._retention = turn_result_retention
        self._page_tokens = page_tokens
        self._messages = messages
        self._clock = clock
        self._turns = turns
        self._erasure = erasure
        self._job_queue = job_queue

    async def GetJobStats(self, request: pb.GetJobStatsRequest, context: Any) -> pb.GetJobStatsResponse:
        caller = request_context.current()
        counts = await self._job_queue.counts(caller.org_id)
        return pb.GetJobStatsResponse(kinds=[convert.job_counts_to_pb(kind) for kind in counts])

    async def RetryJobs(self, request: pb.RetryJobsRequest, context: Any) -> pb.RetryJobsResponse:
        caller = request_context.current()
        requeued, skipped = await retry_jobs(caller.org_id, list(request.kinds), self._job_queue)
        return pb.RetryJobsResponse(requeued=requeued, skipped=skipped)

    async def ListJobs(self, request: pb.ListJobsRequest, context: Any) -> pb.ListJobsResponse:
        caller = request_context.current()
        found, token = await list_jobs(
            caller.org_id,
            request.kind,
            request.state,
            request.page_size,
            request.page_token,
            queue=self._job_queue,
            tokens=self._page_tokens,
        )
        return pb.ListJobsResponse(jobs=[convert.job_to_pb(job) for job in found], next_page_token=token)

    async def GetTurnContext(self, request: pb.GetTurnContextRequest, context: Any) -> pb.GetTurnContextResponse:
        caller = request_context.current()
        found = await get_turn_context(
            caller.org_id,
            request.session_id,
            request.turn_id,
            transcript=self._transcript,
            results=self._turns.results,
            clock=self._clock,
            retention=self._retention,
        )
        return convert.turn_context_to_pb(found)

    async def ProcessTurn(self, request: pb.ProcessTurnRequest, context: Any) -> pb.ProcessTurnResponse:
        caller = request_context.current()
        done = await process_turn(
            caller.org_id,
            request.session_id,
            convert.turn_input_from_pb(request.turn),
            convert.options_from_pb(request),
            self._turns,
        )
        return convert.processed_to_pb(done)

    async def ForgetAbout(self, request: pb.ForgetAboutRequest, context: Any) -> pb.ForgetAboutResponse:
        caller = request_context.current()
        if self._turns.forget is None:
            raise Unimplemented("forgetting is not configured on this agent")
        outcome = await forget_on_request(
            caller.org_id,
            convert.scope_from_pb(request.scope),
            request.about,
            request.request_id,
            services=self._turns.forget,
            transcript=self._transcript,
            clock=self._clock,
        )
        return convert.forget_outcome_to_pb(outcome)

    async def StartSession(self, request: pb.StartSessionRequest, context: Any) -> pb.StartSessionResponse:
        caller = request_context.current()
        started = await sessions.start_and_prime(
            caller.org_id,
            convert.scope_from_pb(request.scope),
            dict(request.metadata),
            bounded_id(request.request_id, "request_id"),
            request.initial_message,
            request.include_prime,
            requester=requester_of(caller.principal, caller.user_id),
            transcript=self._transcript,
            clock=self._clock,
            assembler=self._turns.assembler,
        )
        return convert.started_to_pb(started)

    async def GetSession(self, request: pb.GetSessionRequest, context: Any) -> pb.GetSessionResponse:
        caller = request_context.current()
        session = await sessions.get_session(caller.org_id, request.id, transcript=self._transcript)
        return pb.GetSessionResponse(session=convert.session_to_pb(session))

    async def ListSessions(self, request: pb.ListSessionsRequest, context: Any) -> pb.ListSessionsResponse:
        caller = request_context.current()
        found, token = await sessions.list_sessions(
            caller.org_id,
            convert.scope_from_pb(request.scope),
            convert.status_from_pb(request.status),
            request.page_size,
            request.page_token,
            transcript=self._transcript,
            tokens=self._page_tokens,
        )
        return pb.ListSessionsResponse(sessions=[convert.session_to_pb(s) for s in found], next_page_token=token)

    async def ListTurns(self, request: pb.ListTurnsRequest, context: Any) -> pb.ListTurnsResponse:
        caller = request_context.current()
        found, token = await sessions.list_turns(
            caller.org_id,
            request.session_id,
            request.page_size,
            request.page_token,
            transcript=self._transcript,
            tokens=self._page_tokens,
        )
        return pb.ListTurnsResponse(turns=[convert.turn_to_pb(turn) for turn in found], next_page_token=token)

    async def EndSession(self, request: pb.EndSessionRequest, context: Any) -> pb.EndSessionResponse:
        caller = request_context.current()
        session = await sessions.end_session(caller.org_id, request.id, transcript=self._transcript, clock=self._clock)
        return pb.EndSessionResponse(session=convert.session_to_pb(session))

    async def ImportTurns(self, request: pb.ImportTurnsRequest, context: Any) -> pb.ImportTurnsResponse:
        caller = request_context.current()
        done = await import_turns(
            caller.org_id,
            request.session_id,
            convert.drafts_from_pb(request.turns),
            transcript=self._transcript,
            messages=self._messages,
            clock=self._clock,
            redact=self._turns.redact,
        )
        return pb.ImportTurnsResponse(imported=done.imported, skipped=done.skipped)

    async def ForgetSubject(self, request: pb.ForgetSubjectRequest, context: Any) -> pb.ForgetSubjectResponse:
        caller = request_context.current()
        erasure = await forget_subject(
            caller.org_id,
            caller.principal,
            convert.scope_from_pb(request.subject, "subject"),
            request.request_id,
            self._erasure,
            requester=requester_of(caller.principal, caller.user_id),
        )
        return pb.ForgetSubjectResponse(job=convert.erasure_to_pb(erasure))
