"""Trace context across the fan-out, carried in Kafka headers as W3C `traceparent`.

    multiqa.submit            (the writer, or `multiqa submit`)   -> qa.drafts headers
      ├── multiqa.review <r>  (child, one per reviewer)           -> qa.reviews headers
      └── multiqa.decide      (child of the submission,           -> qa.decisions headers
                               LINKED to every reviewer span it used)

The decision span cannot be the child of several reviewer spans, so it links them (OpenTelemetry
links are for exactly this fan-in). The aggregator keeps each reviewer's traceparent in its table
entry, so the links survive a restart.

Only the OpenTelemetry API is used on the hot path: with no SDK configured every span is a no-op.
`configure()` installs an SDK provider (an OTLP exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set,
or any exporter passed in, e.g. the in-memory one in tests).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, SpanContext, SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from schemas.records import DraftSubmitted

log = logging.getLogger(__name__)

TRACER_NAME = "multiqa.streams"
TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"

# Faust hands headers over with str or bytes keys (_as_text_carrier reads both).
HeadersArg = Mapping[str, bytes] | Sequence[tuple[str | bytes, bytes]] | None
KafkaHeaders = list[tuple[str, bytes]]

_PROPAGATOR = TraceContextTextMapPropagator()


def tracer() -> trace.Tracer:
    return trace.get_tracer(TRACER_NAME)


def recording() -> bool:
    """True once a tracer provider that records spans is installed (`configure`, or the
    OTEL_PYTHON_TRACER_PROVIDER environment variable). Without one, every span of the API is a
    non-recording span carrying its parent's context, so a hot path may skip making the span and
    pass its parent's trace headers on itself (`passed_on`): ~45 us per span and event with the
    API's no-op tracer, seven reviewer spans and a decision span per draft."""
    return not isinstance(trace.get_tracer_provider(), _NOT_RECORDING)


_NOT_RECORDING = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)


def _as_text_carrier(headers: HeadersArg) -> dict[str, str]:
    if not headers:
        return {}
    items: Iterable[tuple[str | bytes, Any]] = (
        headers.items() if isinstance(headers, Mapping) else headers
    )
    carrier: dict[str, str] = {}
    for key, value in items:
        name = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if name.lower() not in (TRACEPARENT, TRACESTATE) or value is None:
            continue
        carrier[name.lower()] = (
            value.decode("latin-1") if isinstance(value, bytes | bytearray) else str(value)
        )
    return carrier


def extract(headers: HeadersArg) -> otel_context.Context:
    """The trace context carried by Kafka headers (an empty context when absent or malformed:
    a bad traceparent starts a new trace, it never fails the event)."""
    return _PROPAGATOR.extract(_as_text_carrier(headers))


def inject(ctx: otel_context.Context | None = None) -> KafkaHeaders:
    """Kafka headers carrying `ctx` (default: the current span)."""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=ctx)
    return [(k, v.encode("latin-1")) for k, v in carrier.items()]


def traceparent_of(headers: HeadersArg) -> str | None:
    """The traceparent header as text, if present and valid."""
    traceparent: str | None = _by_carrier(headers, _TRACEPARENTS, _traceparent_of)
    return traceparent


def passed_on(headers: HeadersArg) -> KafkaHeaders:
    """The headers a non-recording child span of the trace in `headers` injects (see
    `recording`): its trace context as carried, when valid."""
    return list(_by_carrier(headers, _PASSED_ON, _passed_on))


def _traceparent_of(carrier: dict[str, str]) -> str | None:
    span_context = trace.get_current_span(_PROPAGATOR.extract(carrier)).get_span_context()
    return current_traceparent_for(span_context)


def _passed_on(carrier: dict[str, str]) -> tuple[tuple[str, bytes], ...]:
    return tuple(inject(_PROPAGATOR.extract(carrier)))


# Every reviewer of a draft passes the same trace context on, and the aggregator reads it back
# from each of their results: what a carrier gives is remembered (a pure function of the carrier).
_TRACEPARENTS: dict[tuple[tuple[str, str], ...], Any] = {}
_PASSED_ON: dict[tuple[tuple[str, str], ...], Any] = {}
_REMEMBERED = 4096


def _by_carrier(headers: HeadersArg, memo: dict[tuple[tuple[str, str], ...], Any], of: Any) -> Any:
    carrier = _as_text_carrier(headers)
    key = tuple(sorted(carrier.items()))
    try:
        return memo[key]
    except KeyError:
        pass
    value = of(carrier)
    if len(memo) >= _REMEMBERED:
        memo.clear()  # traces live seconds: no LRU needed
    memo[key] = value
    return value


