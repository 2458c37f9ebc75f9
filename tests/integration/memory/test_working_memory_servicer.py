"""WorkingMemoryService in-process on port 0, on the real Redis adapters, through the real stub."""

from __future__ import annotations

import asyncio
import secrets

import grpc
import pytest
import redis.asyncio as redis
from google.protobuf import field_mask_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.common.v1 import turn_pb2
from lore.memory.v1 import working_memory_service_pb2 as pb
from lore.memory.v1 import working_memory_service_pb2_grpc
from lore_runtime.clock import SystemClock
from lore_runtime.server import Registration, create_grpc_server
from memory_svc.adapters.redis_session_leases import RedisSessionLeases
from memory_svc.adapters.redis_working_memory import RedisWorkingMemoryStore
from memory_svc.api.working_memory_servicer import WorkingMemoryServicer

from tests.grpc_harness import server_settings, service_channel
from tests.polling import holds_for

SERVICE = pb.DESCRIPTOR.services_by_name["WorkingMemoryService"]
MAX_TURNS = 10


@pytest.fixture(scope="module")
async def stub(redis_url):
    client = redis.Redis.from_url(redis_url)
    prefix = f"lore-test-{secrets.token_hex(4)}"
    servicer = WorkingMemoryServicer(
        RedisWorkingMemoryStore(client, key_prefix=f"{prefix}:wm", lease_prefix=f"{prefix}:lease"),
        RedisSessionLeases(client, key_prefix=f"{prefix}:lease", memory_prefix=f"{prefix}:wm"),
        SystemClock(),
        max_turns=MAX_TURNS,
    )
    server = create_grpc_server(
        "127.0.0.1:0",
        [Registration(servicer, working_memory_service_pb2_grpc.add_WorkingMemoryServiceServicer_to_server, SERVICE)],
        settings=server_settings(),
    )
    await server.start()
    channel = service_channel(f"127.0.0.1:{server.port}")
    try:
        yield working_memory_service_pb2_grpc.WorkingMemoryServiceStub(channel)
    finally:
        await channel.close()
        await server.stop(grace=None)
        await client.aclose()


def tenant(org: str):
    return (("x-lore-org-id", org), ("x-lore-principal", "t"))


def user_turn(content: str, **kwargs) -> turn_pb2.Turn:
    return turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content=content, **kwargs)


async def failure(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    return raised.value


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return info


async def test_fifty_concurrent_appends_are_all_counted_and_the_last_n_kept(stub, org_id):
    await asyncio.gather(
        *(
            stub.AppendTurn(
                pb.AppendTurnRequest(session_id="s-1", turn=user_turn(f"turn {n}")), metadata=tenant(org_id)
            )
            for n in range(50)
        )
    )
    response = await stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id="s-1"), metadata=tenant(org_id))
    memory = response.working_memory
    assert memory.session_id == "s-1" and memory.turn_count == 50
    assert [turn.sequence for turn in memory.recent_turns] == list(range(41, 51))
    assert len({turn.id for turn in memory.recent_turns}) == MAX_TURNS
    assert all(turn.session_id == "s-1" and turn.HasField("created_at") for turn in memory.recent_turns)
    assert memory.expires_at.ToDatetime() > memory.updated_at.ToDatetime()


async def test_a_tool_result_round_trips_as_a_struct(stub, org_id):
    tool = turn_pb2.ToolInteraction(tool_name="flights", intent="search", summary="one", salient_fields=["f.dep"])
    tool.result.update({"f": {"dep": "09:00", "seats": 3}, "ok": True})
    response = await stub.AppendTurn(
        pb.AppendTurnRequest(session_id="s-1", turn=user_turn("go", tool_interactions=[tool])), metadata=tenant(org_id)
    )
    returned = response.working_memory.recent_turns[0].tool_interactions[0]
    assert returned.tool_name == "flights" and list(returned.salient_fields) == ["f.dep"]
    assert returned.result == tool.result


