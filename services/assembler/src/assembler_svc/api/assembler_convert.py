"""pb2 <-> domain for the AssemblerService, with the request limits (each refusal names its field).

Limits (docs/assembler.md): message 4,000 characters; persona 8,000; user profile 4,000; at most
20 tool results (each result ≤ 16 KiB of JSON, ≤ 32 salient fields) and 20 expressed opinions
of ≤ 1,000 characters; a section budget 0..4,000 tokens; recall_k 1..100; scores in [0, 1].
"""

from __future__ import annotations

import math
import re

from google.protobuf import json_format
from lore.assembler.v1 import assembler_service_pb2 as pb
from lore.common.v1 import context_pb2, scope_pb2, turn_pb2
from lore_runtime.errors import InvalidArgument
from lore_runtime.proto_time import from_timestamp, to_timestamp
from lore_runtime.text_rules import check_agent_id

from assembler_svc.domain.gathered import Scope
from assembler_svc.domain.model import (
    Assembly,
    AssemblyPolicy,
    ConsistencyFlag,
    ManifestEntry,
    Section,
)
from assembler_svc.domain.priming import DEFAULT_BUDGET_TOKENS, PrimedItem, Priming
from assembler_svc.domain.profile import UserProfile
from assembler_svc.domain.tool_results import ToolResult
from assembler_svc.usecases.assemble_context import AssembleInput
from assembler_svc.usecases.user_profile import ProfileInput

MAX_MESSAGE_CHARS = 4_000
MAX_PERSONA_CHARS = 8_000
MAX_PROFILE_CHARS = 4_000
MAX_TOOL_RESULTS = 20
MAX_TOOL_RESULT_BYTES = 16_384
MAX_SALIENT_FIELDS = 32
MAX_OPINIONS = 20
MAX_OPINION_CHARS = 1_000
MAX_SECTION_TOKENS = 4_000
MAX_PRIME_TOKENS = 4_000
MAX_RECALL_K = 100
MAX_ID_CHARS = 128
DEFAULT_RECALL_K = 30
DEFAULT_MIN_OBSERVATION_CONFIDENCE = 0.5
_PERSONA_MODE = re.compile(r"[A-Za-z0-9_-]{0,64}")


def text(value: str, field: str, maximum: int, *, required: bool = False) -> str:
    if required and not value.strip():
        raise InvalidArgument(field, "must not be empty")
    if len(value) > maximum:
        raise InvalidArgument(field, f"at most {maximum} characters")
    return value.strip()


def scope_from_pb(scope: scope_pb2.Scope, field: str = "scope") -> Scope:
    return Scope(
        user_id=text(scope.user_id, f"{field}.user_id", MAX_ID_CHARS),
        agent_id=text(scope.agent_id, f"{field}.agent_id", MAX_ID_CHARS),
        team_id=text(scope.team_id, f"{field}.team_id", MAX_ID_CHARS),
    )


def _unit(value: float, field: str) -> float:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InvalidArgument(field, "must be between 0 and 1")
    return value


def tool_result_from_pb(interaction: turn_pb2.ToolInteraction, field: str = "tool_result") -> ToolResult:
    if interaction.result.ByteSize() > MAX_TOOL_RESULT_BYTES:
        raise InvalidArgument(f"{field}.result", f"at most {MAX_TOOL_RESULT_BYTES} bytes")
    if len(interaction.salient_fields) > MAX_SALIENT_FIELDS:
        raise InvalidArgument(f"{field}.salient_fields", f"at most {MAX_SALIENT_FIELDS} paths")
    if not interaction.tool_name.strip():
        raise InvalidArgument(f"{field}.tool_name", "must not be empty")
    # The assembler does not use the time, but a caller's time outside the calendar range is refused
    # here as on every other route: one rule for every timestamp field.
    from_timestamp(interaction, "occurred_at", f"{field}.occurred_at")
    return ToolResult(
        tool_name=text(interaction.tool_name, f"{field}.tool_name", MAX_ID_CHARS),
        intent=text(interaction.intent, f"{field}.intent", MAX_OPINION_CHARS),
        summary=text(interaction.summary, f"{field}.summary", MAX_OPINION_CHARS),
        fields=json_format.MessageToDict(interaction.result),
        salient_fields=tuple(interaction.salient_fields),
    )


