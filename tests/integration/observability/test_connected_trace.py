"""One REST call, one trace: ``POST /v1/sessions/{id}/turns`` goes gateway → agent → memory,
assembler → memory and observations, and into Postgres and Redis; every span of it shares one
trace id and hangs from the gateway's server span. The reflection the turn queues runs later in a
trace of its own, linked to the turn's."""

from __future__ import annotations

from opentelemetry.proto.trace.v1 import trace_pb2

from tests.integration.observability.conftest import ReceivedSpan, SpanSink, Stack
from tests.polling import eventually, settled

SERVICES = {"lore-gateway", "lore-agent", "lore-memory", "lore-assembler", "lore-observations"}
ASYNCPG = "opentelemetry.instrumentation.asyncpg"
REDIS = "opentelemetry.instrumentation.redis"
TURN_ROUTE = "POST /v1/sessions/{session_id}/turns"


def _turn_root(sink: SpanSink, session_id: str) -> ReceivedSpan | None:
    for span in sink.spans:
        target = str(span.attributes.get("url.path") or span.attributes.get("http.target") or "")
        if span.service == "lore-gateway" and span.name == TURN_ROUTE and session_id in target:
            return span
    return None


def _complete(spans: list[ReceivedSpan]) -> bool:
    """Every hop has reported and no span waits for its parent (processes flush independently)."""
    ids = {span.span_id for span in spans}
    return (
        {span.service for span in spans} >= SERVICES
        and {span.scope for span in spans} >= {ASYNCPG, REDIS}
        and all(span.parent_id in ids for span in spans if span.parent_id)
    )


async def test_one_turn_is_one_connected_trace_across_every_service_and_store(observed_stack: Stack):
    sink = observed_stack.sink
    async with observed_stack.client() as client:
        started = await client.post("/v1/sessions", json={"scope": {"userId": "u-trace"}})
        assert started.status_code == 200, started.text
        session_id = started.json()["session"]["id"]
        answer = await client.post(
            f"/v1/sessions/{session_id}/turns",
            json={
                "turn": {
                    "role": "TURN_ROLE_USER",
                    "content": "I prefer green tea in the morning.",
                    "idempotencyKey": "t-1",
                }
            },
        )
        assert answer.status_code == 200, answer.text

    root = await eventually(lambda: _turn_root(sink, session_id), what="the gateway never exported the turn's span")
    try:
        await eventually(lambda: _complete(sink.trace(root.trace_id)), timeout=30)
    except AssertionError:
        raise AssertionError(_describe(sink, root.trace_id)) from None
    # Stragglers of the same trace, had any hop exported late: none for a second.
    await settled(lambda: len(sink.trace(root.trace_id)), quiet=1.0, what="the trace's span count")
    spans = sink.trace(root.trace_id)

    roots = [span for span in spans if not span.parent_id]
    assert roots == [root], [f"{s.service}:{s.name}" for s in roots]
    assert root.kind == trace_pb2.Span.SPAN_KIND_SERVER
    ids = {span.span_id for span in spans}
    orphans = [f"{s.service}:{s.name}" for s in spans if s.parent_id and s.parent_id not in ids]
    assert orphans == []
    assert {span.service for span in spans} >= SERVICES
    # The hops are real calls: a client span in the caller, a server span in the callee, per RPC.
    server_spans = {(s.service, s.name) for s in spans if s.kind == trace_pb2.Span.SPAN_KIND_SERVER}
    assert ("lore-agent", "/lore.agent.v1.AgentService/ProcessTurn") in server_spans
    assert ("lore-assembler", "/lore.assembler.v1.AssemblerService/AssembleContext") in server_spans
    assert any(service == "lore-memory" for service, _ in server_spans)
    assert any(service == "lore-observations" for service, _ in server_spans)
    # The stores: the agent's transcript in Postgres, working memory in Redis (the memory service's).
    store_spans = {(s.service, s.scope) for s in spans if s.scope in (ASYNCPG, REDIS)}
    assert ("lore-agent", ASYNCPG) in store_spans
    assert ("lore-memory", REDIS) in store_spans
    # Statements are recorded, never their parameters: the turn's text appears in no span.
    assert not any("green tea" in str(value) for s in spans for value in s.attributes.values())


async def test_the_reflection_a_turn_queues_is_its_own_trace_linked_to_the_turn(observed_stack: Stack):
    sink = observed_stack.sink
    async with observed_stack.client() as client:
        session_id = (await client.post("/v1/sessions", json={"scope": {"userId": "u-job"}})).json()["session"]["id"]
        answer = await client.post(
            f"/v1/sessions/{session_id}/turns",
            json={"turn": {"role": "TURN_ROLE_USER", "content": "I work as a nurse in Lyon.", "idempotencyKey": "j-1"}},
        )
        assert answer.status_code == 200, answer.text
    turn = await eventually(lambda: _turn_root(sink, session_id), what="the gateway never exported the turn's span")

    def linked_job() -> ReceivedSpan | None:
        turn_spans = {span.span_id for span in sink.trace(turn.trace_id)}
        for span in sink.spans:
            if span.name == "job reflect" and any(t == turn.trace_id and s in turn_spans for t, s in span.links):
                return span
        return None

    job = await eventually(linked_job, timeout=60, what="no reflection job span linked to the turn's trace")
    assert job.service == "lore-agent"
    assert job.trace_id != turn.trace_id and not job.parent_id  # a trace of its own, rooted at the job
    assert job.kind == trace_pb2.Span.SPAN_KIND_CONSUMER

    # What the job does (its gRPC calls to the memory service) belongs to the job's trace, connected.
    def job_trace_connected() -> bool:
        spans = sink.trace(job.trace_id)
        ids = {span.span_id for span in spans}
        return any(s.service == "lore-memory" for s in spans) and all(s.parent_id in ids for s in spans if s.parent_id)

    try:
        await eventually(job_trace_connected, timeout=30)
    except AssertionError:
        raise AssertionError(_describe(sink, job.trace_id)) from None
    assert [span for span in sink.trace(job.trace_id) if not span.parent_id] == [job]


def _describe(sink: SpanSink, trace_id: str) -> str:
    spans = sink.trace(trace_id)
    ids = {span.span_id for span in spans}
    lines = [
        f"{s.service:18} {s.scope[-30:]:30} {s.name[:60]:60} {'ORPHAN' if s.parent_id not in {'', *ids} else ''}"
        for s in spans
    ]
    return "the trace is not complete and connected:\n" + "\n".join(lines)
