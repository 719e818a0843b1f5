"""Fabricated first-person experience, invented people and invented quotes, ported from the
seed's upstream tests (Glad-Labs/poindexter content_validator tests: TestFabricatedExperiences,
TestFakeNames, TestFabricatedQuotes, TestGenuineFabricationStillHardFails), in multiqa's words,
with the cases issue 11 lists. Upstream's categories fabricated_experience, fake_person and
fake_quote are multiqa's first_person_experience, fabricated_person and fabricated_quote (all
critical); multiqa adds unsourced_person, a warning for titled names it cannot judge, and
unsourced_expert_claim, critical, when such a person is made to say something without a source.
"""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from schemas.records import Severity


def critical(content: str, code: str) -> bool:
    report = validate(content)
    return not report.approved and any(
        f.code == code and f.severity == Severity.CRITICAL for f in report.findings
    )


@pytest.mark.parametrize(
    "anecdote",
    [
        "Last week I sat in a meeting with a startup founder who needed help.",
        "At my current company, we use this exact pattern.",
        "A client of mine asked about this issue last week.",
        "Last month we deployed this to production and it worked.",
        "It saved us $1,200/month in compute costs.",
        '"This is a great approach for our use case," he said with a smile.',
        "I was on a call with a founder last Tuesday who had built the wrong thing.",
        "I sat down with the CTO of a payments company to talk it through.",
        "A baker I worked with in Porto taught me this the hard way.",
        "After switching to this routine last spring, I took four minutes off my time.",
        "When I interviewed the head of data at a retailer, she told me the same.",
        "I spent three weekends rebuilding my home lab after a power cut.",
        "In our agency we've tested dozens of headline variants.",
        "My team and I rolled this out across a hospital network in 2021.",
        "Moving the catalogue behind the cache cost us $4,800 before we noticed.",
        "I still remember the first time I pushed a schema change on a Friday.",
        "I once lost an entire weekend to a single event listener.",
        "We rolled exactly this out for a furniture client in the spring.",
        "During a workshop I ran for a nonprofit, the volunteers spotted the flaw.",
        "Back when I was running the infrastructure team at a bank, pages were rare.",
        "We saw this firsthand at our last client.",
        "A customer of ours was paying for thirty days of backups.",
    ],
)
def test_anecdotes_a_model_cannot_have_had_reject(anecdote: str) -> None:
    """follows upstream test_catches_sat_in_meeting, test_catches_at_my_company,
    test_catches_client_of_mine, test_catches_recent_anecdote, test_catches_dollar_amount_anecdote,
    test_catches_fabricated_dialogue; the rest are issue 11's (calls, acquaintances, dated
    episodes, time spent, dialogue, "my team and I", recollections, work done for a client,
    past roles, "firsthand")"""
    assert critical(anecdote + " The details follow below.", "first_person_experience")


@pytest.mark.parametrize(
    "advice",
    [
        "I recommend pinning exact versions for applications.",
        "I would schedule dependency updates weekly, in a separate pull request.",
        "In my view, a lock file pays for itself the first time a build breaks.",
        "If I were starting today, I would pick one technique a week.",
        "I suggest closing every tab once a week. I find that almost nothing is missed.",
        "My suggestion: raise the ISO before you lower the shutter speed.",
        "We will create a small helper first, then call it from the handler.",
        "The RTX 5090 system costs approximately $2,400 fully loaded.",
        "Halvorsen Freight, one of our clients, shares shipment events nightly.",
        "Remember the first time you set up a machine by hand? Once you have a shell, keep it.",
        "We recommend testing the script before you run it for a client machine.",
        "When we were writing this guide, that was the one step everyone agreed on.",
        "Once configured, the tool runs unattended. Build it for a client who pays on time.",
    ],
)
def test_first_person_advice_is_not_an_anecdote(advice: str) -> None:
    """issue 11's precision case: first-person advice that is not an anecdote ("I recommend
    pinning versions"); a price on its own is not a story about the writer's money"""
    assert "first_person_experience" not in validate(advice).codes()


