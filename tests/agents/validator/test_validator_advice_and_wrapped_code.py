"""Two false rejections of issue 11 and the look-alikes that must still be caught:
"In my experience, ..." opening generic advice (first_person_experience), and a placeholder
marker shown in an inline code span that wraps onto the next line (agents.markdown)."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate


def codes(text: str) -> set[str]:
    return {f.code for f in validate(text).findings}


@pytest.mark.parametrize(
    "text",
    [
        "In my experience, small pull requests get reviewed faster.",
        "In my experience, it pays to pin versions before a release.",
        "In our experience, teams that write the test first ship fewer regressions.",
        "In my experience, a clear README saves more support time than any FAQ.",
        "In my own experience, nothing beats a checklist for a release day.",
        "In my experience you should keep the staging data small.",
        "In my experience, most outages start with a config change.",
    ],
)
def test_in_my_experience_opening_advice_is_not_an_anecdote(text: str) -> None:
    assert "first_person_experience" not in codes(text)


@pytest.mark.parametrize(
    "text",
    [
        # a claim about one thing the writer used
        "In my experience the battery lasts.",
        "In my own experience, this laptop lasts ten hours.",
        "In my experience the dough rose overnight.",
        # the experience is named: with what, doing what, where, as whom
        "In my experience with the X200, the keyboard flexes.",
        "In my experience running a bakery for ten years, most flour behaves.",
        "In our experience at Acme, the cache usually halved latency.",
        "In my experience as a baker, rye needs more time than you think.",
        # an episode after it is caught by the episode's own words
        "In my experience, when I migrated our cluster, the logs vanished.",
        # the neighbours of the phrase are unchanged
        "In my testing the battery lasts.",
        "In our lab the battery lasts.",
    ],
)
def test_in_my_experience_that_claims_an_experience_is_still_caught(text: str) -> None:
    assert "first_person_experience" in codes(text)


@pytest.mark.parametrize(
    "text",
    [
        # the marker on the span's first line, on its second line, inside HTML shown as code
        "Write the marker as `[SCREENSHOT: what it shows] and the build\nreplaces it` first.\n",
        "Write the marker as `the build replaces\n[SCREENSHOT: what it shows]` first.\n",
        'Our template writes `alt="[SCREENSHOT: settings]" data-x="1"\nclass="shot"` in.\n',
        "Write the marker as `[SCREENSHOT: what it shows]` before publishing.\n",
    ],
)
def test_a_marker_in_a_wrapped_code_span_is_no_placeholder(text: str) -> None:
    assert "placeholder" not in codes(text)


@pytest.mark.parametrize(
    "text",
    [
        # in prose
        "Here is the page.\n[SCREENSHOT: settings page]\nThen save.\n",
        # a span cannot cross a blank line or a line that opens another block: the backticks
        # are literal and the marker is prose
        "Write the marker as `the build replaces\n\n[SCREENSHOT: what it shows]` first.\n",
        "Write the marker as `the build replaces\n- [SCREENSHOT: what it shows]` first.\n",
        "Write the marker as `the build replaces\n# [SCREENSHOT: what it shows]` first.\n",
        # an unclosed backtick hides nothing
        "Write the marker as `the build replaces\n[SCREENSHOT: what it shows] first.\n",
    ],
)
def test_a_marker_outside_code_is_still_a_placeholder(text: str) -> None:
    assert "placeholder" in codes(text)
