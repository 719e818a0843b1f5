"""Issue 11, session 5: company claims recognised by what they assert about the company.

Against the company facts (a 12-person firm founded 2019 with two clients): a team size in any
number word, clients named in apposition to "our ... clients", organisations said to have hired
or asked the company, money the company handled, and customers counted with a place between
the count and the verb. Look-alikes consistent with the facts, or not in the company's voice,
must pass. The wordings are this file's own (none from the corpus).
"""

from __future__ import annotations

import pytest

from agents.settings import Settings
from tests.agents.validator.shapes import assert_none_of, assert_rejected_by

FACTS = Settings.from_mapping(
    {
        "company_name": "Fernhill Digital",
        "company_founded_year": "2019",
        "company_team_size": "12",
        "company_clients": "Quayside Vets, Arden Print",
    }
)
COMPANY = {"unknowable_company_claim", "unconfirmed_company_claim", "company_fact_sheet"}
PAD = "Test the form on a phone before you ship it.\n\n"

FLAGGED = [
    "We are a team of ninety-two engineers spread over four offices.",
    "Fernhill Digital is a studio of seventy people.",
    "We rebuilt the portal for two of our biggest customers, Quayside Vets and Dunmore Housing.",
    "- Our longest-standing clients: Arden Print and the Kestrel Rail Group.",
    "| Portal | built after Pellow & Marsh Architects hired us to replace a spreadsheet |",
    "The Northern Water Board commissioned us to redesign its outage map.",
    "When Dunmore Housing asked us to rebuild the repairs form, we said yes.",
    "> Fernhill Digital's invoicing tool processed over $12 million for sole traders in 2024.",
    "Our payments page handled more than \u00a35m for local charities, and we run it in-house.",
    "More than 900 practices across Scotland now use Fernhill Digital.",
    "More than ten thousand pet owners book through Fernhill Digital every month.",
    "Designers from our Bristol and Cardiff offices share one review day.",
    "These days we work with over 70 parish councils on their bookings.",
]
CLEAN = [
    "We are a team of twelve, so every project has a named developer.",
    "Two of our clients, Quayside Vets and Arden Print, asked for the same export.",
    "Quayside Vets asked us to add a reminder for annual vaccinations.",
    "Readers asked us to cover accessibility next.",
    "When Arden Print asked us for a quote tracker, we started with their paper forms.",
    "After Quayside Vets hired us to move their bookings online, missed visits fell.",
    "A team of ninety volunteers staffs the marathon's water stations.",
    "The lottery fund paid out \u00a33 million to community groups last year.",
    "Our customers, mostly vets and printers, open the export in a spreadsheet.",
    "If you processed over $1 million last year, you may need to register for VAT.",
    "Book a slot in our Zoom office hours on Fridays.",
    "We work with two developers on call at weekends.",
    "If you visit our London office, bring photo ID.",
]


@pytest.mark.parametrize("text", FLAGGED)
def test_company_claims_beyond_the_facts_are_critical(text: str) -> None:
    assert_rejected_by(text, PAD, COMPANY, settings=FACTS)


@pytest.mark.parametrize("text", CLEAN)
def test_look_alikes_pass(text: str) -> None:
    assert_none_of(text, PAD, COMPANY, settings=FACTS)
