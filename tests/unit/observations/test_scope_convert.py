"""Whose belief a request names: ObserveRequest.scope and the filters of a query, validated at the edge."""

import pytest
from lore.common.v1 import scope_pb2
from lore.observations.v1 import observation_service_pb2 as pb
from lore_runtime.errors import InvalidArgument
from observations_svc.api.observation_convert import belief_scope_from_pb, query_filters_from_pb
from observations_svc.domain.model import BeliefScope


@pytest.mark.parametrize(
    ("agent_id", "scope", "expected"),
    [
        ("aria", {}, BeliefScope("aria")),
        ("aria", {"agent_id": "aria", "user_id": "ana", "team_id": "t"}, BeliefScope("aria", "ana", "t")),
        ("", {"agent_id": "aria", "user_id": "ana"}, BeliefScope("aria", "ana")),
        ("", {"user_id": "Ana Lima <ana@example.com>"}, BeliefScope("", "Ana Lima <ana@example.com>")),
    ],
)
def test_observe_takes_the_scope_and_its_agent_stands_for_an_empty_agent_id(agent_id, scope, expected):
    assert belief_scope_from_pb(pb.ObserveRequest(agent_id=agent_id, scope=scope)) == expected


@pytest.mark.parametrize(
    ("agent_id", "scope", "field"),
    [
        ("aria", {"agent_id": "other"}, "scope.agent_id"),
        ("aria", {"user_id": " ana"}, "scope.user_id"),
        ("aria", {"team_id": "t\x00"}, "scope.team_id"),
        ("aria", {"user_id": "u" * 129}, "scope.user_id"),
        ("bad agent", {}, "agent_id"),
    ],
)
def test_a_bad_scope_is_refused_naming_the_field(agent_id, scope, field):
    with pytest.raises(InvalidArgument) as refused:
        belief_scope_from_pb(pb.ObserveRequest(agent_id=agent_id, scope=scope))
    assert refused.value.field == field


def test_a_query_browses_by_default_and_takes_the_context_view_when_asked():
    browse = query_filters_from_pb(pb.QueryObservationsRequest(user_id="ana"))
    context = query_filters_from_pb(
        pb.QueryObservationsRequest(agent_id="aria", user_id="ana", scope_match=scope_pb2.SCOPE_MATCH_CONTEXT)
    )
    assert (browse.agent_id, browse.user_id, browse.context) == ("", "ana", False)
    assert (context.agent_id, context.user_id, context.context) == ("aria", "ana", True)
    with pytest.raises(InvalidArgument):
        query_filters_from_pb(pb.QueryObservationsRequest(scope_match=99))