async def test_update_with_a_summary_mask_changes_only_the_summary(stub, org_id):
    first = pb.WorkingMemory(
        summary="old", context_fingerprint="fp-1", active_plan=pb.Plan(goal="g", progress="p", next_step="n")
    )
    await stub.UpdateWorkingMemory(
        pb.UpdateWorkingMemoryRequest(
            session_id="s-1",
            working_memory=first,
            update_mask=field_mask_pb2.FieldMask(paths=["summary", "context_fingerprint", "active_plan"]),
        ),
        metadata=tenant(org_id),
    )
    await stub.AppendTurn(pb.AppendTurnRequest(session_id="s-1", turn=user_turn("hi")), metadata=tenant(org_id))
    response = await stub.UpdateWorkingMemory(
        pb.UpdateWorkingMemoryRequest(
            session_id="s-1",
            working_memory=pb.WorkingMemory(summary="new", context_fingerprint="ignored"),
            update_mask=field_mask_pb2.FieldMask(paths=["summary"]),
        ),
        metadata=tenant(org_id),
    )
    memory = response.working_memory
    assert memory.summary == "new"
    assert memory.context_fingerprint == "fp-1"
    assert memory.active_plan == pb.Plan(goal="g", progress="p", next_step="n")
    assert memory.turn_count == 1 and [turn.content for turn in memory.recent_turns] == ["hi"]


async def test_an_unknown_mask_path_is_invalid_argument_naming_update_mask(stub, org_id):
    error = await failure(
        stub.UpdateWorkingMemory(
            pb.UpdateWorkingMemoryRequest(
                session_id="s-1",
                working_memory=pb.WorkingMemory(turn_count=9),
                update_mask=field_mask_pb2.FieldMask(paths=["turn_count"]),
            ),
            metadata=tenant(org_id),
        )
    )
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).metadata["field"] == "update_mask"


async def test_a_turn_without_role_or_content_is_invalid_argument(stub, org_id):
    no_role = await failure(
        stub.AppendTurn(
            pb.AppendTurnRequest(session_id="s-1", turn=turn_pb2.Turn(content="hi")), metadata=tenant(org_id)
        )
    )
    assert no_role.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(no_role).metadata["field"] == "turn.role"
    too_long = await failure(
        stub.AppendTurn(pb.AppendTurnRequest(session_id="s-1", turn=user_turn("x" * 16_001)), metadata=tenant(org_id))
    )
    assert error_info(too_long).metadata["field"] == "turn.content"
    no_session = await failure(
        stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id=""), metadata=tenant(org_id))
    )
    assert error_info(no_session).metadata["field"] == "session_id"


async def test_another_org_sees_an_empty_working_memory(stub, org_id):
    await stub.AppendTurn(pb.AppendTurnRequest(session_id="s-1", turn=user_turn("secret")), metadata=tenant(org_id))
    response = await stub.GetWorkingMemory(
        pb.GetWorkingMemoryRequest(session_id="s-1"), metadata=tenant(f"{org_id}-other")
    )
    assert response.working_memory == pb.WorkingMemory(session_id="s-1")


async def test_clear_empties_the_working_memory(stub, org_id):
    await stub.AppendTurn(pb.AppendTurnRequest(session_id="s-1", turn=user_turn("hi")), metadata=tenant(org_id))
    await stub.ClearWorkingMemory(pb.ClearWorkingMemoryRequest(session_id="s-1"), metadata=tenant(org_id))
    response = await stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id="s-1"), metadata=tenant(org_id))
    assert response.working_memory.turn_count == 0


