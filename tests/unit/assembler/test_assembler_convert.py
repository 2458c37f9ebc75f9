"""The AssemblerService's request limits: each refusal names the field (INVALID_ARGUMENT)."""

import pytest
from assembler_svc.api import assembler_convert as convert
from assembler_svc.domain.model import AssemblyPolicy, Section
from lore.assembler.v1 import assembler_service_pb2 as pb
from lore.common.v1 import context_pb2, turn_pb2
from lore_runtime.errors import InvalidArgument

DEFAULTS = AssemblyPolicy()


def request(**options) -> pb.AssembleContextRequest:
    return pb.AssembleContextRequest(message="hello", options=pb.AssembleOptions(**options))


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (pb.AssembleContextRequest(message="  "), "message"),
        (pb.AssembleContextRequest(message="x" * 4001), "message"),
        (request(persona="p" * 8001), "options.persona"),
        (request(user_profile="u" * 4001), "options.user_profile"),
        (request(persona_mode="two words"), "options.persona_mode"),
        (request(persona_mode="mode\n"), "options.persona_mode"),  # "$" is the end of the text
        (request(recall_k=101), "options.recall_k"),
        (request(min_score=1.5), "options.min_score"),
        (request(min_observation_confidence=-0.1), "options.min_observation_confidence"),
        (request(expressed_opinions=["o"] * 21), "options.expressed_opinions"),
        (request(expressed_opinions=["o" * 1001]), "options.expressed_opinions[0]"),
        (request(tool_results=[turn_pb2.ToolInteraction(tool_name="t")] * 21), "options.tool_results"),
        (request(tool_results=[turn_pb2.ToolInteraction(summary="no name")]), "options.tool_results[0].tool_name"),
        (
            request(section_budgets=[pb.SectionBudget(section=context_pb2.SECTION_KIND_UNSPECIFIED, tokens=10)]),
            "options.section_budgets[0].section",
        ),
        (
            request(section_budgets=[pb.SectionBudget(section=context_pb2.SECTION_KIND_MEMORIES, tokens=-1)]),
            "options.section_budgets[0].tokens",
        ),
        (pb.AssembleContextRequest(message="hi", scope={"user_id": "u" * 129}), "scope.user_id"),
    ],
)
def test_a_bad_request_is_refused_naming_the_field(bad, field) -> None:
    with pytest.raises(InvalidArgument) as refused:
        convert.assemble_input_from_pb(bad, DEFAULTS)
    assert refused.value.field == field


def test_defaults_and_overrides_become_the_policy() -> None:
    given = convert.assemble_input_from_pb(
        request(
            min_score=0.5,
            section_budgets=[pb.SectionBudget(section=context_pb2.SECTION_KIND_MEMORIES, tokens=300)],
            record_access=False,
        ),
        DEFAULTS,
    )

    assert given.policy.min_score == 0.5 and given.record_access is False and given.recall_k == 30
    assert given.policy.budgets[Section.MEMORIES] == 300 and given.policy.budgets[Section.PERSONA] == 300
    assert given.min_observation_confidence == 0.5


@pytest.mark.parametrize(("value", "expected"), [(0, 600), (1, 1), (4000, 4000)])
def test_prime_budget(value, expected) -> None:
    assert convert.prime_budget(value) == expected


@pytest.mark.parametrize("value", [-5, 4001])
def test_prime_budget_out_of_range(value) -> None:
    with pytest.raises(InvalidArgument) as refused:
        convert.prime_budget(value)
    assert refused.value.field == "budget_tokens"
