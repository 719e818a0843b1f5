"""unsourced_expert_claim: a claim put in the mouth of a named authority with no source (issue 11).

The concept has three parts (a name, a title or employer, something said or thought) and no
linked source; each test varies one part. Upstream (Glad-Labs/poindexter content_validator) has
the same family as fake_person and fake_quote: the tests naming an upstream test follow it.
"""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from agents.settings import Settings
from schemas.records import Severity

COMPANY = Settings(company_name="Larkspur Labs", company_founded_year=2020, company_team_size=8)


def claims(text: str, settings: Settings | None = None) -> list[str]:
    report = validate(text, settings=settings)
    return [
        f.message
        for f in report.findings
        if f.code == "unsourced_expert_claim" and f.severity == Severity.CRITICAL
    ]


@pytest.mark.parametrize(
    "text",
    [
        # honorific and surname only
        "Dr Okafor argues that a short nap helps memory more than another hour of notes.",
        "Ms. Brandt, a senior lending analyst at Fenwick Research, expects rates to fall.",
        "Mr. Castellano, CTO of brightpath, thinks monoliths are underrated.",
        "Prof. Lindqvist, who teaches at Uppsala, says naps help.",
        # any name, the title after it, in several layouts
        "According to Hannelore Brandt, head of platform at kestrel systems, outages start there.",
        "Tomasz Wierzbicki, principal engineer at nordlight, recommends small batches.",
        "Ingrid Solberg (Head of Security, Polaris Bank) said phishing tests backfire.",
        "Ingrid Solberg \u2014 Head of Security, Polaris Bank \u2014 says tests backfire.",
        "Fatima Al-Sayed, the studio's VP of Growth, says retention is the metric.",
        "Mirela Dragomir, who runs the data team at Lumen Health, told us the same.",
        "Hannelore Brandt of Kestrel Systems believes configs should be reviewed.",
        # the title before the name
        "Security researcher Tomasz Wierzbicki warns that vaults are lost, not stolen.",
        "Chief Economist Lorenzo Bianchi at Harbour Bank expects two cuts.",
        "As Polaris Bank's head of security Ingrid Solberg puts it, tests backfire.",
        # an interview the writer claims to have had
        "We spoke to Mirela Dragomir, head of data at Lumen Health, about duplicates.",
        # in a list item and a blockquote
        "- Ms. Brandt, an analyst at Fenwick Research, expects two cuts.",
        "> Hannelore Brandt, head of platform at Kestrel Systems, says configs cause outages.",
    ],
)
def test_a_claim_by_a_named_authority_without_a_source_rejects(text: str) -> None:
    assert claims("Some context first.\n\n" + text + "\n\nMore text follows here.")


@pytest.mark.parametrize(
    "text",
    [
        # no claim put in the person's mouth
        "Ingrid Solberg, head of security at Polaris Bank, gave the keynote.",
        "Ingrid Solberg, head of security at a bank, agreed to give the opening talk.",
        "Tomasz Wierzbicki from Nordlight joined the committee in March.",
        # a linked source in the paragraph
        "Ingrid Solberg, head of security at Polaris Bank, argues in [her talk]"
        "(https://www.usenix.org/conference/enigma2026) that tests backfire.",
        # a footnote that is a publication, not the writer's own interview
        "Dr. Okafor, a researcher at Leeds, found that thanks raise reports.[^1]\n\n"
        "[^1]: Okafor, Reporting culture and simulated phishing, 2025.",
        # a person introduced by a public work, or a public figure by nationality
        "Martin Kleppmann, author of Designing Data-Intensive Applications, argues logs are hard.",
        "Dieter Rams, the German industrial designer, said good design is as little as possible.",
        # organisations that say things (two capitalised words, no title)
        "The Python Software Foundation says each release gets five years of fixes.",
        "Kestrel Systems argues in its documentation that configs should be versioned.",
        "Visual Studio Code expects a settings file in the workspace.",
        # no person at all
        "Dr. Seuss books are still popular with children.",
    ],
)
def test_people_without_claims_linked_claims_and_organisations_pass(text: str) -> None:
    assert claims("Some context first.\n\n" + text + "\n\nMore text follows here.") == []


