"""gRPC transport of the AssemblerService: validate, call the use case, convert. The tenant
travels from the incoming call's metadata to every source call (``lore_runtime.channels``)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from lore.assembler.v1 import assembler_service_pb2 as pb
from lore.assembler.v1 import assembler_service_pb2_grpc
from lore_runtime import request_context

from assembler_svc.api import assembler_convert as convert
from assembler_svc.domain.model import AssemblyPolicy
from assembler_svc.domain.priming import PrimeLimits
from assembler_svc.domain.profile import MAX_TOKENS
from assembler_svc.usecases.assemble_context import assemble_context
from assembler_svc.usecases.ports import AssemblyServices
from assembler_svc.usecases.prime import prime
from assembler_svc.usecases.user_profile import user_profile

# Left for converting the answers once the sources are done, out of the caller's deadline.
RESPONSE_MARGIN_SECONDS = 0.02


class AssemblerServicer(assembler_service_pb2_grpc.AssemblerServiceServicer):
    """Context assembly, priming and the user profile: the read side."""

    def __init__(
        self,
        *,
        services: AssemblyServices,
        policy: AssemblyPolicy,
        source_timeout: float,
        engagement_agents: Collection[str] = frozenset(),
        prime_limits: PrimeLimits = PrimeLimits(),
        profile_max_tokens: int = MAX_TOKENS,
    ) -> None:
        self._profile_max_tokens = profile_max_tokens
        self._services = services
        self._policy = policy
        self._source_timeout = source_timeout
        self._engagement_agents = frozenset(engagement_agents)
        self._prime_limits = prime_limits

    def _timeout(self, context: Any) -> float:
        """Each source's deadline: the configured one, never past the caller's own."""
        remaining = context.time_remaining() if context is not None else None
        if remaining is None:
            return self._source_timeout
        return max(0.001, min(self._source_timeout, remaining - RESPONSE_MARGIN_SECONDS))

    async def AssembleContext(self, request: pb.AssembleContextRequest, context: Any) -> pb.AssembleContextResponse:
        request_context.current()
        assembled = await assemble_context(
            convert.assemble_input_from_pb(request, self._policy),
            self._services,
            timeout=self._timeout(context),
            engagement_agents=self._engagement_agents,
            profile_max_tokens=self._profile_max_tokens,
        )
        return pb.AssembleContextResponse(context=convert.assembly_to_pb(assembled.assembly, assembled.flags))

    async def Prime(self, request: pb.PrimeRequest, context: Any) -> pb.PrimeResponse:
        request_context.current()
        primed = await prime(
            convert.scope_from_pb(request.scope),
            convert.text(request.initial_message, "initial_message", convert.MAX_MESSAGE_CHARS),
            convert.prime_budget(request.budget_tokens),
            self._services,
            timeout=self._timeout(context),
            limits=self._prime_limits,
        )
        return convert.priming_to_pb(primed)

    async def GetUserProfile(self, request: pb.GetUserProfileRequest, context: Any) -> pb.GetUserProfileResponse:
        request_context.current()
        profile = await user_profile(
            convert.profile_input_from_pb(request),
            self._services,
            timeout=self._timeout(context),
            max_tokens=self._profile_max_tokens,
        )
        return convert.user_profile_to_pb(profile)
