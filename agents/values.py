"""Values written as text: settings, environment variables, comma-separated lists.

One reading of each, so the settings (agents.settings), the stream's configuration
(streams.runtime.config), the dev launcher and the command line agree on what " yes " is, whether
"nan" is a number and whether "a,,b" names an empty reviewer. Imports nothing of ours.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["FALSE_WORDS", "TRUE_WORDS", "parse_value", "split_list"]

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def split_list(text: str) -> list[str]:
    """The items of a comma-separated list, blanks around each removed, empty items dropped
    ("a, b,,c " -> ["a", "b", "c"]; "" -> [])."""
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_value(raw: object, like: object) -> Any:
    """`raw` read as the type of `like`: a bool (true/false, yes/no, on/off, 1/0, any case; a
    bool as itself), an int, a finite float; for any other `like`, str(raw) as written.
    Blanks around a number or a word are ignored. ValueError says what is wrong, as a phrase to
    follow the caller's `NAME='raw'` ("is not an integer")."""
    if isinstance(like, bool):
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ValueError("is not a boolean (use true/false)")
    if isinstance(like, int):
        try:
            return int(str(raw).strip())
        except ValueError:
            raise ValueError("is not an integer") from None
    if isinstance(like, float):
        try:
            number = float(str(raw).strip())
        except ValueError:
            raise ValueError("is not a number") from None
        if not math.isfinite(number):
            raise ValueError("is not a finite number")
        return number
    return str(raw)
