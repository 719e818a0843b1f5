"""What the seed's upstream aggregation tests (Glad-Labs/poindexter test_multi_model_qa.py:
TestValidatorPasses, TestValidatorFails, TestCriticSkippedFinalScore, TestWarningQAPenalty,
TestOllamaDown) check about the validator, ported in multiqa's words and run through the
in-process review with the real validator and a stand-in critic. Assertions are about outcomes
(rejected, who ran, which score is higher), not the exact mean, which issue 12 owns."""

from __future__ import annotations

from agents import MultiModelQA
from agents.base import Deps, ReviewerSpec
from agents.reviewers.validator import SPECS as VALIDATOR_SPECS
from agents.settings import Settings
from schemas.records import DraftSubmitted, Provider, ReviewerResult

CLEAN = (
    "# Deploying FastAPI on Fly.io\n\nFly.io makes it easy to deploy Python web applications. "
    "This guide walks through getting a FastAPI project running with zero-downtime deploys.\n"
)
FABRICATED = (
    "According to a 2024 study by McKinsey, adoption is growing. "
    '"This is amazing," said Sarah Johnson, CEO of Glad Labs.\n'
)
# Nine warnings of three codes (three each: none promoted past the threshold of three).
# Two kinds of warning that never pool: three generic headers, three unlinked citations.
SIX_WARNINGS = (
    CLEAN + "\n## Conclusion\n\nText.\n\n## Summary\n\nText.\n\n## Introduction\n\nText. "
    "According to Gartner, it grows. According to Forrester, it grows. "
    "According to IDC, it grows.\n"
)
NINE_WARNINGS = (
    CLEAN
    + "\nLet's dive in. Let's dive in. Let's dive in.\n\n## Conclusion\n\nText.\n\n## Summary\n\n"
    "Text.\n\n## Introduction\n\nText. According to Gartner, it grows. According to Forrester, "
    "it grows. According to IDC, it grows.\n"
)


class Fixed:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def get(self) -> Settings:
        return self.settings


def critic(score: float | None, calls: list[str]) -> ReviewerSpec:
    async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
        calls.append("critic")
        if score is None:
            from agents.base import skipped

            return skipped("critic", Provider.OLLAMA, "model unreachable")
        return ReviewerResult("critic", score >= 70, score, "ok", Provider.OLLAMA)

    return ReviewerSpec("critic", Provider.OLLAMA, review, enabled=lambda s: True, paid=True)


def qa(critic_score: float | None, calls: list[str], **settings: object) -> MultiModelQA:
    # Only the validator and the critic are deployed: nothing else is required to pass.
    settings.setdefault("qa_required_to_pass", "")
    reviewers = [*VALIDATOR_SPECS, critic(critic_score, calls)]
    return MultiModelQA(None, Fixed(Settings(**settings)), reviewers=reviewers)  # type: ignore[arg-type]


async def test_a_passing_validator_lets_the_critic_run_and_good_drafts_pass() -> None:
    """follows upstream test_passes_validator_runs_cloud_review, test_all_pass_approved,
    test_high_scores_approved"""
    calls: list[str] = []
    result = await qa(85, calls).review("Deploying FastAPI", CLEAN)
    assert calls == ["critic"] and result.approved and result.final_score >= 70
    assert [r.reviewer for r in result.reviews] == ["validator", "critic"]


async def test_a_validator_critical_rejects_before_the_critic_runs() -> None:
    """follows upstream test_critical_issues_reject_immediately,
    test_rejected_score_reflects_penalty,
    test_validation_result_included"""
    calls: list[str] = []
    result = await qa(95, calls).review("Revenue growth", FABRICATED)
    assert not result.approved and calls == []
    (validator,) = result.reviews
    criticals = [f for f in validator.findings if f.severity == "critical"]
    assert len(criticals) >= 2
    assert result.final_score == validator.score == max(0, 100 - 10 * len(criticals))
    assert result.decision.short_circuited


async def test_without_a_critic_the_validator_decides_alone() -> None:
    """follows upstream test_critic_skipped_uses_validator_score_only,
    test_only_validator_when_no_cloud,
    test_ollama_unhealthy_skips_to_fallback"""
    calls: list[str] = []
    result = await qa(None, calls).review("Deploying FastAPI", CLEAN)
    assert result.approved and result.final_score == 100.0 and result.critic_skipped


async def test_warnings_lower_the_score_and_many_of_them_reject() -> None:
    """follows upstream test_critic_skipped_with_penalized_validator,
    test_critic_skipped_below_threshold_rejected"""
    calls: list[str] = []
    one = await qa(None, calls).review("Deploying FastAPI", CLEAN + "\nLet's dive in.\n")
    assert one.approved and one.final_score == 97.0
    many = await qa(None, calls, qa_final_score_threshold=85).review("T", SIX_WARNINGS)
    assert not many.approved and many.final_score == 100 - 6 * 3
    # multiqa's choice (README, upstream differences): stock phrases beside generic headers are
    # one pool of padding, promoted to critical past the threshold (upstream: 9 x 3 points, 73).
    padded = await qa(None, calls, qa_final_score_threshold=75).review("T", NINE_WARNINGS)
    assert not padded.approved and padded.final_score < 100 - 9 * 3


async def test_nine_warnings_pull_a_critic_85_draft_below_approval() -> None:
    """follows upstream test_nine_warnings_drops_critic_85_below_threshold,
    test_zero_warnings_no_penalty,
    test_penalty_configurable"""
    calls: list[str] = []
    clean = await qa(85, calls).review("Deploying FastAPI", CLEAN)
    warned = await qa(85, calls).review("Deploying FastAPI", NINE_WARNINGS)
    steeper = await qa(85, calls, content_validator_warning_qa_penalty=5.0).review(
        "Deploying FastAPI", NINE_WARNINGS
    )
    assert clean.approved and not warned.approved and not steeper.approved
    # (with 5 points a warning the outcome is certain before the critic answers: decided early)
    assert clean.final_score > max(warned.final_score, steeper.final_score)
