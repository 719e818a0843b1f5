"""MultiModelQA: the in-process review, with the real validator and the one aggregation.

Other reviewers are stand-in ReviewerSpecs (the documented `reviewers=` seam) so each test
controls exactly what they answer and when; the real LLM/network reviewers have their own tests.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

import pytest

from agents import MultiModelQA, format_qa_feedback_from_reviews
from agents.base import Deps, ReviewerSpec
from agents.reviewers.validator import SPECS as VALIDATOR_SPECS
from agents.settings import Settings
from schemas.records import DraftSubmitted, Provider, ReviewerResult, ReviewStatus
from streams.runtime.db import migrate

CLEAN = (
    "# Picking a laptop\n\nA laptop for programming needs memory, a good keyboard and a screen "
    "that is easy on the eyes.\n\n## Memory\n\nSixteen gigabytes is comfortable for most work.\n"
)


class Settled:
    """A settings source returning fixed settings."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def get(self) -> Settings:
        return self.settings


def spec(
    name: str,
    score: float,
    *,
    paid: bool = False,
    delay: float = 0.0,
    approved: bool = True,
    status: ReviewStatus = ReviewStatus.OK,
    calls: list[str] | None = None,
    cancelled: list[str] | None = None,
) -> ReviewerSpec:
    async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
        if calls is not None:
            calls.append(name)
        try:
            await asyncio.sleep(delay)
        except asyncio.CancelledError:
            if cancelled is not None:
                cancelled.append(name)
            raise
        return ReviewerResult(
            name, approved, score, f"{name} says {score}", Provider.OLLAMA, status=status
        )

    return ReviewerSpec(name, Provider.OLLAMA, review, enabled=lambda s: True, paid=paid)


# The stand-ins are the only reviewers, so by default none of the others is required (urls is).
FREE = Settings(qa_required_to_pass="")


def qa(*specs: ReviewerSpec, settings: Settings | None = None) -> MultiModelQA:
    return MultiModelQA(None, Settled(settings or FREE), reviewers=[*VALIDATOR_SPECS, *specs])


async def test_clean_draft_is_approved_with_weighted_score() -> None:
    result = await qa(spec("critic", 80), spec("urls", 100)).review("Picking a laptop", CLEAN)
    assert result.approved
    assert result.final_score == pytest.approx((40 + 48 + 30) / 1.3)
    assert [r.reviewer for r in result.reviews] == ["validator", "critic", "urls"]
    assert all(r.draft_id == result.decision.draft_id for r in result.reviews)
    assert result.summary == result.decision.summary and result.summary.startswith("APPROVED")
    assert not result.critic_skipped and result.vetoes == ()


async def test_validator_critical_short_circuits_no_paid_reviewer_runs_free_ones_finish() -> None:
    # The stream decides the same way (agents.aggregate.early_evidence): an early decision waits
    # for the free reviewers, and no paid one is started once it is certain.
    calls: list[str] = []
    critic = spec("critic", 100, paid=True, calls=calls)
    result = await qa(critic, spec("urls", 100, calls=calls)).review(
        "T", CLEAN + "\n[IMAGE-1: a laptop]\n"
    )
    assert calls == ["urls"]
    assert not result.approved and result.decision.short_circuited
    assert result.decision.missing_reviewers == ("critic",)
    assert [r.reviewer for r in result.reviews] == ["validator", "urls"]


async def test_paid_reviewers_are_cancelled_once_the_outcome_is_settled() -> None:
    cancelled: list[str] = []
    # A dead-link veto from urls settles the outcome while the paid vision gate still runs.
    result = await qa(
        spec("critic", 90),
        spec("urls", 0, approved=False),
        spec("vision", 100, paid=True, delay=30, cancelled=cancelled),
    ).review("T", CLEAN)
    assert cancelled == ["vision"]
    assert not result.approved
    assert result.decision.early_decided
    assert result.decision.missing_reviewers == ("vision",)
    assert any(v.startswith("urls:") for v in result.vetoes)


async def test_unpaid_reviewers_finish_even_when_settled() -> None:
    result = await qa(
        spec("critic", 90),
        spec("urls", 0, approved=False),
        spec("citations", 100, delay=0.05),
    ).review("T", CLEAN)
    assert "citations" in [r.reviewer for r in result.reviews]
    assert not result.decision.early_decided


async def test_deadline_cancels_what_is_still_running() -> None:
    cancelled: list[str] = []
    settings = FREE.with_overrides(qa_aggregate_timeout_seconds=0.2)
    result = await qa(
        spec("critic", 90), spec("citations", 100, delay=30, cancelled=cancelled), settings=settings
    ).review("T", CLEAN)
    assert cancelled == ["citations"]
    assert result.decision.timed_out
    assert result.decision.missing_reviewers == ("citations",)
    assert result.approved  # decided with what arrived ...
    assert result.needs_human_review  # ... and a human is told what is missing
    assert "citations did not answer" in result.summary


async def test_a_required_reviewer_that_times_out_blocks_approval() -> None:
    settings = FREE.with_overrides(qa_aggregate_timeout_seconds=0.2, qa_required_to_pass="urls")
    result = await qa(spec("critic", 90), spec("urls", 100, delay=30), settings=settings).review(
        "T", CLEAN
    )
    assert result.decision.timed_out and not result.approved and result.needs_human_review
    assert result.vetoes == ("required reviewer urls did not answer (timed out)",)


async def test_critic_skipped_means_validator_only() -> None:
    result = await qa(spec("critic", 0, status=ReviewStatus.SKIPPED)).review("T", CLEAN)
    assert result.critic_skipped and result.final_score == 100.0 and result.approved


