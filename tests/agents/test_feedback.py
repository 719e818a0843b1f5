"""Feedback text: decision first, reviewers in canonical order, findings by importance, clean
truncation, and the same text from records or from their serialized dicts."""

from __future__ import annotations

import dataclasses

import pytest

from agents.feedback import format_feedback_text, format_qa_feedback_from_reviews
from schemas.records import Finding, Provider, ReviewerResult, ReviewStatus, Severity, Span

REVIEWS = [
    ReviewerResult("urls", False, 60, "1 dead link", Provider.URL_VERIFIER, veto="dead link x"),
    ReviewerResult(
        "validator",
        False,
        77,
        "1 critical, 1 warning",
        Provider.PROGRAMMATIC,
        findings=(
            Finding("filler_phrase", Severity.WARNING, "filler", Span(5, 10, "today")),
            Finding("placeholder", Severity.CRITICAL, "leftover", Span(50, 60, "[IMAGE-1]")),
        ),
    ),
    ReviewerResult("critic", True, 81, "Solid draft.\nMinor issues.", Provider.OLLAMA),
    ReviewerResult(
        "vision",
        False,
        0,
        "vision skipped: disabled",
        Provider.VISION_GATE,
        status=ReviewStatus.SKIPPED,
    ),
]


def test_layout() -> None:
    text = format_feedback_text(REVIEWS, 65.5, False, vetoes=["urls: dead link x"])
    lines = text.splitlines()
    assert lines[0] == "QA REJECTED: final score 65.5/100"
    assert lines[1:3] == ["Blocked by:", "- urls: dead link x"]
    order = [line.split(" ")[0] for line in lines[3:] if not line.startswith("  ")]
    assert order == ["validator", "critic", "urls", "vision"]
    validator_at = lines.index(next(line for line in lines if line.startswith("validator")))
    # critical before warning, whatever their positions
    assert lines[validator_at + 1].startswith("  - CRITICAL placeholder")
    assert lines[validator_at + 2].startswith("  - WARNING filler_phrase")
    assert "critic [ollama] 81/100, approved: Solid draft. Minor issues." in lines
    assert "vision [vision_gate] skipped: vision skipped: disabled" in lines
    assert any("veto: dead link x" in line for line in lines)


def test_records_and_dicts_give_the_same_text() -> None:
    dicts = [dataclasses.asdict(r) for r in REVIEWS]
    for max_chars in (4000, 500, 200, 60):
        assert format_qa_feedback_from_reviews(REVIEWS, 65.5, False, max_chars) == (
            format_qa_feedback_from_reviews(dicts, 65.5, False, max_chars)
        )


@pytest.mark.parametrize("max_chars", [4000, 400, 250, 150, 80, 40, 10, 1])
def test_truncation_is_clean(max_chars: int) -> None:
    many = [
        ReviewerResult(
            "validator",
            False,
            0,
            "x" * 500,
            Provider.PROGRAMMATIC,
            findings=tuple(
                Finding(f"code{i}", Severity.WARNING, "m" * 150, Span(i, i + 1, "y"))
                for i in range(30)
            ),
        ),
        ReviewerResult("critic", True, 90, "z" * 3000, Provider.OLLAMA),
    ]
    text = format_feedback_text(many, 40, False, max_chars)
    assert len(text) <= max_chars
    assert text.startswith("QA REJECTED"[:max_chars])
    if max_chars >= 150:
        # fewer findings before dropping reviewers: every reviewer's score line survives
        assert "validator [programmatic] 0/100" in text and "critic [ollama] 90/100" in text


def test_odd_dicts_do_not_raise() -> None:
    text = format_qa_feedback_from_reviews(
        [{}, {"reviewer": "x", "score": None, "findings": [None, {"span": "bad"}]}], 0, False
    )
    assert text.startswith("QA REJECTED")


def test_approved_with_no_reviews() -> None:
    assert format_feedback_text([], 100, True) == "QA APPROVED: final score 100.0/100"
    assert format_feedback_text([], 100, True, 0) == ""
