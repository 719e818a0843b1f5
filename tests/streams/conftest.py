"""Fixtures of the stream tests (helpers shared by the test modules are in stream_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.streams.stream_helpers import span_exporter


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Every span finished during the test."""
    exporter = span_exporter()
    exporter.clear()
    yield exporter
    exporter.clear()
