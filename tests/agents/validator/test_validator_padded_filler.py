"""Stock filler pooled across its kinds: a generic header next to stock phrases or buzzword-heavy
prose is one more place of the same padding (agents/reviewers/validator/_core._pooled_codes), so a
short draft padded with several kinds is rejected although no single kind passes the threshold,
while one header or one idiom (or one of each) stays a warning. Also the stock sign-off phrases
and closing headers added for it, and bad input for their patterns."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from agents.reviewers.validator._core import Context, build_context
from agents.reviewers.validator._style import banned_header, filler_phrase
from agents.settings import Settings
from schemas.records import Severity

_BODY = (
    "Bread dough rises because yeast turns sugar into gas. A warm kitchen speeds it up and a "
    "cold one slows it down, which is why a loaf proved overnight in the fridge tastes richer.\n\n"
    "## Shaping\n\nFold the dough towards the middle, turn it over and drag it across the bench "
    "so the surface tightens.\n\n"
)


def _codes(text: str) -> dict[str, Severity]:
    return {f.code: f.severity for f in validate(text).findings}


def test_header_plus_three_stock_lines_is_a_padded_draft() -> None:
    """Three filler places alone are under the threshold (3); the generic header over them is the
    fourth place of the same padding, so the draft is rejected."""
    closing = (
        "## Wrapping Up\n\nAt the end of the day, bread is simple. When it comes to baking, "
        "practice wins. It's worth noting that flour varies.\n"
    )
    phrases_only = validate(_BODY + closing.replace("## Wrapping Up", "## Practice"))
    assert phrases_only.approved  # three places: warnings
    report = validate(_BODY + closing)
    assert not report.approved
    promoted = {f.code for f in report.findings if f.severity == Severity.CRITICAL}
    assert promoted == {"banned_header", "filler_phrase"}


def test_buzzwords_and_header_and_phrases_pool() -> None:
    text = (
        "Embarking on baking means navigating the complexities of flour; this guide unlocks and "
        "showcases the seamless basics.\n\n" + _BODY + "## Final Words\n\nA loaf is a journey, "
        "not a destination.\n"
    )
    report = validate(text)
    assert not report.approved
    assert {"banned_header", "buzzword_density", "filler_phrase"} <= set(report.codes())


@pytest.mark.parametrize(
    "extra",
    [
        "## Conclusion\n\nProve the dough until it springs back slowly.\n",
        "## Conclusion\n\nWhen it comes to proving, patience beats heat.\n",
        "## Summary\n\nIn summary, keep the dough warm.\n",
    ],
)
def test_one_header_and_one_idiom_stay_warnings(extra: str) -> None:
    report = validate(_BODY + extra)
    assert report.approved
    assert report.findings and all(f.severity == Severity.WARNING for f in report.findings)


def test_headers_alone_still_count_on_their_own() -> None:
    """Only headers: the upstream count (four generic headers, not three, reject)."""
    three = "".join(
        f"## {h}\n\nText about dough.\n\n" for h in ("Introduction", "Overview", "Summary")
    )
    assert validate(three).approved
    assert not validate(three + "## Conclusion\n\nMore dough.\n").approved


@pytest.mark.parametrize(
    "line",
    [
        "And there you have it, a loaf.",
        "You are well on your way to better bread.",
        "This takes your sourdough to the next level.",
        "Your baking will soar to new heights.",
        "A recipe that will stand the test of time.",
        "Hydration is a delicate dance of water and flour.",
        "So why wait? Start tonight.",
        "Happy kneading!",
        "A scale is a powerful tool in your baking toolkit.",
        "Home baking has never been easier.",
        "Starting out can be a daunting task.",
        "Whether you are a nervous beginner or a seasoned baker, read on.",
        "Every starter has a story waiting to be uncovered.",
        "The crumb offers invaluable insights.",
        "Embrace the journey of bread.",
        "Simply put, heat kills yeast.",
        "It will elevate your bread game.",
    ],
)
def test_stock_sign_offs_warn(line: str) -> None:
    report = validate(line)
    found = [f for f in report.findings if f.code == "filler_phrase"]
    assert found and all(f.severity == Severity.WARNING for f in found)
    assert report.approved


@pytest.mark.parametrize(
    "line",
    [
        "The next level of the car park is closed.",
        "The sign was happy, kneading aside.",
        "A delicate balance of salt and water.",
        "Bread has never been cheaper to make than jam.",
    ],
)
def test_look_alikes_do_not_warn(line: str) -> None:
    assert "filler_phrase" not in _codes(line)


@pytest.mark.parametrize(
    "header", ["In Summary", "Summing Up", "Final Words", "Closing Remarks", "The Bottom Line"]
)
def test_closing_headers_warn(header: str) -> None:
    assert _codes(f"Intro text.\n\n## {header}\n\nA recap.\n").get("banned_header") == (
        Severity.WARNING
    )


def _ctx(text: str) -> Context:
    return build_context(text, settings=Settings())


_BAD = [
    "",
    "\x00" * 1000 + "happy " * 10,
    "\ud800 so why wait \udfff" * 100,
    "happy " + "a" * 2_000_000 + "ing!",
    ("whether you are a " + "nervous " * 5000) * 2,
    "on your " + "x-" * 1_000_000 + " journey",
    ("powerful tool in your " + "big " * 3) * 50_000,
    "\n## in summary" * 100_000,
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("text", _BAD, ids=range(len(_BAD)))
def test_bad_input_for_the_new_patterns(text: str) -> None:
    ctx = _ctx(text)
    list(filler_phrase(ctx))
    list(banned_header(ctx))
    validate(text)
