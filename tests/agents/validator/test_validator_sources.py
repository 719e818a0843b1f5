"""_sources.has_source: where a claim's source may stand, and where it may not (issue 11).

A statistic is sourced by a link in its paragraph, by the linked lead-in of the list or table it
sits in, by a "Source:" / "That figure comes from" paragraph right under it, by a reference-style
link or a numbered citation that resolves, or by the paragraph under a heading; a link elsewhere
in the draft does not source it.
"""

from __future__ import annotations

import random

import pytest

from agents.reviewers.validator import validate
from agents.reviewers.validator._sources import has_source

FIGURE = "About 62% of shoppers leave without paying."
LINK = "[the Baymard survey](https://baymard.com/lists/cart-abandonment-rate)"


def _flagged(text: str) -> bool:
    return "unsourced_statistic" in validate(text).codes()


@pytest.mark.parametrize(
    "text",
    [
        f"{FIGURE} So says {LINK}.",
        f"The figures below are from {LINK}:\n\n- {FIGURE}\n- More leave on mobile.",
        f"The table sums up {LINK}.\n\n| Finding |\n|---|\n| {FIGURE} |",
        f"{FIGURE}\n\nSource: {LINK}",
        f"{FIGURE}\n\nThat figure comes from {LINK}.",
        f"{FIGURE} See [the survey][baymard].\n\n[baymard]: https://baymard.com/lists",
        f"{FIGURE} See [baymard].\n\n[Baymard]: https://baymard.com/lists",
        f"{FIGURE} [1]\n\n## References\n\n1. {LINK}",
        f"## {FIGURE}\n\nThe number comes from {LINK}.",
        f"We read {LINK} closely.\n\nIn it, respondents said: {FIGURE.lower()}",
        f"{FIGURE} ({LINK})\n\n## Later\n\nAgain: {FIGURE.lower()} That is a lot.",
    ],
    ids=[
        "same paragraph",
        "list after a linked lead-in",
        "table after a linked paragraph",
        "source line under it",
        "figure-from paragraph under it",
        "reference-style link",
        "shortcut reference link",
        "numbered citation with a references list",
        "heading with its source under it",
        "refers back to the source before it",
        "the same figure repeated after it was sourced",
    ],
)
def test_sourced_figures_pass(text: str) -> None:
    assert not _flagged(text)


@pytest.mark.parametrize(
    "text",
    [
        FIGURE,
        f"{LINK} is a good read.\n\n{FIGURE}",  # a link in another paragraph, no lead-in
        f"{FIGURE}\n\nWe like {LINK}.",  # the paragraph under it is not about the figure
        f"{FIGURE} See [the survey][nowhere].\n\n[elsewhere]: https://example.org",
        f"{FIGURE} [1]\n\n## References\n\n1. A book nobody can check.",
        f"## Intro\n\nRead {LINK}.\n\n## Results\n\n- {FIGURE}",  # a heading starts the section
        f"{LINK}\n\n## Numbers\n\n{FIGURE}",
    ],
    ids=[
        "no source",
        "link in an unrelated paragraph",
        "unrelated paragraph under it",
        "not a reference link",
        "citation with an unlinked references list",
        "a heading between the lead-in and the list",
        "a heading between the link and the figure",
    ],
)
def test_unsourced_figures_reject(text: str) -> None:
    assert _flagged(text)


MIB = 1024 * 1024
BAD = {
    "empty": "",
    "whitespace": " \n\t" * 100_000,
    "NUL": "[1]\x00](\x00" * 100_000,
    "lone surrogates": "\ud800[\udfff]: x\n\n" * 50_000,
    "binary-looking": bytes(random.Random(9).randrange(256) for _ in range(200_000)).decode(
        "latin-1"
    ),
    "2 MiB of one paragraph": "a " * MIB,
    "2 MiB of paragraph breaks": "\n" * (2 * MIB),
    "many definitions": "[x]: y\n" * 200_000,
    "nested brackets": "[" * 100_000 + "1" + "]" * 100_000,
    "2 MiB run of ':'": ":" * (2 * MIB),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_inputs(name: str) -> None:
    text = BAD[name]
    for pos in (0, len(text) // 2, max(0, len(text) - 1)):
        assert has_source(text, pos) in (True, False)