async def test_leases_through_grpc(stub, org_id):
    first = (
        await stub.AcquireSessionLease(
            pb.AcquireSessionLeaseRequest(session_id="s-1", holder="req-1", ttl_ms=5_000), metadata=tenant(org_id)
        )
    ).lease
    assert first.holder == "req-1" and first.fencing_token > 0 and first.HasField("expires_at")

    busy = await failure(
        stub.AcquireSessionLease(
            pb.AcquireSessionLeaseRequest(session_id="s-1", holder="req-2", ttl_ms=5_000, wait_ms=50),
            metadata=tenant(org_id),
        )
    )
    assert busy.code() is grpc.StatusCode.ABORTED
    assert error_info(busy).reason == "SESSION_BUSY"

    stale = await stub.ReleaseSessionLease(
        pb.ReleaseSessionLeaseRequest(session_id="s-1", holder="req-1", fencing_token=first.fencing_token - 1),
        metadata=tenant(org_id),
    )
    assert not stale.released
    released = await stub.ReleaseSessionLease(
        pb.ReleaseSessionLeaseRequest(session_id="s-1", holder="req-1", fencing_token=first.fencing_token),
        metadata=tenant(org_id),
    )
    assert released.released

    second = (
        await stub.AcquireSessionLease(
            pb.AcquireSessionLeaseRequest(session_id="s-1", holder="req-2"), metadata=tenant(org_id)
        )
    ).lease
    assert second.fencing_token > first.fencing_token

    bad_ttl = await failure(
        stub.AcquireSessionLease(
            pb.AcquireSessionLeaseRequest(session_id="s-2", holder="req-1", ttl_ms=1), metadata=tenant(org_id)
        )
    )
    assert bad_ttl.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(bad_ttl).metadata["field"] == "ttl_ms"

    # The first holder's token is older than the second's: its writes are refused.
    lost = await failure(
        stub.AppendTurn(
            pb.AppendTurnRequest(session_id="s-1", turn=user_turn("late"), fencing_token=first.fencing_token),
            metadata=tenant(org_id),
        )
    )
    assert lost.code() is grpc.StatusCode.ABORTED and error_info(lost).reason == "LEASE_LOST"
    fenced = await stub.AppendTurn(
        pb.AppendTurnRequest(session_id="s-1", turn=user_turn("on time"), fencing_token=second.fencing_token),
        metadata=tenant(org_id),
    )
    assert [turn.content for turn in fenced.working_memory.recent_turns] == ["on time"]
    bad_token = await failure(
        stub.UpdateWorkingMemory(
            pb.UpdateWorkingMemoryRequest(session_id="s-1", fencing_token=0), metadata=tenant(org_id)
        )
    )
    assert error_info(bad_token).metadata["field"] == "fencing_token"


async def test_calls_without_a_tenant_are_refused(stub):
    error = await failure(stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id="s-1")))
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED


def read(session_id: str, *paths: str) -> pb.GetWorkingMemoryRequest:
    return pb.GetWorkingMemoryRequest(session_id=session_id, read_mask=field_mask_pb2.FieldMask(paths=list(paths)))


async def test_a_read_mask_returns_only_the_named_fields_and_no_mask_returns_everything(stub, org_id):
    await stub.AppendTurn(
        pb.AppendTurnRequest(session_id="s-1", turn=user_turn("hello", idempotency_key="turn:t1")),
        metadata=tenant(org_id),
    )
    await stub.UpdateWorkingMemory(
        pb.UpdateWorkingMemoryRequest(
            session_id="s-1",
            working_memory=pb.WorkingMemory(summary="so far", context_fingerprint="fp"),
            update_mask=field_mask_pb2.FieldMask(paths=["summary", "context_fingerprint"]),
        ),
        metadata=tenant(org_id),
    )
    full = (await stub.GetWorkingMemory(read("s-1"), metadata=tenant(org_id))).working_memory
    assert [t.content for t in full.recent_turns] == ["hello"] and full.summary == "so far"

    everything = read("s-1", *(field.name for field in pb.WorkingMemory.DESCRIPTOR.fields))
    assert (await stub.GetWorkingMemory(everything, metadata=tenant(org_id))).working_memory == full
    summary = (await stub.GetWorkingMemory(read("s-1", "summary"), metadata=tenant(org_id))).working_memory
    assert summary == pb.WorkingMemory(session_id="s-1", summary="so far")
    keys = read("s-1", "context_fingerprint", "recent_turns.*.id", "recent_turns.*.idempotency_key")
    keyed = (await stub.GetWorkingMemory(keys, metadata=tenant(org_id))).working_memory
    assert keyed == pb.WorkingMemory(
        session_id="s-1",
        context_fingerprint="fp",
        recent_turns=[turn_pb2.Turn(id=full.recent_turns[0].id, idempotency_key="turn:t1")],
    )


