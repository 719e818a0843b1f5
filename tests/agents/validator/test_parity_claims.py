"""Unsourced statistics, vague attributions and company claims, ported from the seed's upstream
tests (Glad-Labs/poindexter content_validator tests: TestFakeStatistics, TestCompanyFactValidation,
TestTitleYearClaims, TestNamedSourceNoUrlPromotion, TestUnlinkedCitationDemotion,
TestGenuineFabricationStillHardFails), in multiqa's words, with issue 11's cases. Upstream's
fake_stat and company_claim are multiqa's unsourced_statistic / fabricated_study /
vague_attribution and unknowable_company_claim; a named source without a link is multiqa's
unlinked_source (a warning asking for a person) or unlinked_citation (a warning)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agents.reviewers.validator import validate
from agents.settings import Settings
from schemas.records import Severity

# Founded four years ago, whatever year the tests run in.
FOUNDED = datetime.now(UTC).year - 4
COMPANY = Settings(
    company_name="Larkspur Labs",
    company_founded_year=FOUNDED,
    company_team_size=8,
    company_clients="Halvorsen Freight, Mistral Bakery Group",
)


def rejected_by(content: str, codes: set[str], settings: Settings | None = None) -> bool:
    report = validate(content, settings=settings)
    return not report.approved and any(
        f.code in codes and f.severity == Severity.CRITICAL for f in report.findings
    )


STAT_CODES = {"unsourced_statistic", "fabricated_study", "vague_attribution"}


@pytest.mark.parametrize(
    "claim",
    [
        "Studies show a 47% reduction in deployment time when using Docker.",
        "According to a 2024 study by McKinsey, AI adoption has increased 300%.",
        "A 2024 report by Gartner found a 50% reduction in costs across the board.",
        "Roughly 62 percent of shoppers who add something to their basket never pay.",
        "Office printing fell by half between 2021 and 2023.",
        "3 in 4 shoppers would return a product that did not match its description.",
        "Industry data shows that static sites load about twice as fast.",
        "Experts estimate that nearly a third of the microplastics come from heating.",
        "According to our analysis, teams that merge daily deploy twice as often.",
        "A recent Gartner report found that 70 percent of new apps will be low-code.",
        "Studies show that two-thirds of developers who quit cite changing priorities.",
        "| Lazy loading | 40% faster initial load |",
        "Sixty-two percent of respondents prefer dark mode.",
        "Shops with a newsletter see repeat orders grow by half between 2021 and 2024.",
    ],
)
def test_figures_without_a_source_reject(claim: str) -> None:
    """follows upstream test_catches_fake_percentage, test_catches_fake_research_firm,
    test_fabricated_study_still_hard_fails; the rest are issue 11's: figures in words, figures
    pinned on nobody ("industry data shows", "experts estimate", "according to our analysis")"""
    assert rejected_by(claim, STAT_CODES)


@pytest.mark.parametrize(
    "claim",
    [
        "Well over 90 percent of pages load over HTTPS, says Google's "
        "[Transparency Report](https://transparencyreport.google.com/https/overview).",
        "Face-to-face interaction fell by about 70 percent after the move.[^1]\n\n"
        "[^1]: Bernstein and Turban, 2018. https://doi.org/10.1098/rstb.2017.0239",
        "Start around 75 percent hydration with a flour of 12 to 13 percent protein.",
        "Keep at least 15 percent of the drive free for updates.",
        "Use half of the dough for the first loaf.",
        "Reduce the sauce by half, then let the dough rise by a third in the fridge.",
        "Quantized 4-bit models run at 45 tokens/second on the card.",
        "Studies of people learning word pairs find that sleep helps.",
    ],
)
def test_sourced_figures_and_plain_quantities_pass(claim: str) -> None:
    """follows upstream test_concrete_claim_not_flagged; issue 11's sourced (linked) statistics and
    footnotes; quantities in a recipe or a how-to are not statistics"""
    assert not (set(validate(claim).codes()) & STAT_CODES)


@pytest.mark.parametrize(
    ("text", "rejected"),
    [
        ("The second paragraph claims a 30 percent saving, but its report says 13.", False),
        ("The vendor's page advertises up to 40% faster builds; we could not see it.", False),
        ("Ask for a link whenever a post touts a 25% increase in sign-ups.", False),
        # Asserted figures stay critical, whatever verb carries them.
        ("The new chip boasts a 40% performance boost over last year's model.", True),
        ("The update promises a 30% reduction in cold-start time.", True),
        ("Our tooling claims nothing; it simply gives a 35% increase in throughput.", True),
    ],
)
def test_a_figure_reported_as_a_claim_is_not_asserted(text: str, rejected: bool) -> None:
    """issue 11 (precision): a figure the sentence itself calls someone's claim ("claims",
    "advertises", "touts", "alleges") is discussed, not asserted, e.g. in editorial feedback;
    "boasts" and "promises" are how model prose says "has", so they do not count"""
    assert rejected_by(text, STAT_CODES) is rejected


def test_a_document_pointed_at_but_not_linked_asks_for_a_person() -> None:
    """follows upstream test_medium_article_without_url_stays_warning_by_default,
    test_article_on_redis_memory_usage_without_url_stays_warning_by_default,
    test_medium_article_with_url_stays_warning: a warning, never a reject on its own; multiqa
    also asks for human review"""
    for text in (
        "This technique works well in practice, as highlighted in this Medium article.",
        "As noted in this article on Redis memory usage, caching matters.",
    ):
        report = validate(text)
        assert report.approved and report.codes() == ["unlinked_source"], report.codes()
        assert report.human_review_codes() == ["unlinked_source"]
    linked = (
        "It works, as highlighted in this Medium article https://medium.com/@a/post-12345 here."
    )
    assert "unlinked_source" not in validate(linked).codes()


def test_rhetorical_citations_stay_warnings() -> None:
    """follows upstream test_rhetorical_citations_stay_warning_and_pass,
    test_published_in_company_name_does_not_hard_reject,
    test_generic_unlinked_citation_stays_warning,
    test_new_model_announcement_not_hard_rejected (multiqa: named sources are warnings, not
    promoted past the warning threshold unless more than three of one code)"""
    content = (
        "As noted in the Indie Hackers blueprint, distribution beats product. As highlighted in "
        "the Founder Playbook, focus wins. According to the Anthropic announcement, the models "
        "ship this week. Published in Glad Labs, this note recaps the week."
    )
    report = validate(content)
    assert report.approved
    assert all(f.severity == Severity.WARNING for f in report.findings)


@pytest.mark.parametrize(
    "claim",
    [
        "Last quarter our revenue tripled and our profit followed.",
        "Larkspur Labs has been operating for over 10 years in the AI space.",
        "Larkspur Labs has been helping importers for over 15 years.",
        "With our team of 40 engineers spread over three time zones, reviews are written.",
        "Our clients include Nike, IKEA and Spotify.",
        "Our customers such as Bupa rely on flows like this one.",
        "Since we were founded in 2009, we have read hundreds of briefs.",
        "We've helped more than 5,000 businesses make their sites faster.",
        "We processed over 2 million orders through our clients' shops last year.",
        "Acme Corp, one of our clients, shares data with us.",
        "Our profit margin doubled last year, and our recent funding round lets us test more.",
        "Our 60-person engineering team moves the bookings over in a weekend.",
        "Today we employ 70 designers across four time zones.",
        "We now have 40 engineers on the platform.",
        "We have over 30 consultants in the field.",
        "We have been building booking software for guesthouses since 2011.",
        "Since 2010, we have helped restaurants take orders online.",
        "In the year after the move we doubled our revenue from retainers.",
        "Larkspur Labs tripled its annual sales.",
    ],
)
def test_company_claims_the_facts_do_not_support_reject(claim: str) -> None:
    """follows upstream test_catches_impossible_age_claim,
    test_first_person_our_revenue_still_caught,
    test_facts_are_configurable; issue 11: revenue, team size, client lists, against the
    company-fact settings, in several wordings ("N-person team", "we employ", "since 2011",
    "we doubled our revenue")"""
    assert rejected_by(claim, {"unknowable_company_claim"}, COMPANY)


@pytest.mark.parametrize(
    "claim",
    [
        "If you're running a one-person shop, your revenue goal is usually vague on purpose. "
        "An hour of funding talk won't fix that.",
        f"Larkspur Labs was founded in {FOUNDED}. Our team of eight works remotely.",
        "Halvorsen Freight, one of our clients, shares shipment events nightly.",
        "Our clients include Halvorsen Freight and Mistral Bakery Group.",
        f"Since we started in {FOUNDED}, we have kept every ticket.",
        "Our 8-person team works remotely; we employ 8 people in all.",
        f"We have been building importer dashboards since {FOUNDED}.",
        "Figma has been around since 2016, and we still start every site there.",
        "We have two developers on call each week.",
        "Since 2015, Python has shipped type hints. We doubled the cache size.",
        "If you have 200 employees, you need an HR system.",
    ],
)
def test_claims_the_facts_support_and_advice_to_the_reader_pass(claim: str) -> None:
    """follows upstream test_second_person_your_revenue_is_not_a_company_claim; multiqa adds claims
    that match the company-fact settings"""
    assert "unknowable_company_claim" not in validate(claim, settings=COMPANY).codes()


def test_without_company_facts_any_company_fact_is_unknowable() -> None:
    """multiqa's default (no company_* settings): the writer cannot know any of them"""
    assert rejected_by("Our team of 12 builds websites.", {"unknowable_company_claim"})
    assert rejected_by(
        "Since we started in 2021 we kept every ticket.", {"unknowable_company_claim"}
    )


