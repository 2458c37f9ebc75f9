"""A credential pinned to a user: every user a request names is that user, and records by id are checked."""

from __future__ import annotations

import pytest
from gateway_svc.api.auth.user_pin import check_readable, check_writable, pin_request
from gateway_svc.domain.credentials import ALL_SCOPES, Caller
from lore.agent.v1 import agent_service_pb2
from lore.assembler.v1 import assembler_service_pb2
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2
from lore.observations.v1 import observation_service_pb2
from lore_runtime import errors

PINNED = Caller("acme", "alice-app", frozenset(ALL_SCOPES), "jwt:alice-app", user_id="alice")
ORG_WIDE = Caller("acme", "backend", frozenset(ALL_SCOPES), "key-1")


def test_an_org_wide_caller_may_name_any_user_and_nothing_is_filled_in():
    recall = memory_service_pb2.RecallRequest(query="q", scope=scope_pb2.Scope(user_id="bob"))
    empty = memory_service_pb2.ListMemoriesRequest()

    assert pin_request(ORG_WIDE, recall).scope.user_id == "bob"
    assert not pin_request(ORG_WIDE, empty).HasField("scope")


@pytest.mark.parametrize(
    "message",
    [
        memory_service_pb2.RecallRequest(query="q"),
        memory_service_pb2.ListMemoriesRequest(scope=scope_pb2.Scope(agent_id="aria")),
        assembler_service_pb2.PrimeRequest(),
        assembler_service_pb2.AssembleContextRequest(message="hi"),
        agent_service_pb2.StartSessionRequest(),
        agent_service_pb2.ForgetSubjectRequest(),
    ],
    ids=lambda message: type(message).__name__,
)
def test_a_scope_left_empty_is_the_pinned_users(message):
    pinned = pin_request(PINNED, message)

    scopes = [value for field, value in pinned.ListFields() if isinstance(value, scope_pb2.Scope)]
    assert [scope.user_id for scope in scopes] == ["alice"]


def test_every_memory_of_a_batch_and_the_flat_user_fields_are_pinned():
    remember = memory_service_pb2.RememberRequest(
        memories=[memory_service_pb2.MemoryInput(content="a"), memory_service_pb2.MemoryInput(content="b")]
    )
    query = observation_service_pb2.QueryObservationsRequest(agent_id="aria")
    observe = observation_service_pb2.ObserveRequest(agent_id="aria")

    assert [m.scope.user_id for m in pin_request(PINNED, remember).memories] == ["alice", "alice"]
    assert pin_request(PINNED, query).user_id == "alice"
    assert pin_request(PINNED, observe).scope.user_id == "alice"


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (memory_service_pb2.RecallRequest(query="q", scope=scope_pb2.Scope(user_id="bob")), "scope.userId"),
        (
            memory_service_pb2.RememberRequest(
                memories=[
                    memory_service_pb2.MemoryInput(content="mine", scope=scope_pb2.Scope(user_id="alice")),
                    memory_service_pb2.MemoryInput(content="theirs", scope=scope_pb2.Scope(user_id="bob")),
                ]
            ),
            "memories[1].scope.userId",
        ),
        (observation_service_pb2.SearchObservationsRequest(query="q", user_id="bob"), "userId"),
        (agent_service_pb2.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id="bob")), "subject.userId"),
    ],
    ids=lambda value: value if isinstance(value, str) else type(value).__name__,
)
def test_naming_another_user_is_refused_naming_the_field(message, field):
    with pytest.raises(errors.PermissionDenied) as refused:
        pin_request(PINNED, message)

    assert refused.value.reason == "USER_PINNED" and refused.value.metadata == {"field": field}


def test_records_by_id_own_and_shared_are_readable_only_own_are_changeable():
    check_readable(PINNED, "alice", "memory", "m-1")
    check_readable(PINNED, "", "memory", "m-2")
    check_writable(PINNED, "alice", "memory", "m-1")
    with pytest.raises(errors.NotFound) as hidden:
        check_readable(PINNED, "bob", "memory", "m-3")
    assert hidden.value.reason == "MEMORY_NOT_FOUND"
    with pytest.raises(errors.NotFound):
        check_writable(PINNED, "bob", "session", "s-1")
    with pytest.raises(errors.PermissionDenied):
        check_writable(PINNED, "", "observation", "o-1")
    check_writable(ORG_WIDE, "bob", "memory", "m-3")
