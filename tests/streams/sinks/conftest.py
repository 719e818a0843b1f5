"""Fixtures for the sink tests: a migrated database from the shared harness, record factories,
and a pool on the throwaway PostgreSQL server of tests/streams/conftest.py (`throwaway_pg`, which
a test may stop and restart; the shared test server must never be stopped)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from schemas.records import (
    Cost,
    Finding,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    ReviewSummary,
    Severity,
    Span,
)
from streams.runtime.db import create_pool, migrate
from tests.helpers.postgres import ThrowawayPostgres

_DECISION_NS = uuid.UUID("5f1a4d6e-0d0c-4a57-9b59-4c1f8f0e2a11")


@pytest.fixture
async def sink_pool(pg_dsn: str) -> AsyncIterator[Any]:
    """A production pool (streams.runtime.db.create_pool: jsonb as Python objects) on the harness's
    fresh per-test database, with every migration applied."""
    pool = await create_pool(pg_dsn)
    try:
        await migrate(pool)
        yield pool
    finally:
        await pool.close()


@pytest.fixture
def make_decision() -> Callable[..., QADecision]:
    def make(draft_id: str = "d-1", version: int = 1, **changes: Any) -> QADecision:
        fields: dict[str, Any] = {
            "decision_id": str(uuid.uuid5(_DECISION_NS, f"{draft_id}\x1f{version}")),
            "draft_id": draft_id,
            "version": version,
            "approved": True,
            "final_score": 82.5,
            "summary": "approved 82.5/100",
            "feedback_text": f"APPROVED {draft_id} v{version}: score 82.5",
            "task_id": "task-1",
            "reviews": (
                ReviewSummary("validator", "programmatic", "ok", True, 94.0, "2 warnings"),
                ReviewSummary("critic", "ollama", "skipped", False, 0.0, "ollama unreachable"),
            ),
            "settings_version": "abc123",
            "decided_at": datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
        }
        fields.update(changes)
        return QADecision(**fields)

    return make


@pytest.fixture
def make_review() -> Callable[..., ReviewerResult]:
    def make(
        draft_id: str = "d-1", version: int = 1, reviewer: str = "validator", **changes: Any
    ) -> ReviewerResult:
        fields: dict[str, Any] = {
            "approved": False,
            "score": 61.0,
            "feedback": "needs sources",
            "provider": Provider.PROGRAMMATIC,
            "status": ReviewStatus.OK,
            "findings": (
                Finding(
                    "fabricated_statistic",
                    Severity.CRITICAL,
                    "unsourced statistic",
                    Span(10, 28, "a 47% increase"),
                ),
                Finding("filler_intro", Severity.WARNING, "filler intro"),
            ),
            "cost": Cost(
                tokens_in=120,
                tokens_out=40,
                usd=0.0012,
                kwh=0.0001,
                duration_ms=850,
                model="gemma3:27b",
            ),
            "draft_id": draft_id,
            "version": version,
            "produced_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        }
        fields.update(changes)
        return ReviewerResult(reviewer=reviewer, **fields)

    return make


@pytest.fixture
async def throwaway_pool(throwaway_pg: ThrowawayPostgres) -> AsyncIterator[Any]:
    pool = await create_pool(throwaway_pg.dsn, min_size=1, max_size=4)
    await migrate(pool)
    try:
        yield pool
    finally:
        pool.terminate()