@pytest.mark.parametrize(
    ("title", "rejected"),
    [
        ("What I Learned in 5 Years of Building AI Systems", True),
        ("Three Years of Lessons from Production", True),
        ("10 Years of Wisdom", True),
        ("After 1 Year of Building", False),
        ("The Next 10 Years of Web Development", False),
    ],
)
def test_years_claimed_in_the_title(title: str, rejected: bool) -> None:
    """follows upstream test_catches_numeric_year_in_title, test_catches_written_year_in_title,
    test_does_not_flag_one_year, test_numeric_year_claim_is_critical (with no company_founded_year
    set, as upstream's default company age of one year)"""
    report = validate("Some content here.", title=title)
    found = [f for f in report.findings if f.code == "unknowable_company_claim"]
    assert bool(found) is rejected
    assert all(f.severity == Severity.CRITICAL for f in found)


def test_title_years_consistent_with_the_founding_year_pass() -> None:
    """multiqa: with company_founded_year set, a title's claim is checked against the age"""
    founded = Settings(company_founded_year=datetime.now(UTC).year - 3)
    assert validate("Fine.", title="Three Years of Lessons", settings=founded).findings == ()
    assert validate("Fine.", title="Ten Years of Lessons", settings=founded).codes() == [
        "unknowable_company_claim"
    ]