def current_traceparent() -> str | None:
    """The current span's traceparent, or None when no span is recording/valid."""
    return current_traceparent_for(trace.get_current_span().get_span_context())


def current_traceparent_for(span_context: SpanContext) -> str | None:
    if not span_context.is_valid:
        return None
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(
        carrier, context=trace.set_span_in_context(trace.NonRecordingSpan(span_context))
    )
    return carrier.get(TRACEPARENT)


def context_from_traceparent(traceparent: str | None) -> otel_context.Context:
    return _PROPAGATOR.extract({TRACEPARENT: traceparent} if traceparent else {})


def link_from_traceparent(traceparent: str | None) -> Link | None:
    span_context = trace.get_current_span(context_from_traceparent(traceparent)).get_span_context()
    return Link(span_context) if span_context.is_valid else None


def draft_attributes(draft_id: str, version: int) -> dict[str, Any]:
    return {"multiqa.draft_id": draft_id, "multiqa.version": version}


@contextmanager
def submission_span(draft: DraftSubmitted) -> Iterator[KafkaHeaders]:
    """Open the root span of a draft's review; yields the headers to publish the draft with."""
    with tracer().start_as_current_span(
        "multiqa.submit",
        kind=SpanKind.PRODUCER,
        attributes=draft_attributes(draft.draft_id, draft.version),
    ):
        yield inject()


def configure(service_name: str = "multiqa", exporter: Any = None) -> bool:
    """Install an SDK tracer provider once per process. Returns True when spans are exported.

    `exporter`: any SpanExporter (spans are exported as they end). Without one, an OTLP exporter
    is used when OTEL_EXPORTER_OTLP_ENDPOINT is set and `opentelemetry-exporter-otlp` is installed;
    otherwise tracing stays a no-op.
    """
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    processor: Any
    if exporter is not None:
        processor = SimpleSpanProcessor(exporter)
    elif os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            log.warning(
                "OTEL_EXPORTER_OTLP_ENDPOINT is set but opentelemetry-exporter-otlp "
                "is not installed (pip install 'multiqa[otlp]'); tracing is off"
            )
            return False
        processor = BatchSpanProcessor(OTLPSpanExporter())
    else:
        return False
    provider = trace.get_tracer_provider()
    if not hasattr(provider, "add_span_processor"):
        # OTEL_SERVICE_NAME (read by Resource.create) wins over the default name.
        named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": service_name}
        provider = TracerProvider(resource=Resource.create(named))
        trace.set_tracer_provider(provider)
    provider.add_span_processor(processor)
    return True


def trace_id_of(traceparent: str | None) -> str:
    """The 32-hex trace id of a traceparent ("" when absent or malformed)."""
    parts = (traceparent or "").split("-")
    if len(parts) >= 4 and len(parts[1]) == 32 and parts[1] != "0" * 32:
        return parts[1]
    return ""


@contextmanager
def dead_letter_span(headers: HeadersArg, dead: Any) -> Iterator[None]:
    """`multiqa.dead_letter`, a child of the parked event's trace (when it carried one)."""
    with tracer().start_as_current_span(
        "multiqa.dead_letter",
        context=extract(headers),
        kind=SpanKind.PRODUCER,
        attributes={
            "multiqa.source_topic": dead.source_topic,
            "multiqa.source_partition": dead.source_partition,
            "multiqa.source_offset": dead.source_offset,
            "multiqa.consumer": dead.consumer,
            "multiqa.error_type": dead.error_type,
        },
    ) as span:
        span.set_status(trace.StatusCode.ERROR, dead.error_type)
        yield


@contextmanager
def child_spans(
    name: str, headers: Sequence[HeadersArg], attributes: Mapping[str, Any] | None = None
) -> Iterator[list[trace.Span]]:
    """One span per event, each a child of its event's trace, all covering the block: a batch
    written once (a sink's transaction) appears in the trace of every draft it carried."""
    attrs = dict(attributes or {})
    spans = [
        tracer().start_span(name, context=extract(h), kind=SpanKind.CLIENT, attributes=attrs)
        for h in headers
    ]
    try:
        yield spans
    except BaseException as exc:
        for span in spans:
            span.record_exception(exc)
            span.set_status(trace.StatusCode.ERROR, type(exc).__name__)
        raise
    finally:
        for span in spans:
            span.end()
