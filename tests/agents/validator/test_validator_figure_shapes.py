"""Issue 11, session 5: unsourced figures recognised by what they assert, whatever the wording.

A share of a population whatever it is called ("five in eight anglers", "used by a quarter of
commuters"), a vague source a few words away from what it is made to find ("polls of renters
keep showing"), a multiple or a quantifier put on such a source ("triples", "the majority"),
estimates nobody wrote ("by trade estimates") and a change since a year followed by a comma.
Each case is beside look-alikes that must pass: units, product names, hypothetical cases,
linked sources and superlatives. The wordings are this file's own (none from the corpus).
"""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from tests.agents.validator.shapes import assert_none_of, assert_rejected_by

STATS = {"unsourced_statistic", "vague_attribution", "unsourced_quantity"}
PAD = "Keep the jars clean and label them with the date.\n\n"

FLAGGED = [
    "Five in eight anglers who lose a fish blame the knot, not the line.",
    "Roughly three out of ten seedlings sold in garden centres are already root-bound.",
    "- Two in five cyclists ride without lights at least once a winter.",
    "| Wax | used by about a quarter of hobby skiers |",
    "Most saddles are chosen by nearly half of the riders who test them in a shop.",
    "Polls of renters keep showing that one complaint in three is about damp.",
    "Studies from several universities have found that nappers recall twice as many words.",
    "> Nutritionists believe that skipping breakfast doubles the urge to snack.",
    "Food scientists estimate that the risk triples after a week in the fridge.",
    "By trade estimates, the majority of boiler faults start with low pressure.",
    "Going by most estimates, nearly all of the lost keys turn up within a day.",
    "Ferry bookings have doubled since 2019, most of them for day trips.",
    "Allotment waiting lists tripled in 2021, according to nobody in particular.",
    "Across the UK, one in every three adults now owns an air fryer.",
    "Farriers agree that most lame horses have a hoof problem.",
    "It is widely reported that half of new allotments are abandoned within a year.",
    "Estimates put the share of unused gym memberships at over half.",
    "Tide tables are easy to read.[^1]\n\n[^1]: Harbour staff say half of all groundings happen"
    " on a falling spring tide.",
]
CLEAN = [
    "Mix one part bleach in ten parts water and wipe the surface.",
    "Bake it for 20 minutes, then check it every 2 in 10 minutes if your oven runs cool.",
    "A 2 in 1 charger saves a plug socket on the desk.",
    "Win 3 in 5 rounds to take the match.",
    "Say half of your cuttings fail: take a few more than you need.",
    "A jacket picked by a third of the walkers you know can still be wrong for your hills.",
    "Researchers have found several ways to keep bread fresh, but most of them need a freezer.",
    "Experts say the most common mistake is overwatering.",
    "The dough doubles in size in about two hours at room temperature.",
    "[A 2023 survey](https://example.org/survey) found that four in five anglers use barbless"
    " hooks.",
    "Ferry bookings open in 2019 style: choose a date, then a sailing.",
    "At most two people should carry the ladder.",
    "One in three of these steps can be skipped if you use a stand mixer.",
    "Cut the recipe by half if you are cooking for two.",
    "- Cut the sugar by a third for a sharper jam.",
]


@pytest.mark.parametrize("text", FLAGGED)
def test_unsourced_figures_are_critical(text: str) -> None:
    assert_rejected_by(text, PAD, STATS)


@pytest.mark.parametrize("text", CLEAN)
def test_look_alikes_pass(text: str) -> None:
    assert_none_of(text, PAD, STATS)


def test_a_footnote_definition_is_no_source_for_itself() -> None:
    # The "[^1]:" label used to count as a footnote citation, sourcing whatever the note said.
    text = "Check the pressure.[^1]\n\n[^1]: Surveys show that 70% of faults start there."
    assert "vague_attribution" in validate(text).codes()
    sourced = "Surveys show that 70% of faults start there.[^1]\n\n[^1]: https://example.org/x"
    assert_none_of(sourced, PAD, STATS)
