"""Fixtures of the stream tests (helpers shared by the test modules are in stream_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.helpers.postgres import ThrowawayPostgres, Unavailable, throwaway_postgres
from tests.streams.stream_helpers import span_exporter


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Every span finished during the test."""
    exporter = span_exporter()
    exporter.clear()
    yield exporter
    exporter.clear()


@pytest.fixture
def throwaway_pg() -> Iterator[ThrowawayPostgres]:
    """A started PostgreSQL server of this test's own, which it may stop and start at will
    (tests.helpers.postgres); skipped where the server programs are not installed."""
    try:
        with throwaway_postgres() as server:
            yield server
    except Unavailable as exc:
        pytest.skip(f"no PostgreSQL server of our own here: {exc}")