@pytest.mark.parametrize(
    "person",
    [
        "Sarah Johnson, CEO at some company, said this was transformative.",
        "Sarah Johnson, CEO at Acme, said our tool was transformative.",
        "Sarah Chen, CTO at a mid-sized fintech startup, disagrees.",
        "Emily Rhodes, head of product at Acme Software, agrees.",
        "**Emily Carter, CFO of Brightwave Retail:** the close took ten days.",
        "| Raj Patel | Staff engineer, Corvid Systems | Read the incident reviews. |",
        "Michael Brennan, head of infrastructure at a logistics startup, says so.",
    ],
)
def test_stock_names_with_a_title_are_invented_experts(person: str) -> None:
    """follows upstream test_catches_fake_ceo, test_fake_person_still_hard_fails; issue 11 adds
    "whatever the case of the organisation" and names in lists and tables"""
    assert critical(person, "fabricated_person")


@pytest.mark.parametrize(
    "person",
    ["Dr. Smith Williams published a groundbreaking study on AI.", "Prof. Anna Lindqvist agrees."],
)
def test_an_honorific_and_two_names_without_a_source_is_an_invented_expert(person: str) -> None:
    """follows upstream test_catches_fake_doctor"""
    assert critical(person, "fabricated_person")


@pytest.mark.parametrize(
    "real",
    [
        "Mark Zuckerberg, CEO of Meta, says so. Sarah Mitchell wrote a novel.",
        "Dr. Jane Goodall studied chimpanzees ([profile](https://janegoodall.org/)).",
        "Fei-Fei Li, an AI researcher, led the effort ([ImageNet](https://www.image-net.org/)).",
    ],
)
def test_known_or_sourced_people_pass(real: str) -> None:
    """multiqa's: known public figures, and people whose paragraph links a source"""
    assert validate(real).findings == ()


def test_an_unknown_name_with_a_title_asks_for_a_person() -> None:
    """differs on purpose from upstream (which only knows a fixed first-name list): any two names
    with a job title and no source may be real or invented; mentioned without a claim, multiqa
    warns and approves (nothing in the draft rests on the person); once the person is made to
    say or think something, the claim has no source and rejects (unsourced_expert_claim)"""
    report = validate("Ingrid Solberg, head of data at Nordlys, gave the keynote.")
    assert report.codes() == ["unsourced_person"] and report.approved
    assert report.human_review_codes() == []
    assert critical(
        "Ingrid Solberg, head of data at Nordlys, thinks the same.", "unsourced_expert_claim"
    )


@pytest.mark.parametrize(
    "quote",
    [
        '"This changes everything for our industry," says Marcus Chen, VP of Engineering.',
        '> "Consistency beats cleverness."\n>\n> \u2014 Maria Gonzalez, VP of Marketing',
        "Steve Jobs famously told a room of engineers, "
        '"A product is finished when nothing is left."',
        'As Warren Buffett once said, "The best budget is the one you open every Sunday."',
        '"We cut our suite from forty minutes to six," explains David Park, a senior engineer.',
    ],
)
def test_attributed_quotes_without_a_source_reject(quote: str) -> None:
    """follows upstream test_catches_attributed_quote; issue 11: invented quotes attributed to real
    or invented people with no source (after the quote, before it, on a dash line under it)"""
    assert critical(quote, "fabricated_quote")


@pytest.mark.parametrize(
    "quote",
    [
        '"Premature optimization is the root of all evil," Knuth wrote '
        "([paper](https://dl.acm.org/doi/10.1145/356635.356640)).",
        'The essay calls the approach "worse is better" and is still online.',
        'Quotation marks around "scare quotes" are not a quote from anyone.',
    ],
)
def test_sourced_or_unattributed_quotes_pass(quote: str) -> None:
    """multiqa's: a quote with a source in its paragraph, and quotation marks that name no
    speaker, are not fabricated quotes"""
    assert "fabricated_quote" not in validate(quote).codes()
