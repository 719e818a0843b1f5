"""Fixtures of the stream tests: an in-memory span exporter (one tracer provider per process)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from streams import tracing

_EXPORTER = InMemorySpanExporter()
_CONFIGURED: list[bool] = []


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Every span finished during the test (OpenTelemetry allows one provider per process)."""
    if not _CONFIGURED:
        assert tracing.configure("multiqa-tests", exporter=_EXPORTER)
        _CONFIGURED.append(True)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()
