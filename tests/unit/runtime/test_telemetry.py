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
