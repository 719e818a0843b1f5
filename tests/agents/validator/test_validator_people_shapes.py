"""Issue 11, session 5: invented experts recognised by what the draft does with them.

A named person made an authority (a trade noun before the name, whatever the trade; a descriptor
after "according to" or a credit; an employer) and given words, advice or credit with no source
is critical, whatever the verb: a quote after a colon with no saying verb, "swears by", "gives
every client", "recommends to", "with thanks to ..., whose advice". Look-alikes must pass: a
program named before a colon, a linked source, credits with no name, people with no claim.
The wordings are this file's own (none from the corpus).
"""

from __future__ import annotations

import pytest

from tests.agents.validator.shapes import assert_none_of, assert_rejected_by

PEOPLE = {"unsourced_expert_claim", "fabricated_quote", "fabricated_person"}
PAD = "Sand the edges before you paint them.\n\n"

FLAGGED = [
    'Glazier Oona Fairbairn of the Cardiff Glass Works has a saying: "Cut once, cry once."',
    'Potter Idris Llewellyn at Kiln Lane Studio swears by it: "Wedge the clay twice."',
    "> Master cooper Anselm Rudd, who has made casks at Speyside since 2004, calls oak"
    ' "the slowest ingredient".',
    "- According to seasoned beekeeper Hester Quarrie, a quiet hive is a queenless hive.",
    "| Gutters | cleared each autumn, the advice surveyor Lionel Ashdown gives every buyer |",
    "The mortgage adviser Priyanka Desrosiers recommends to first-time buyers a two-year fix.",
    "*With thanks to arborist Caspar Wyndham-Lowe, whose advice shaped the pruning section.*",
    "As retired pilot Geoffrey Lusk likes to point out, most turbulence is harmless.",
    "Fitness coach Rhiannon Kade's advice is simple: walk before you run.",
    "This guide was reviewed by dietitian Margit Oyelowo-Finch, who added the portion sizes.",
]
CLEAN = [
    'Run Git Bash from the Start menu and type: "git log" to see the history.',
    'Open Visual Studio Code from the Applications folder and paste: "print(1)".',
    "Thanks to the maintainers of Black, formatting is automatic.",
    'Ask a mentor at your local meetup: "Which branch should I start from?"',
    "Ingrid Fairbairn, head of testing at a Leeds charity, agreed to give the closing talk.",
    "[Dr Hester Quarrie](https://example.org/bees) of the Bee Institute explains in her"
    ' [guide](https://example.org/guide): "A quiet hive is a queenless hive."',
    "Whether Lionel Ashdown says yes is up to him.",
    "Such as Lionel Ashdown, most readers skip the preface.",
    "Ada Lovelace wrote what many consider the first published algorithm.",
]


@pytest.mark.parametrize("text", FLAGGED)
def test_invented_experts_are_critical(text: str) -> None:
    assert_rejected_by(text, PAD, PEOPLE)


@pytest.mark.parametrize("text", CLEAN)
def test_look_alikes_pass(text: str) -> None:
    assert_none_of(text, PAD, PEOPLE)