async def test_a_masked_read_of_another_orgs_session_is_empty_and_a_bad_path_names_read_mask(stub, org_id):
    await stub.AppendTurn(pb.AppendTurnRequest(session_id="s-1", turn=user_turn("secret")), metadata=tenant(org_id))
    for paths in (["summary"], ["recent_turns.*.id"], ["recent_turns"]):
        other = await stub.GetWorkingMemory(read("s-1", *paths), metadata=tenant(f"{org_id}-other"))
        assert other.working_memory == pb.WorkingMemory(session_id="s-1")
    for bad in ("recent_turns.content", "nope", "recent_turns.*.content"):
        error = await failure(stub.GetWorkingMemory(read("s-1", "summary", bad), metadata=tenant(org_id)))
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(error).metadata["field"] == "read_mask" and bad in error.details()


async def test_append_turn_returns_what_its_read_mask_names_and_everything_without_one(stub, org_id):
    full = await stub.AppendTurn(pb.AppendTurnRequest(session_id="s-1", turn=user_turn("one")), metadata=tenant(org_id))
    lean = await stub.AppendTurn(
        pb.AppendTurnRequest(
            session_id="s-1", turn=user_turn("two"), read_mask=field_mask_pb2.FieldMask(paths=["turn_count"])
        ),
        metadata=tenant(org_id),
    )
    bad = await failure(
        stub.AppendTurn(
            pb.AppendTurnRequest(
                session_id="s-1", turn=user_turn("three"), read_mask=field_mask_pb2.FieldMask(paths=["turns"])
            ),
            metadata=tenant(org_id),
        )
    )

    assert [t.content for t in full.working_memory.recent_turns] == ["one"]
    assert lean.working_memory == pb.WorkingMemory(session_id="s-1", turn_count=2)
    assert bad.code() is grpc.StatusCode.INVALID_ARGUMENT and error_info(bad).metadata["field"] == "read_mask"
    stored = (await stub.GetWorkingMemory(read("s-1"), metadata=tenant(org_id))).working_memory
    assert [t.content for t in stored.recent_turns] == ["one", "two"]  # the refused append wrote nothing


# --- AppendTurn with acquire_lease: the lease and the append in one call ---------------------------


def leased(session_id: str, content: str, holder: str, wait_ms: int = 0, **fields) -> pb.AppendTurnRequest:
    return pb.AppendTurnRequest(
        session_id=session_id,
        turn=user_turn(content, idempotency_key=f"turn:{holder}"),
        acquire_lease=pb.LeaseToAcquire(holder=holder, ttl_ms=5_000, wait_ms=wait_ms),
        read_mask=field_mask_pb2.FieldMask(paths=["turn_count", "recent_turns"]),
        **fields,
    )


async def test_append_turn_with_acquire_lease_returns_the_lease_and_fences_as_acquire_does(stub, org_id):
    took = await stub.AppendTurn(leased("s-l1", "first", "req-1"), metadata=tenant(org_id))
    lease = took.lease
    assert took.HasField("lease") and lease.holder == "req-1" and lease.session_id == "s-l1"
    assert lease.fencing_token > 0 and lease.HasField("expires_at")
    assert [turn.content for turn in took.working_memory.recent_turns] == ["first"]

    # A second holder waits, then is refused as AcquireSessionLease refuses it, and writes nothing.
    busy = await failure(stub.AppendTurn(leased("s-l1", "second", "req-2", wait_ms=50), metadata=tenant(org_id)))
    assert busy.code() is grpc.StatusCode.ABORTED and error_info(busy).reason == "SESSION_BUSY"
    also_busy = await failure(
        stub.AcquireSessionLease(
            pb.AcquireSessionLeaseRequest(session_id="s-l1", holder="req-3", wait_ms=0), metadata=tenant(org_id)
        )
    )
    assert error_info(also_busy).reason == "SESSION_BUSY"
    read = await stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id="s-l1"), metadata=tenant(org_id))
    assert [turn.content for turn in read.working_memory.recent_turns] == ["first"]
    assert read.working_memory.turn_count == 1

    # Released, the waiting holder's call lands; the first token is fenced out of later writes.
    waiting = asyncio.ensure_future(
        stub.AppendTurn(leased("s-l1", "second", "req-2", wait_ms=3_000), metadata=tenant(org_id))
    )
    await holds_for(lambda: not waiting.done(), 0.05, "req-2 waiting while req-1 holds the lease")
    released = await stub.ReleaseSessionLease(
        pb.ReleaseSessionLeaseRequest(session_id="s-l1", holder="req-1", fencing_token=lease.fencing_token),
        metadata=tenant(org_id),
    )
    assert released.released
    second = await waiting
    assert second.lease.fencing_token > lease.fencing_token
    assert [turn.content for turn in second.working_memory.recent_turns] == ["first", "second"]
    lost = await failure(
        stub.AppendTurn(
            pb.AppendTurnRequest(session_id="s-l1", turn=user_turn("late"), fencing_token=lease.fencing_token),
            metadata=tenant(org_id),
        )
    )
    assert lost.code() is grpc.StatusCode.ABORTED and error_info(lost).reason == "LEASE_LOST"


