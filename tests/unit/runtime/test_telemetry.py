"""lore_runtime.telemetry: the service's resource name, and the traceparent a queued job keeps to
link its own trace to the call that queued it."""

from lore_runtime.telemetry import current_traceparent, job_links, setup_telemetry
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def test_spans_carry_the_service_name_and_a_job_links_back_to_the_queuing_span():
    exporter = InMemorySpanExporter()
    provider = setup_telemetry("agent", exporter=exporter, set_global=False)
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("process turn") as turn:
        parent = current_traceparent()
    turn_context = turn.get_span_context()
    assert parent == f"00-{turn_context.trace_id:032x}-{turn_context.span_id:016x}-{turn_context.trace_flags:02x}"

    with tracer.start_as_current_span("job reflect", links=job_links(parent)) as job:
        pass
    [link] = job.links
    assert (link.context.trace_id, link.context.span_id) == (turn_context.trace_id, turn_context.span_id)
    assert job.get_span_context().trace_id != turn_context.trace_id
    assert {span.resource.attributes["service.name"] for span in exporter.get_finished_spans()} == {"lore-agent"}


def test_no_link_without_a_valid_traceparent():
    assert current_traceparent() == ""
    assert job_links("") == []
    assert job_links("00-not-a-trace-01") == []


def test_without_an_exporter_spans_are_not_recorded_but_still_carry_trace_ids():
    provider = setup_telemetry("memory", environ={}, set_global=False)
    tracer = provider.get_tracer("test")

    with tracer.start_as_current_span("recall") as span:
        traceparent = current_traceparent()

    assert not span.is_recording()
    assert span.get_span_context().is_valid and traceparent.startswith("00-")


def test_a_caller_that_exports_is_followed_and_a_configured_sampler_is_kept():
    exporter = InMemorySpanExporter()
    caller = setup_telemetry("gateway", exporter=exporter, set_global=False).get_tracer("test")
    callee = setup_telemetry("memory", environ={}, set_global=False).get_tracer("test")
    sampled = setup_telemetry("memory", environ={"OTEL_TRACES_SAMPLER": "always_on"}, set_global=False)

    with caller.start_as_current_span("POST /v1/memories:search"), callee.start_as_current_span("Recall") as child:
        assert child.is_recording(), "a sampled parent is followed"
    with sampled.get_tracer("test").start_as_current_span("recall") as span:
        assert span.is_recording()
