"""unconfirmed_company_claim, the claims `_company_record` reads (issue 11): the company's standing,
track record, who it worked for, where it is, certifications, press, founders and its clients'
results, in the company's voice, asserted. Follows the concept of upstream's company_claim
(Glad-Labs/poindexter COMPANY_IMPOSSIBLE: claims about the company the facts do not support);
upstream has no tests for these kinds, so they are issue 11's.
"""

from __future__ import annotations

import dataclasses

import pytest

from agents.reviewers.validator import validate
from agents.settings import Settings
from schemas.records import Severity

COMPANY = Settings(
    company_name="Larkspur Labs",
    company_founded_year=2021,
    company_team_size=8,
    company_clients="Halvorsen Freight, Pine & Co",
)


def claimed(text: str, settings: Settings = COMPANY) -> bool:
    report = validate(
        "Some context first.\n\n" + text + "\n\nMore text follows.", settings=settings
    )
    return any(
        f.code == "unconfirmed_company_claim" and f.severity == Severity.CRITICAL
        for f in report.findings
    )


@pytest.mark.parametrize(
    "text",
    [
        # standing
        "We are the leading web design studio in the north of England.",
        "Larkspur Labs was the first agency in the region to ship a headless CMS.",
        "Larkspur Labs is one of the fastest-growing agencies in the UK.",
        "We are the only studio in Yorkshire that builds on Astro.",
        "As the UK's top-rated Webflow agency, we see this mistake every week.",
        # track record, figures in words
        "We have delivered hundreds of migrations without losing a ranking.",
        "- At Larkspur Labs we have completed more than fifty redesigns.",
        "We have never missed a launch date.",
        "Trusted by more than 200 small businesses, we know what works.",
        "Our team has decades of combined experience.",
        "> We have rebuilt more than fifty booking systems since 2019.",
        # who it worked for, where it is, certifications, press, founders, results
        "Larkspur Labs has built sites for the NHS and the BBC.",
        "Our work for Greenleaf Hotels won Site of the Day.",
        "Our studio in Manchester keeps us close to clients.",
        "Larkspur Labs employs designers in five countries.",
        "We hold ISO 27001 certification.",
        "We were featured in The Guardian.",
        "Larkspur Labs was founded by two former Google engineers.",
        "Our founder started the company in a garage in 2015.",
        "Our clients have seen conversion rates rise by an average of 30%.",
        "| Larkspur Labs has built booking flows for Lakeside Vets | one lesson |",
    ],
)
def test_company_claims_no_setting_confirms_reject(text: str) -> None:
    assert claimed(text)


@pytest.mark.parametrize(
    "text",
    [
        # consistent with the settings
        "We built the new booking flow for Pine & Co in the spring.",
        "We have built dashboards for Halvorsen Freight since 2021.",
        "We created a new layout for the Larkspur Labs website.",  # the company's own name
        "We built this theme for WordPress users.",  # a name as a modifier, not a client
        # plans, wishes, opinions, advice, negation
        "We want to be the leading studio for small clinics.",
        "Our goal is to be the most transparent studio in the region.",
        "We are not the only ones who noticed this.",
        "We were the first to admit that our checklist was too long.",
        "If you are the leading shop in your town, say so on your site.",
        "We recommend a staging site for every client.",
        # other companies, and the company's age stated consistently
        "Shopify is trusted by millions of merchants, and Google was the first company to ship it.",
        "Hundreds of migrations fail because redirects are forgotten.",
        "Our team in the shared document leaves comments first.",
        "Since we launched over 3 years ago, the app has changed a lot.",
    ],
)
def test_consistent_company_voice_and_other_companies_pass(text: str) -> None:
    assert not claimed(text)


def test_clients_named_are_judged_against_company_clients() -> None:
    text = "We have built booking flows for Harrowgate Physio."
    assert claimed(text)
    assert not claimed(text, dataclasses.replace(COMPANY, company_clients="Harrowgate Physio"))


def test_without_a_company_name_we_still_speaks_for_the_company() -> None:
    assert claimed("We are the leading studio in the region.", Settings())
    assert not claimed("Larkspur Labs is the leading studio in the region.", Settings())
