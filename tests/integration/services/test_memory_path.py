"""Remember and Recall through real stubs on the memory service: real embeddings, qdrant-edge."""

from __future__ import annotations

import uuid

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2 as pb
from lore.memory.v1 import memory_service_pb2_grpc


def _tenant(org_id: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org_id), ("x-lore-principal", "tester"))


@pytest.fixture
def stub(services) -> memory_service_pb2_grpc.MemoryServiceStub:
    return memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)


def _memory(content: str, user: str, **fields) -> pb.MemoryInput:
    return pb.MemoryInput(
        content=content, memory_type=pb.MEMORY_TYPE_FACT, scope=scope_pb2.Scope(user_id=user), **fields
    )


def _bad_request_fields(error: grpc.aio.AioRpcError) -> list[str]:
    status = rpc_status.from_call(error)
    fields = []
    for detail in status.details:
        bad_request = error_details_pb2.BadRequest()
        if detail.Unpack(bad_request):
            fields += [violation.field for violation in bad_request.field_violations]
    return fields


async def test_recall_finds_a_memory_by_meaning_and_returns_metadata_as_given(stub, org_id):
    user = f"user-{uuid.uuid4().hex[:8]}"
    written = await stub.Remember(
        pb.RememberRequest(
            memories=[
                _memory("Tomasz bought a new cello for his son.", user, metadata={"turn_ref": "D1:1"}),
                _memory("The weather in Paris was rainy all week.", user),
            ]
        ),
        metadata=_tenant(org_id),
    )
    assert [memory.metadata["turn_ref"] for memory in written.memories[:1]] == ["D1:1"]
    found = await stub.Recall(
        pb.RecallRequest(
            query="Which musical instrument did someone purchase?", scope=scope_pb2.Scope(user_id=user), k=2
        ),
        metadata=_tenant(org_id),
    )
    assert found.results[0].memory.content == "Tomasz bought a new cello for his son."
    assert dict(found.results[0].memory.metadata) == {"turn_ref": "D1:1"}
    assert found.results[0].memory.importance == 0.5
    assert found.results[0].similarity > found.results[1].similarity


async def test_recall_returns_the_stored_vectors_only_when_asked(stub, org_id):
    user = f"user-{uuid.uuid4().hex[:8]}"
    await stub.Remember(
        pb.RememberRequest(memories=[_memory("The violin lesson is on Tuesdays.", user)]), metadata=_tenant(org_id)
    )
    request = pb.RecallRequest(query="violin lesson", scope=scope_pb2.Scope(user_id=user), record_access=False)

    plain = await stub.Recall(request, metadata=_tenant(org_id))
    request.include_embeddings = True
    with_vectors = await stub.Recall(request, metadata=_tenant(org_id))

    assert list(plain.results[0].embedding) == [] and list(plain.query_embedding) == []
    vector = list(with_vectors.results[0].embedding)
    assert len(vector) == 384 and abs(sum(v * v for v in vector) - 1.0) < 1e-3
    request.include_query_embedding = True
    with_query = await stub.Recall(request, metadata=_tenant(org_id))
    assert len(with_query.query_embedding) == 384 and with_query.embedding_model == plain.embedding_model != ""


async def test_recall_never_returns_another_orgs_memories(stub, org_id):
    other_org = f"org-{uuid.uuid4().hex[:12]}"
    await stub.Remember(
        pb.RememberRequest(memories=[_memory("The launch code is tangerine.", "shared-user")]),
        metadata=_tenant(other_org),
    )
    found = await stub.Recall(
        pb.RecallRequest(query="launch code", scope=scope_pb2.Scope(user_id="shared-user")), metadata=_tenant(org_id)
    )
    assert list(found.results) == []
    empty_scope = await stub.Recall(pb.RecallRequest(query="launch code"), metadata=_tenant(org_id))
    assert list(empty_scope.results) == []


async def _remember_alice_bob_and_the_orgs(stub, org_id: str) -> tuple[str, dict[str, str]]:
    """Memories about Porto of alice (one with her agent), of bob, and of the whole org (no user,
    one with the agent); returns alice's id and the ids of the memories by name."""
    alice, bob = f"alice-{uuid.uuid4().hex[:8]}", f"bob-{uuid.uuid4().hex[:8]}"
    inputs = {
        "alice": _memory("Alice's sister lives in Porto.", alice),
        "alice+bot": pb.MemoryInput(
            content="Alice asked the bot about trains to Porto.",
            memory_type=pb.MEMORY_TYPE_FACT,
            scope=scope_pb2.Scope(user_id=alice, agent_id="bot"),
        ),
        "bob": _memory("Bob's sister lives in Porto.", bob),
        "org": pb.MemoryInput(content="The Porto office opens at nine.", memory_type=pb.MEMORY_TYPE_FACT),
        "org+bot": pb.MemoryInput(
            content="The bot books Porto hotels through the travel desk.",
            memory_type=pb.MEMORY_TYPE_FACT,
            scope=scope_pb2.Scope(agent_id="bot"),
        ),
    }
    written = await stub.Remember(pb.RememberRequest(memories=list(inputs.values())), metadata=_tenant(org_id))
    return alice, {memory.id: name for name, memory in zip(inputs, written.memories, strict=True)}