def _budgets(options: pb.AssembleOptions) -> dict[Section, int]:
    """The sections whose budget the caller set, and to what."""
    overrides: dict[Section, int] = {}
    for index, budget in enumerate(options.section_budgets):
        field = f"options.section_budgets[{index}]"
        try:
            section = Section(budget.section)
        except ValueError:
            raise InvalidArgument(f"{field}.section", "must name a section") from None
        if not 0 <= budget.tokens <= MAX_SECTION_TOKENS:
            raise InvalidArgument(f"{field}.tokens", f"must be between 0 and {MAX_SECTION_TOKENS}")
        overrides[section] = budget.tokens
    return overrides


def assemble_input_from_pb(request: pb.AssembleContextRequest, defaults: AssemblyPolicy) -> AssembleInput:
    options = request.options
    if len(options.tool_results) > MAX_TOOL_RESULTS:
        raise InvalidArgument("options.tool_results", f"at most {MAX_TOOL_RESULTS}")
    if len(options.expressed_opinions) > MAX_OPINIONS:
        raise InvalidArgument("options.expressed_opinions", f"at most {MAX_OPINIONS}")
    if not _PERSONA_MODE.fullmatch(options.persona_mode):
        raise InvalidArgument("options.persona_mode", "at most 64 characters of [A-Za-z0-9_-]")
    if options.recall_k and not 1 <= options.recall_k <= MAX_RECALL_K:
        raise InvalidArgument("options.recall_k", f"must be between 1 and {MAX_RECALL_K}")
    min_score = _unit(options.min_score, "options.min_score") if options.HasField("min_score") else defaults.min_score
    budgets = _budgets(options)
    return AssembleInput(
        message=text(request.message, "message", MAX_MESSAGE_CHARS, required=True),
        scope=scope_from_pb(request.scope),
        session_id=text(request.session_id, "session_id", MAX_ID_CHARS),
        persona=text(options.persona, "options.persona", MAX_PERSONA_CHARS),
        persona_mode=options.persona_mode,
        user_profile=text(options.user_profile, "options.user_profile", MAX_PROFILE_CHARS),
        tool_results=tuple(
            tool_result_from_pb(result, f"options.tool_results[{index}]")
            for index, result in enumerate(options.tool_results)
        ),
        opinions=tuple(
            text(opinion, f"options.expressed_opinions[{index}]", MAX_OPINION_CHARS)
            for index, opinion in enumerate(options.expressed_opinions)
        ),
        policy=AssemblyPolicy(
            weights=defaults.weights,
            min_score=min_score,
            duplicate_cosine=defaults.duplicate_cosine,
            budgets={**defaults.budgets, **budgets},
            fixed=defaults.fixed | frozenset(budgets),
            share_spare=defaults.share_spare,
        ),
        recall_k=options.recall_k or DEFAULT_RECALL_K,
        min_observation_confidence=(
            _unit(options.min_observation_confidence, "options.min_observation_confidence")
            if options.HasField("min_observation_confidence")
            else DEFAULT_MIN_OBSERVATION_CONFIDENCE
        ),
        record_access=options.record_access if options.HasField("record_access") else True,
    )


def prime_budget(value: int) -> int:
    if value == 0:
        return DEFAULT_BUDGET_TOKENS
    if not 1 <= value <= MAX_PRIME_TOKENS:
        raise InvalidArgument("budget_tokens", f"must be between 1 and {MAX_PRIME_TOKENS}")
    return value


