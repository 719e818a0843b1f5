"""Regex scans replaced by substring searches must find exactly what the regex finds.

`_statistics._percent_signs` stands for `_PERCENT.finditer`; a wrong position would silently
move or drop a finding, so it is compared with the regex it replaces on random texts built from
the pieces that make the edge cases (the literals inside words and next to each other) and on
bad inputs, under a timeout.
"""

from __future__ import annotations

import random

import pytest

from agents.reviewers.validator import _statistics

MIB = 1024 * 1024


def test_percent_signs_are_the_regex_scan() -> None:
    rng = random.Random(5)
    pieces = ["%", "percent", "per cent", "per", "cent", "percents", "%%", "a", " ", "\u00e9"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        expected = [m.span() for m in _statistics._PERCENT.finditer(text)]
        assert [m.span() for m in _statistics._percent_signs(text)] == expected, text


@pytest.mark.timeout(20)
@pytest.mark.parametrize("text", ["", "   ", "%" * MIB, "percent" * (MIB // 7), "\x00%\ud800"])
def test_percent_signs_on_bad_inputs(text: str) -> None:
    expected = [m.span() for m in _statistics._PERCENT.finditer(text)]
    assert [m.span() for m in _statistics._percent_signs(text)] == expected