async def test_a_context_recall_shows_the_users_and_the_orgs_memories_never_another_users(stub, org_id):
    alice, names = await _remember_alice_bob_and_the_orgs(stub, org_id)

    async def recall(scope: scope_pb2.Scope, match: int) -> set[str]:
        request = pb.RecallRequest(query="Porto", scope=scope, k=20, scope_match=match, record_access=False)
        return {names[result.memory.id] for result in (await stub.Recall(request, metadata=_tenant(org_id))).results}

    context = scope_pb2.SCOPE_MATCH_CONTEXT
    assert await recall(scope_pb2.Scope(user_id=alice), context) == {"alice", "alice+bot", "org", "org+bot"}
    assert await recall(scope_pb2.Scope(user_id=alice, agent_id="bot"), context) == {
        "alice",
        "alice+bot",
        "org",
        "org+bot",
    }
    assert await recall(scope_pb2.Scope(user_id=alice, agent_id="other"), context) == {"alice", "org"}
    assert await recall(scope_pb2.Scope(), context) == {"org", "org+bot"}
    # The default (browse) match is unchanged: the ids the scope sets, the org's shared memories not among them.
    assert await recall(scope_pb2.Scope(user_id=alice), scope_pb2.SCOPE_MATCH_UNSPECIFIED) == {"alice", "alice+bot"}
    assert await recall(scope_pb2.Scope(), scope_pb2.SCOPE_MATCH_UNSPECIFIED) == set(names.values())


async def test_a_context_listing_shows_the_users_and_the_orgs_memories_and_binds_its_page_tokens(stub, org_id):
    alice, names = await _remember_alice_bob_and_the_orgs(stub, org_id)
    scope, context = scope_pb2.Scope(user_id=alice), scope_pb2.SCOPE_MATCH_CONTEXT

    seen, token = [], ""
    while True:
        request = pb.ListMemoriesRequest(scope=scope, page_size=2, page_token=token, scope_match=context)
        page = await stub.ListMemories(request, metadata=_tenant(org_id))
        seen += [names[memory.id] for memory in page.memories]
        if not (token := page.next_page_token):
            break
    browse = await stub.ListMemories(pb.ListMemoriesRequest(scope=scope, page_size=1), metadata=_tenant(org_id))

    assert sorted(seen) == ["alice", "alice+bot", "org", "org+bot"]
    assert [names[memory.id] for memory in browse.memories] in (["alice"], ["alice+bot"])
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ListMemories(
            pb.ListMemoriesRequest(scope=scope, page_token=browse.next_page_token, scope_match=context),
            metadata=_tenant(org_id),
        )
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _bad_request_fields(raised.value) == ["page_token"]


async def test_a_retried_remember_creates_nothing_twice(stub, org_id):
    request = pb.RememberRequest(
        memories=[_memory("Sam prefers tea.", "sam", idempotency_key="k-1"), _memory("Sam lives in Oslo.", "sam")],
        request_id="req-1",
    )
    first = await stub.Remember(request, metadata=_tenant(org_id))
    second = await stub.Remember(request, metadata=_tenant(org_id))
    assert [m.id for m in first.memories] == [m.id for m in second.memories]
    found = await stub.Recall(
        pb.RecallRequest(query="Sam", scope=scope_pb2.Scope(user_id="sam"), k=10), metadata=_tenant(org_id)
    )
    assert len(found.results) == 2


@pytest.mark.parametrize(
    ("memory", "field"),
    [
        (pb.MemoryInput(content="", memory_type=pb.MEMORY_TYPE_FACT), "memories[1].content"),
        (pb.MemoryInput(content="x" * 16_001, memory_type=pb.MEMORY_TYPE_FACT), "memories[1].content"),
        (pb.MemoryInput(content="fine"), "memories[1].memory_type"),
        (pb.MemoryInput(content="fine", memory_type=pb.MEMORY_TYPE_FACT, importance=1.5), "memories[1].importance"),
        (
            pb.MemoryInput(content="fine", memory_type=pb.MEMORY_TYPE_FACT, metadata={"k": "v" * 1025}),
            "memories[1].metadata[k]",
        ),
    ],
)
async def test_a_malformed_batch_is_refused_naming_the_field_and_writes_nothing(stub, org_id, memory, field):
    user = f"user-{uuid.uuid4().hex[:8]}"
    memory.scope.user_id = user
    batch = pb.RememberRequest(memories=[_memory("A valid memory about gardening.", user), memory])
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.Remember(batch, metadata=_tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _bad_request_fields(raised.value) == [field]
    found = await stub.Recall(
        pb.RecallRequest(query="gardening", scope=scope_pb2.Scope(user_id=user)), metadata=_tenant(org_id)
    )
    assert list(found.results) == []


async def test_a_batch_over_the_limit_is_refused(stub, org_id):
    batch = pb.RememberRequest(memories=[_memory(f"memory {n}", "u") for n in range(101)])
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.Remember(batch, metadata=_tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _bad_request_fields(raised.value) == ["memories"]


@pytest.mark.parametrize(
    ("request_fields", "field"),
    [
        ({"query": "  "}, "query"),
        ({"query": "q", "k": 101}, "k"),
        ({"query": "q", "memory_types": [99]}, "memory_types[0]"),
        ({"query": "q", "scope_match": 7}, "scope_match"),
    ],
)
async def test_a_malformed_recall_is_refused_naming_the_field(stub, org_id, request_fields, field):
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.Recall(pb.RecallRequest(**request_fields), metadata=_tenant(org_id))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _bad_request_fields(raised.value) == [field]