def profile_input_from_pb(request: pb.GetUserProfileRequest) -> ProfileInput:
    """GetUserProfile's request: a user (required), the agent and team of the context it stands for,
    the caller's profile text (≤ 4,000 characters) and a budget of 0 (as much as is known) to 4,000."""
    if not 0 <= request.budget_tokens <= MAX_PRIME_TOKENS:
        raise InvalidArgument("budget_tokens", f"must be between 0 and {MAX_PRIME_TOKENS}")
    return ProfileInput(
        scope=Scope(
            user_id=text(request.user_id, "user_id", MAX_ID_CHARS, required=True),
            # A profile reads beliefs: an agent id none may name is refused here, not by a source behind it.
            agent_id=check_agent_id(request.agent_id),
            team_id=text(request.team_id, "team_id", MAX_ID_CHARS),
        ),
        user_profile=text(request.user_profile, "user_profile", MAX_PROFILE_CHARS),
        budget_tokens=request.budget_tokens,
    )


def user_profile_to_pb(profile: UserProfile) -> pb.GetUserProfileResponse:
    lines = []
    for line in profile.lines:
        message = pb.ProfileLine(text=line.text, kind=line.kind, source_id=line.source_id, confidence=line.confidence)
        if line.updated_at is not None:
            message.updated_at.CopyFrom(to_timestamp(line.updated_at))
        lines.append(message)
    return pb.GetUserProfileResponse(profile=pb.UserProfile(lines=lines, text=profile.text, tokens=profile.tokens))


def manifest_entry_to_pb(entry: ManifestEntry) -> context_pb2.ManifestEntry:
    return context_pb2.ManifestEntry(
        source=int(entry.source),
        id=entry.id,
        section=int(entry.section),
        score=context_pb2.ScoreComponents(
            similarity=entry.score.similarity,
            recency=entry.score.recency,
            importance=entry.score.importance,
            total=entry.score.total,
        ),
        tokens=entry.tokens,
        outcome=int(entry.outcome),
        duplicate_of=entry.duplicate_of,
        truncated=entry.truncated,
        reason=entry.reason,
    )


def _flag_to_pb(flag: ConsistencyFlag) -> context_pb2.ConsistencyFlag:
    return context_pb2.ConsistencyFlag(
        aspect=flag.aspect, previous=flag.previous, current=flag.current, message=flag.message
    )


def assembly_to_pb(assembly: Assembly, flags: tuple[ConsistencyFlag, ...]) -> context_pb2.AssembledContext:
    return context_pb2.AssembledContext(
        sections=[
            context_pb2.ContextSection(
                kind=int(section.section),
                title=section.title,
                items=[
                    context_pb2.ContextItem(
                        source=int(item.source),
                        id=item.id,
                        text=item.text,
                        tokens=item.tokens,
                        truncated=item.truncated,
                    )
                    for item in section.items
                ],
                text=section.text,
                tokens=section.tokens,
                budget_tokens=section.budget_tokens,
            )
            for section in assembly.sections
        ],
        manifest=[manifest_entry_to_pb(entry) for entry in assembly.manifest],
        text=assembly.text,
        total_tokens=assembly.total_tokens,
        budget_tokens=assembly.budget_tokens,
        fingerprint=assembly.fingerprint,
        first_session=assembly.first_session,
        consistency_flags=[_flag_to_pb(flag) for flag in flags],
    )


def _primed_to_pb(item: PrimedItem) -> pb.PrimedItem:
    message = pb.PrimedItem(source=int(item.source), id=item.id, text=item.text, score=item.score)
    message.metadata.update(item.metadata)
    if item.occurred_at is not None:
        message.occurred_at.CopyFrom(to_timestamp(item.occurred_at))
    return message


def priming_to_pb(primed: Priming) -> pb.PrimeResponse:
    return pb.PrimeResponse(
        recent_context=[_primed_to_pb(item) for item in primed.recent_context],
        open_threads=[_primed_to_pb(item) for item in primed.open_threads],
        # the memories sharing the initial message's entities are facts about this conversation
        salient_facts=[_primed_to_pb(item) for item in (*primed.salient_facts, *primed.related)],
        observations=[_primed_to_pb(item) for item in primed.observations],
        entities=list(primed.entities),
        formatted_context=primed.formatted_context,
        manifest=[manifest_entry_to_pb(entry) for entry in primed.manifest],
    )
