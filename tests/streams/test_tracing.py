import pytest
from opentelemetry import trace

from schemas import DraftSubmitted
from streams.runtime import tracing


def test_submission_headers_carry_the_submission_span(spans):
    draft = DraftSubmitted("d-1", 2, "Title", "Body")
    with tracing.submission_span(draft) as headers:
        current = trace.get_current_span().get_span_context()
    (name, value), *_ = headers
    assert name == "traceparent"
    assert value.decode().startswith(f"00-{current.trace_id:032x}-{current.span_id:016x}-")
    (span,) = spans.get_finished_spans()
    assert span.name == "multiqa.submit"
    assert span.attributes["multiqa.draft_id"] == "d-1"
    assert span.attributes["multiqa.version"] == 2


def test_context_round_trips_through_headers_as_dict_or_pairs(spans):
    with tracing.tracer().start_as_current_span("parent"):
        headers = tracing.inject()
        expected = tracing.current_traceparent()
    assert expected is not None
    assert tracing.traceparent_of(headers) == expected
    assert tracing.traceparent_of(dict(headers)) == expected
    assert tracing.traceparent_of([(b"traceparent", expected.encode())]) == expected


def test_child_of_extracted_context_and_link_from_stored_traceparent(spans):
    with tracing.tracer().start_as_current_span("submit"):
        draft_headers = tracing.inject()
    with tracing.tracer().start_as_current_span("review", context=tracing.extract(draft_headers)):
        review_tp = tracing.current_traceparent()
    link = tracing.link_from_traceparent(review_tp)
    assert link is not None
    submit, review = spans.get_finished_spans()
    assert review.parent.span_id == submit.context.span_id
    assert link.context.span_id == review.context.span_id


def test_missing_or_malformed_traceparent_starts_a_new_trace(spans):
    for headers in (None, [], {"traceparent": b"garbage"}, [("traceparent", b"00-zz-zz-01")]):
        assert tracing.traceparent_of(headers) is None
        with tracing.tracer().start_as_current_span("x", context=tracing.extract(headers)) as s:
            assert s.get_span_context().is_valid
    assert tracing.link_from_traceparent(None) is None
    assert tracing.link_from_traceparent("nonsense") is None


VALID = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
CARRIERS = [
    [],
    [("traceparent", VALID.encode())],
    [(b"traceparent", VALID.encode()), ("tracestate", b"vendor=1,other=two")],
    {"traceparent": VALID.encode(), "x-other": b"kept out"},
    [("traceparent", b"00-00000000000000000000000000000000-b7ad6b7169203331-01")],  # zero id
    [("traceparent", b"")],
    [("traceparent", b"   ")],
    [("traceparent", b"\x00" * 55)],
    [("traceparent", bytes(range(256)))],
    [("traceparent", b"0" * (2 * 1024 * 1024))],
    [("traceparent", "\ud800".encode("utf-8", "surrogatepass"))],
    [("traceparent", b"[" * 10_000 + b"]" * 10_000)],
    [("tracestate", b"vendor=1")],  # a state without a parent
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("headers", CARRIERS, ids=range(len(CARRIERS)))
def test_passed_on_is_what_a_non_recording_child_span_injects(headers):
    # What the reviewers and the decision publish when no SDK records spans (tracing.recording):
    # the API's no-op tracer makes the child span, and it injects its parent's context.
    with trace.NoOpTracer().start_as_current_span("child", context=tracing.extract(headers)):
        injected = tracing.inject()
    assert tracing.passed_on(headers) == injected
    assert tracing.passed_on(headers) == injected  # remembered: the same again
    span_context = trace.get_current_span(tracing.extract(headers)).get_span_context()
    assert tracing.traceparent_of(headers) == tracing.current_traceparent_for(span_context)
