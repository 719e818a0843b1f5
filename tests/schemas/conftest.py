"""Fixtures for the event-contract tests: typical records as reviewers and the writer send them."""

from __future__ import annotations

import pytest
from event_strategies import AT

from schemas import Cost, DraftSubmitted, Finding, Provider, ReviewerResult, Severity, Span

# --- plain examples ---------------------------------------------------------------------------


@pytest.fixture
def result() -> ReviewerResult:
    """A typical ReviewerResult, as the critic would publish it."""
    return ReviewerResult(
        "critic",
        True,
        82.5,
        "Solid structure; one statistic needs a source.",
        Provider.OLLAMA,
        findings=(
            Finding(
                "unsourced_statistic",
                Severity.WARNING,
                "'73% of developers' has no source.",
                Span(120, 138, "73% of developers"),
            ),
        ),
        cost=Cost(tokens_in=1850, tokens_out=240, kwh=0.0021, duration_ms=8400, model="gemma3"),
        draft_id="draft-42",
        version=3,
        produced_at=AT,
        settings_version="s-5f1c",
    )


@pytest.fixture
def draft() -> DraftSubmitted:
    return DraftSubmitted(
        "draft-42",
        3,
        "Choosing a NAS in 2026",
        "# Choosing a NAS\n\nA NAS is ...",
        task_id="task-9",
        topic="home NAS buying guide",
        research_sources=("https://example.com/nas",),
        site_domain="example.org",
        submitted_at=AT,
    )
