"""Issue 11's later shapes (the fourth pass): anecdotes told as past actions, lessons and
witness; dialogue with someone the writer knows; headcounts in more wordings; changes reported
without "by"; figures that only qualify an imagined case. Each shape rejects, and the wording
next to it that is not the claim passes."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from agents.settings import Settings
from schemas.records import Severity

COMPANY = Settings(company_name="Larkspur Labs", company_team_size=8)


def critical_codes(text: str, settings: Settings | None = None) -> set[str]:
    report = validate(text, settings=settings)
    return {f.code for f in report.findings if f.severity == Severity.CRITICAL}


@pytest.mark.parametrize(
    "text",
    [
        "I migrated our cron jobs to a queue and the pages stopped.",
        "I finally ditched Jenkins after the third outage.",
        "Check restores monthly; I learned this one the hard way.",
        "I have watched teams close forty tickets and ship nothing.",
        "I've seen this pattern fail in production.",
        "Speaking from painful experience, test the restore.",
        "In my previous role, every review started with an argument.",
        "My old manager deleted dashboards nobody opened.",
        '> "Signups are vanity," our head of product said to me.',
        '"Delete it," my manager admitted over coffee.',
        "The vendor said to us that it would scale.",
    ],
)
def test_anecdotes_reject(text: str) -> None:
    assert "first_person_experience" in critical_codes(text)


@pytest.mark.parametrize(
    "text",
    [
        "I recommend pinning versions.",
        "If I migrated a service today, I would start with the queue.",
        "I picked a small web server for the example below.",
        "As we have seen, width matters more than colour.",
        "We moved our portal to a static site.",  # company voice: the company facts judge it
        '"Fine," the docs said.',
        "Ask what the team has seen in production.",
    ],
)
def test_advice_and_writer_voice_pass(text: str) -> None:
    assert "first_person_experience" not in critical_codes(text)


@pytest.mark.parametrize(
    "text",
    [
        "Our 200-person data engineering group reviews every pipeline.",
        "Our 90-strong front-end and QA division tests every page.",
        "Our engineering team now numbers 85.",
        "Our headcount now stands at 140, so everyone gets a buddy.",
        "We're 60 strong these days.",
        "We are now a team of 45 across three cities.",
        "We're a 30-person studio in Leeds.",
        "We have grown to 85 people since then.",
        "We have 80 employees.",
        "Larkspur Labs has over 200 staff.",
        "More than 300 people work at Larkspur Labs.",
    ],
)
def test_headcounts_reject(text: str) -> None:
    assert "unknowable_company_claim" in critical_codes(text, COMPANY)


@pytest.mark.parametrize(
    "text",
    [
        "Our team of 8 takes turns running handovers.",  # agrees with company_team_size
        "We have two developers on call each week.",  # a rota, not the headcount
        "Our team has three rules for handovers.",
        "Our team is five minutes from the station.",
        "We are two weeks past launch.",
        "We're 8 people.",
    ],
)
def test_team_wording_that_is_no_headcount_passes(text: str) -> None:
    assert "unknowable_company_claim" not in critical_codes(text, COMPANY)


@pytest.mark.parametrize(
    "text",
    ["Sales grew 40% last year.", "Churn fell 12 percent after the change."],
)
def test_changes_without_by_reject(text: str) -> None:
    assert "unsourced_statistic" in critical_codes(text)


@pytest.mark.parametrize(
    "text",
    [
        "A language used by a third of developers can still be the wrong tool.",
        "A framework adopted by half of all teams can still be a poor fit.",
        "Even if a quarter of your visitors arrive on old phones, keep pages light.",
        "Set the threshold to 40%.",
    ],
)
def test_imagined_cases_pass(text: str) -> None:
    assert "unsourced_statistic" not in critical_codes(text)


def test_a_real_figure_beside_an_imagined_one_still_rejects() -> None:
    text = "If half of your users scroll, fine. About a third of developers use Rust."
    assert "unsourced_statistic" in critical_codes(text)
