"""Filler phrases, filler intros and generic headers, ported from the seed's upstream tests
(Glad-Labs/poindexter content_validator tests: TestFillerPhrases, TestFillerIntros,
TestBannedHeaders, TestWarningThresholdPromotion, TestValidationResult), in multiqa's words.
Upstream's filler_phrase, filler_intro and banned_header are multiqa's filler_phrase and
banned_header: warnings, promoted to critical past content_validator_warning_reject_threshold."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from schemas.records import Severity


@pytest.mark.parametrize(
    "phrase",
    [
        "Many organizations have found that self-hosting is cost-effective. Details here.",
        "The future of AI is here and it's running on local hardware.",
        "Unlock the full potential of your local GPU with these techniques.",
        "In today's fast-paced digital world, things move quickly.",
        "In today's fast-paced business environment, nobody waits.",
        "At its core, a load balancer picks a server for each request.",
        "At the heart of the system is a queue.",
        "In this post, we will explore how to build a thing.",
        "In this article we will cover the steps.",
        "Let's dive in.",
    ],
)
def test_filler_is_a_warning_not_a_reject(phrase: str) -> None:
    """follows upstream test_many_organizations_have_found, test_future_of_ai_is_here,
    test_unlock_the_potential, test_in_this_post_intro_flagged, test_in_this_article_intro_flagged,
    test_in_todays_fast_paced_flagged; "At its core" is issue 11's (upstream counts it as a
    buzzword)"""
    report = validate(phrase)
    found = [f for f in report.findings if f.code == "filler_phrase"]
    assert found and all(f.severity == Severity.WARNING for f in found)
    assert report.approved


@pytest.mark.parametrize(
    "text",
    [
        "Quantized 4-bit models run at 45 tokens/second on the card.",
        "PostgreSQL will crumble under load if you ignore connection pooling.",
        "The core of the problem is memory bandwidth.",
        "The future of the project depends on its maintainers.",
    ],
)
def test_concrete_sentences_are_not_filler(text: str) -> None:
    """follows upstream test_concrete_claim_not_flagged, test_strong_hook_is_fine"""
    assert "filler_phrase" not in validate(text).codes()


@pytest.mark.parametrize(
    "heading",
    ["## Conclusion", "## Introduction", "## Summary", "### CONCLUSION", "## Conclusion:"],
)
def test_generic_headers_warn(heading: str) -> None:
    """follows upstream test_conclusion_header_is_warning, test_introduction_header_is_warning,
    test_summary_header_is_warning, test_conclusion_case_insensitive,
    test_trailing_colon_still_caught"""
    report = validate(f"Some intro paragraph.\n\n{heading}\n\nWrap up.\n")
    (finding,) = [f for f in report.findings if f.code == "banned_header"]
    assert finding.severity == Severity.WARNING and report.approved


@pytest.mark.parametrize(
    "heading", ["## Why Most Developers Get This Wrong", "## Summary of the benchmark results"]
)
def test_specific_headers_pass(heading: str) -> None:
    """follows upstream test_creative_header_is_ok; a heading that only starts with a banned word
    is multiqa's"""
    assert "banned_header" not in validate(f"Content.\n\n{heading}\n\nBody.\n").codes()


def test_many_filler_phrases_are_promoted_to_critical() -> None:
    """follows upstream test_many_warnings_promotes_to_critical"""
    content = (
        "Many organizations have found this approach useful. The future of AI is here and it runs "
        "locally. Unlock the full potential of your GPU with these techniques. In today's "
        "fast-paced digital world, things change quickly. Many companies have found success "
        "with self-hosting. End of body text."
    )
    report = validate(content)
    filler = [f for f in report.findings if f.code == "filler_phrase"]
    assert len(filler) >= 4
    assert all(f.severity == Severity.CRITICAL for f in filler) and not report.approved


def test_two_filler_phrases_stay_warnings() -> None:
    """follows upstream test_two_warnings_stay_as_warnings"""
    content = (
        "Many organizations have found this helpful. The future of local inference is here "
        "today. Regular prose continues without any filler afterwards."
    )
    report = validate(content)
    filler = [f for f in report.findings if f.code == "filler_phrase"]
    assert len(filler) == 2 and all(f.severity == Severity.WARNING for f in filler)
    assert report.approved


def test_scores_charge_ten_per_critical_and_three_per_warning() -> None:
    """follows upstream test_score_penalty_critical_is_10, test_score_penalty_warning_is_3,
    test_critical_count_property, test_warning_count_property, test_passed_when_no_critical"""
    assert validate("[IMAGE-1: photo]").score == 90.0
    assert validate("Let's dive in. The rest is concrete.").score == 97.0
    assert validate("This is clean content with no issues.").score == 100.0
