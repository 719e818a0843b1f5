"""run_reviewer: the one safety net every reviewer runs through, in-process and in the stream."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from agents.base import Deps, ReviewerSpec, run_reviewer
from agents.settings import Settings
from schemas import Cost, DraftSubmitted, Provider, ReviewerResult, ReviewStatus

DRAFT = DraftSubmitted("draft-7", 3, "Title", "Body text.")
FIXED = datetime(2026, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)


def _spec(review, *, enabled: bool = True) -> ReviewerSpec:
    return ReviewerSpec("fake", Provider.UNKNOWN, review, lambda s: enabled)


async def _good(draft, settings, deps) -> ReviewerResult:
    return ReviewerResult("whatever", True, 88.0, "fine", Provider.UNKNOWN)


async def test_result_is_stamped_with_draft_settings_and_clock() -> None:
    settings = Settings().with_overrides(qa_gate_weight=0.5)
    result = await run_reviewer(_spec(_good), DRAFT, settings, Deps(now=lambda: FIXED))
    assert (result.reviewer, result.draft_id, result.version) == ("fake", "draft-7", 3)
    assert result.settings_version == settings.version() != Settings().version()
    assert result.produced_at == FIXED
    assert (result.status, result.score) == (ReviewStatus.OK, 88.0)


async def test_disabled_reviewer_is_skipped_without_running() -> None:
    calls: list[str] = []

    async def review(draft, settings, deps):
        calls.append("ran")
        return await _good(draft, settings, deps)

    result = await run_reviewer(_spec(review, enabled=False), DRAFT, Settings(), Deps())
    assert calls == []
    assert result.status == ReviewStatus.SKIPPED
    assert "disabled" in result.feedback


async def test_unexpected_exception_becomes_error_with_reason() -> None:
    async def review(draft, settings, deps):
        raise ZeroDivisionError("division by zero in rule 12")

    result = await run_reviewer(_spec(review), DRAFT, Settings(), Deps())
    assert result.status == ReviewStatus.ERROR
    assert result.feedback.startswith("ZeroDivisionError: division by zero in rule 12")
    assert result.approved is False and result.draft_id == "draft-7"


async def test_cancellation_is_not_swallowed() -> None:
    async def review(draft, settings, deps):
        await asyncio.sleep(3600)

    task = asyncio.ensure_future(run_reviewer(_spec(review), DRAFT, Settings(), Deps()))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_duration_measured_only_when_the_reviewer_did_not() -> None:
    async def slow(draft, settings, deps):
        await asyncio.sleep(0.02)
        return await _good(draft, settings, deps)

    async def self_timed(draft, settings, deps):
        return ReviewerResult("x", True, 1.0, "", Provider.UNKNOWN, cost=Cost(duration_ms=12345))

    measured = await run_reviewer(_spec(slow), DRAFT, Settings(), Deps())
    kept = await run_reviewer(_spec(self_timed), DRAFT, Settings(), Deps())
    assert measured.cost.duration_ms >= 20
    assert kept.cost.duration_ms == 12345


async def test_audit_failure_never_fails_the_review(caplog: pytest.LogCaptureFixture) -> None:
    async def broken_audit(event_type, payload):
        raise ConnectionError("database down")

    await Deps(audit=broken_audit).record_audit("critic_fallback", {"primary": "a"})
    assert "critic_fallback" in caplog.text
