"""Issue 11, session 5: concepts widened on heldout7's misses and false rejections.

- Company voice: a draft that names the company of the settings and says "we" tells the
  company's history in its own voice ("we shipped reminders this autumn", "since we started in
  2015"); the company facts judge that (company_claim), the first-person rules do not. "I" is
  still a narrator.
- Stock wording is one defect whichever list a phrase is on: filler phrases and buzzwords are
  counted together against the warning threshold, by place (a phrase on both lists is one).
- A cut above the back matter: footnote definitions (after or before a Sources list) are peeled
  off like the list, so the cut paragraph above them is judged; a footnote that is itself cut is
  still the last line.
- A last list item that stops on a count ("a bladder, two") may be cut or terse: a warning that
  asks for a person, never a reject.
Every wording here was written for this file (none is from a corpus split).
"""

from __future__ import annotations

import pytest

from agents.reviewers.validator import rule_codes, validate
from agents.settings import Settings
from tests.agents.validator.test_validator_bad_input_matrix import INPUTS

FACTS = Settings.from_mapping(
    {
        "company_name": "Northwind Labs",
        "company_founded_year": "2016",
        "company_team_size": "14",
        "company_clients": "Harbor Bank, Lumen Health",
    }
)
FIRST_PERSON = {"first_person_anecdote", "first_person_experience"}
INTRO = "Northwind Labs makes invoicing software for small firms, and this is our release note.\n\n"


def _codes(text: str, settings: Settings = FACTS) -> set[str]:
    return {f.code for f in validate(text, settings=settings).findings}


COMPANY_HISTORY = [
    "We shipped the new reminder schedules this autumn after a long beta.",
    "Instead we ran the new system beside the old one for Harbor Bank for six weeks.",
    "## How we tested it\n\nWe tested every template against last year's invoices.",
    "We started in 2016 with two people and a spare room.",
    "Last spring we migrated the billing jobs to a queue, one customer at a time.",
]


@pytest.mark.parametrize("sentence", COMPANY_HISTORY)
def test_company_history_in_the_company_voice_is_not_an_anecdote(sentence: str) -> None:
    assert not _codes(INTRO + sentence) & FIRST_PERSON


@pytest.mark.parametrize("sentence", COMPANY_HISTORY[:2] + COMPANY_HISTORY[3:])
def test_the_same_we_episode_without_the_company_is_still_an_anecdote(sentence: str) -> None:
    # No company named (or none configured): "we" is a narrator claiming a past.
    plain = "This is a note about invoicing software for small firms.\n\n" + sentence
    assert _codes(plain) & FIRST_PERSON
    assert _codes(INTRO + sentence, Settings()) & FIRST_PERSON


@pytest.mark.parametrize(
    "sentence",
    [
        "When I joined Northwind Labs in 2019, I spent my first week at a client's front desk.",
        "Last week I sat down with a founder who had tried every invoicing tool.",
        "We shipped it in March, and my manager told me it was the best week of the year.",
    ],
)
def test_an_i_episode_in_a_company_voice_post_is_still_an_anecdote(sentence: str) -> None:
    assert _codes(INTRO + "We build invoicing tools.\n\n" + sentence) & FIRST_PERSON


FILLER_CODES = {"filler_phrase", "buzzword_density", "banned_header"}
STOCK_CODES = {"filler_phrase", "buzzword_density"}
MIXED_STOCK = (
    "# Meal planning\n\nIn today's fast-paced world, meal planning is a game-changer for "
    "families.\n\n## Why it matters\n\nA seamless routine helps you unlock the full potential "
    "of your shop and embark on a holistic lifestyle.\n\n## Conclusion\n\nIt will make your "
    "week calmer."
)


def test_stock_phrasing_from_several_lists_is_counted_together() -> None:
    report = validate(MIXED_STOCK)
    stock = [f for f in report.findings if f.code in STOCK_CODES]
    for code in STOCK_CODES:  # neither list is past the threshold of 3 on its own
        assert 1 <= sum(f.code == code for f in stock) <= 3
    assert not report.approved
    assert all("promoted" in f.message for f in stock)


def test_a_phrase_on_both_lists_counts_once() -> None:
    # "delve into" (a phrase) holds "delve" (a buzzword): three places, not five findings' worth
    text = "We delve into caching. " + "Plain words about queues. " * 30 + "A vibrant tapestry."
    text += " A testament."
    report = validate(text)
    assert report.approved, report.codes()


def test_two_stock_phrases_stay_warnings() -> None:
    text = (
        "# Watering\n\nWhen it comes to houseplants, water less often. At the end of the day, "
        "the pot should drain.\n\nLet the top few centimetres dry before watering again."
    )
    report = validate(text)
    assert report.approved
    assert {f.code for f in report.findings} <= FILLER_CODES


BODY = "# Meters\n\nRead the meter twice, a day apart.\n\n"
CUT = "If the number moves, water is going somewhere, usually a cistern that keeps"
NOTES = "[^1]: Older meters count in cubic feet.\n[^2]: Discover Water, https://example.org/m\n"
REFS = "## Sources\n\n- Water UK, https://example.org/read\n"


@pytest.mark.parametrize(
    "tail",
    [
        CUT + "\n\n" + NOTES,
        CUT + "\n\n" + REFS + "\n" + NOTES,
        CUT + "\n\n" + NOTES + "\n" + REFS,
    ],
    ids=["footnotes", "sources then footnotes", "footnotes then sources"],
)
def test_a_cut_above_footnotes_is_seen(tail: str) -> None:
    assert "broken_ending" in _codes(BODY + tail, Settings())


def test_a_finished_paragraph_above_footnotes_passes() -> None:
    text = BODY + CUT + " running.\n\n" + REFS + "\n" + NOTES
    assert not _codes(text, Settings()) & {"broken_ending", "possibly_truncated"}


def test_a_cut_footnote_is_still_the_last_line() -> None:
    text = BODY + "Check the cistern first.\n\n[^1]: Older meters count in cubic feet and the"
    assert "broken_ending" in _codes(text, Settings())


KIT = "# Kit\n\nPack the night before.\n\n- Harness and shoes\n- Chalk bag\n- Helmet for routes\n"


@pytest.mark.parametrize("last", ["- Water bottles or a bladder, two", "- Snacks for about three"])
def test_a_last_item_on_a_count_asks_for_a_person(last: str) -> None:
    report = validate(KIT + last, settings=Settings())
    assert report.approved
    assert "possibly_truncated" in report.human_review_codes()


@pytest.mark.parametrize("last", ["- The recipe serves two", "- A table for two", "- Tent pegs"])
def test_a_last_item_ending_on_an_object_passes(last: str) -> None:
    assert not _codes(KIT + last, Settings()) & {"broken_ending", "possibly_truncated"}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("code", sorted(FIRST_PERSON))
def test_bad_inputs_with_company_facts(code: str) -> None:
    # The matrix runs every rule with default settings; the company-voice path needs facts.
    settings = FACTS.with_overrides(
        content_validator_disabled_rules=",".join(sorted(rule_codes() - {code})),
        content_validator_max_chars=3 * 1024 * 1024,
    )
    for name, text in INPUTS.items():
        report = validate(text, title=text[:300], settings=settings)
        assert {f.code for f in report.findings} <= {code}, name
