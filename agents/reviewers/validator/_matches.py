"""Combining the matches of several patterns as one alternation would find them.

`re` finds a pattern that starts with one literal with a fast substring search, but tries an
alternation of several different starts ("[" | "(" | "{") at every character of the text. Rules
therefore split such an alternation into one pattern per leading literal, run each only when its
literal occurs, and merge the results with `leftmost`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def leftmost(matches: Iterable[re.Match[str]]) -> list[re.Match[str]]:
    """Matches in order of start, skipping any that begins inside an earlier kept one: what one
    alternation of the patterns finds when no two of them can match at the same position."""
    kept: list[re.Match[str]] = []
    last_end = -1
    for match in sorted(matches, key=lambda m: m.start()):
        if match.start() >= last_end:
            kept.append(match)
            last_end = match.end()
    return kept