async def test_append_turn_without_acquire_lease_returns_no_lease(stub, org_id):
    plain = await stub.AppendTurn(
        pb.AppendTurnRequest(session_id="s-l2", turn=user_turn("hi")), metadata=tenant(org_id)
    )
    assert not plain.HasField("lease") and plain.working_memory.turn_count == 1


async def test_append_turn_with_acquire_lease_never_touches_another_orgs_session(stub, org_id):
    other = f"{org_id}-other"
    theirs = await stub.AppendTurn(leased("s-l3", "theirs", "req-1"), metadata=tenant(other))
    assert theirs.lease.fencing_token > 0

    # Same session id, holder and idempotency key in this org: not blocked by, and not touching, the other's.
    mine = await stub.AppendTurn(leased("s-l3", "mine", "req-1"), metadata=tenant(org_id))

    assert [turn.content for turn in mine.working_memory.recent_turns] == ["mine"]
    read = await stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id="s-l3"), metadata=tenant(other))
    assert [turn.content for turn in read.working_memory.recent_turns] == ["theirs"]
    # Each org's lease is its own: the other org's is still held (busy there) after this org took its own.
    busy = await failure(
        stub.AcquireSessionLease(
            pb.AcquireSessionLeaseRequest(session_id="s-l3", holder="req-2"), metadata=tenant(other)
        )
    )
    assert error_info(busy).reason == "SESSION_BUSY" and mine.lease.fencing_token > 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.acquire_lease.ClearField("holder"), "acquire_lease.holder"),
        (lambda r: setattr(r.acquire_lease, "holder", "h" * 129), "acquire_lease.holder"),
        (lambda r: setattr(r.acquire_lease, "ttl_ms", 1), "acquire_lease.ttl_ms"),
        (lambda r: setattr(r.acquire_lease, "wait_ms", -1), "acquire_lease.wait_ms"),
        (lambda r: setattr(r.acquire_lease, "wait_ms", 30_001), "acquire_lease.wait_ms"),
        (lambda r: setattr(r, "fencing_token", 7), "fencing_token"),
        (lambda r: r.turn.ClearField("content"), "turn.content"),
        (lambda r: r.ClearField("session_id"), "session_id"),
        (lambda r: r.read_mask.paths.append("nope"), "read_mask"),
    ],
)
async def test_bad_acquire_and_append_input_is_invalid_argument_naming_the_field_and_writes_nothing(
    stub, org_id, change, field
):
    request = leased("s-l4", "hello", "req-1")
    change(request)

    error = await failure(stub.AppendTurn(request, metadata=tenant(org_id)))

    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).metadata["field"] == field
    # Neither the turn nor the lease was taken: another holder gets the session at once.
    read = await stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id="s-l4"), metadata=tenant(org_id))
    assert read.working_memory.turn_count == 0
    free = await stub.AcquireSessionLease(
        pb.AcquireSessionLeaseRequest(session_id="s-l4", holder="req-9"), metadata=tenant(org_id)
    )
    await stub.ReleaseSessionLease(
        pb.ReleaseSessionLeaseRequest(session_id="s-l4", holder="req-9", fencing_token=free.lease.fencing_token),
        metadata=tenant(org_id),
    )