def test_the_person_named_in_a_linked_sources_entry_is_sourced() -> None:
    text = (
        "Ingrid Solberg, head of security at Polaris Bank, argues that tests backfire.\n\n"
        "## Sources\n\n- [Ingrid Solberg on phishing tests](https://www.usenix.org/enigma)\n"
    )
    assert claims(text) == []
    assert claims(text.replace("Ingrid Solberg on", "A talk on"))


def test_an_interview_footnote_without_a_link_is_no_source() -> None:
    text = (
        "In a conversation, Ingrid Solberg (Head of Security, Polaris Bank) said tests "
        "backfire.[^1]\n\n[^1]: Interview with Ingrid Solberg, March 2026.\n"
    )
    found = claims(text)
    assert len(found) == 1 and "Ingrid Solberg" in found[0]  # one person, not "Polaris Bank"
    linked = text.replace("March 2026.", "[recording](https://example.org/r).")
    assert claims(linked) == []


def test_an_expert_table_with_a_view_column_rejects_each_row() -> None:
    table = (
        "| Name | Position | Take |\n|---|---|---|\n"
        "| Lorenzo Bianchi | Chief economist, Harbour Bank | Two cuts before the autumn |\n"
        "| Saoirse Quinlan | Head of research, Meridian | Rates stay flat until winter |\n"
    )
    assert len(claims("Views.\n\n" + table)) == 2
    tools = (
        "| Tool | Maintainer | Notes |\n|---|---|---|\n"
        "| Astro | Fred Schott | Static-first framework with islands |\n"
    )
    assert claims("Tools.\n\n" + tools) == []
    sourced = table.replace("Two cuts before the autumn", "[Two cuts](https://hb.example/n)")
    assert len(claims("Views.\n\n" + sourced)) == 1


@pytest.mark.parametrize(
    ("signature", "rejected"),
    [
        ("> -- Nadia Petrenko, engineering manager at Corvid Labs", True),
        ("> - Nadia Petrenko, Corvid Labs", True),
        (
            "> -- Alan Kay, computer scientist ([source](https://en.wikiquote.org/wiki/Alan_Kay))",
            False,
        ),
        ("> - a list item, not a signature", False),
    ],
)
def test_blockquote_signature_lines(signature: str, rejected: bool) -> None:
    text = f"Intro.\n\n> Ship the smallest change that teaches you something.\n>\n{signature}\n"
    assert bool(claims(text)) is rejected


def test_a_role_at_the_publishing_company_saying_something_rejects() -> None:
    """follows upstream FAKE_NAME_PATTERNS' third pattern (a title "at|of" the company name, the
    fake_person category of test_catches_fake_ceo): the company facts know no such person. multiqa
    asks for something said, so a byline-like mention stays approved"""
    assert claims("The CTO at Larkspur Labs says static sites are the future.", COMPANY)
    assert claims("Head of design at Larkspur Labs? Not yet a role.", COMPANY) == []
    assert claims("The CTO at Larkspur Labs says so.") == []  # no company set: not the company


def test_upstream_fake_ceo_and_attributed_quote_still_reject() -> None:
    """follows upstream test_catches_fake_ceo and test_catches_attributed_quote: the older rules
    still own these (fabricated_person, fabricated_quote); the new rule does not double-count"""
    report = validate("Sarah Johnson, CEO at some company, said this was transformative.")
    assert "fabricated_person" in report.codes() and not report.approved
    assert "unsourced_expert_claim" not in report.codes()
    quote = '"This changes everything for our industry," says Marcus Chen, VP of Engineering.'
    assert "fabricated_quote" in validate(quote).codes()