async def test_feedback_text_matches_serialized_reviews() -> None:
    result = await qa(spec("critic", 40), spec("urls", 0, approved=False)).review(
        "T", CLEAN + "\nIn today's fast-paced world, buy one.\n"
    )
    dicts = [dataclasses.asdict(r) for r in result.reviews]
    for max_chars in (4000, 300, 120):
        text = result.format_feedback_text(max_chars)
        assert len(text) <= max_chars
        assert text == format_qa_feedback_from_reviews(
            dicts, result.final_score, result.approved, max_chars, vetoes=result.vetoes
        )
    assert result.format_feedback_text() == result.decision.feedback_text
    assert result.decision.feedback_text.startswith("QA REJECTED")


async def test_same_text_gets_the_same_decision_id() -> None:
    a = await qa(spec("critic", 90)).review("T", CLEAN)
    b = await qa(spec("critic", 90)).review("T", CLEAN)
    c = await qa(spec("critic", 90)).review("T2", CLEAN)
    assert a.decision.decision_id == b.decision.decision_id != c.decision.decision_id
    named = await qa(spec("critic", 90)).review("T", CLEAN, draft_id="task-7", version=2)
    assert named.decision.draft_id == "task-7" and named.decision.version == 2


async def test_disabled_reviewers_are_absent() -> None:
    off = ReviewerSpec(
        "vision", Provider.VISION_GATE, spec("vision", 0).review, enabled=lambda s: False
    )
    result = await qa(spec("critic", 90), off).review("T", CLEAN)
    assert [r.reviewer for r in result.reviews] == ["validator", "critic"]
    assert result.decision.missing_reviewers == ()


async def test_with_database_settings_and_fact_overrides(pg_pool: Any) -> None:
    await migrate(pg_pool)
    await pg_pool.execute(
        "INSERT INTO fact_overrides (pattern, correction) VALUES ($1, $2)",
        r"sixteen gigabytes is comfortable",
        "Most IDEs want 32 GB now.",
    )
    await pg_pool.execute(
        "INSERT INTO app_settings (key, value) VALUES ('qa_critic_weight', '0.1')"
    )
    result = await MultiModelQA(pg_pool, reviewers=[*VALIDATOR_SPECS, spec("critic", 100)]).review(
        "T", CLEAN
    )
    validator = result.reviews[0]
    assert [f.code for f in validator.findings] == ["known_wrong_fact"]
    assert not result.approved and not result.decision.short_circuited
    assert any("known wrong fact" in v for v in result.vetoes)
    # (90 x 0.4 + 100 x 0.1) / 0.5 with the weight from app_settings
    assert result.final_score == pytest.approx(92.0)
    assert result.decision.settings_version == Settings(qa_critic_weight=0.1).version()


async def test_registry_reviewers_run_without_external_services() -> None:
    """The default registry: whatever reviewers are built run; the unreachable ones skip."""
    settings = FREE.with_overrides(
        ollama_base_url="http://127.0.0.1:9",
        ollama_health_timeout_seconds=0.5,
        qa_web_factcheck_enabled=False,
        qa_citation_verify_enabled=False,
        qa_url_verify_enabled=False,
    )
    result = await MultiModelQA(None, Settled(settings)).review("T", CLEAN)
    assert result.reviews[0].reviewer == "validator"
    assert all(r.status != ReviewStatus.OK for r in result.reviews[1:])
    assert result.critic_skipped and result.approved and result.final_score == 100.0
    # The same with urls required (the default) but switched off: never approved, even though
    # the decision is made early (nothing can approve it, so the LLM reviewers are cancelled).
    required_but_off = settings.with_overrides(qa_required_to_pass="urls")
    result = await MultiModelQA(None, Settled(required_but_off)).review("T", CLEAN)
    assert not result.approved and result.needs_human_review
    assert "required reviewer urls did not answer (is not enabled or not deployed)" in result.vetoes


_JUNK = random.Random(7).randbytes(50_000)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("content", "code", "approved"),
    [
        pytest.param("", "empty_content", False, id="empty"),
        pytest.param("A sentence about laptops. " * 200_000, "oversized_content", False, id="5MB"),
        pytest.param(_JUNK.decode("latin-1"), "binary_content", False, id="binary-junk"),
        pytest.param(
            "<html><body>" + "<p>A paragraph about laptops.</p>" * 20 + "</body></html>",
            "html_markup",
            True,  # a warning, not a reason to reject on its own
            id="html",
        ),
        pytest.param("Intro.\n\n~~~\nunclosed block\n", "unclosed_code_fence", False, id="fence"),
    ],
)
async def test_bad_input_through_the_public_api_is_a_decision(
    content: str, code: str, approved: bool
) -> None:
    """The issue's bad inputs through MultiModelQA.review (the real validator, the one
    aggregation, the feedback text): a decision naming the finding, never an exception."""
    critic_calls: list[str] = []
    result = await qa(spec("critic", 90, paid=True, calls=critic_calls)).review("Laptops", content)
    validator = result.reviews[0]
    assert validator.reviewer == "validator" and validator.status is ReviewStatus.OK
    assert code in {f.code for f in validator.findings}
    assert result.approved is approved
    assert critic_calls == ([] if not approved else ["critic"])  # criticals short-circuit
    text = result.format_feedback_text(max_chars=1000)
    assert text.startswith("QA APPROVED" if approved else "QA REJECTED") and len(text) <= 1000
    assert code in text or approved
