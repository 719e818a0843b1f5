"""Critical: first-person experience a model cannot have had."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import word_matches
from schemas.records import Severity

FAMILY = "first_person"
_APOS = "['\u2019]"

_FIRST_PERSON_I = re.compile(
    r"I (?:personally )?(?:tested|tried|reviewed|benchmarked|"
    r"spent (?:[\w-]{1,15} ){0,2}(?:days|weeks|months|years|hours) (?:testing|using|with))(?![a-z])"
    rf"|I(?:{_APOS}ve| have) (?:been using|personally used|tested|tried out|hands-on)(?![a-z])"
    r"|I (?:first )?(?:tried|tested|installed|switched)(?![a-z])"
)
_FIRST_PERSON_LOWER = re.compile(
    r"we (?:personally )?(?:tested|tried|reviewed|benchmarked|"
    r"spent (?:[\w-]{1,15} ){0,2}(?:days|weeks|months|years|hours) (?:testing|using|with))(?![a-z])"
    rf"|we(?:{_APOS}ve| have) (?:been using|personally used|tested|tried out|hands-on)(?![a-z])"
    r"|in my (?:own )?(?:experience|testing|tests)(?![a-z])"
    r"|in our (?:own )?(?:testing|tests|lab)(?![a-z])"
    r"|when i (?:first )?(?:tried|tested|used|installed|switched)(?![a-z])"
)


_FIRST_PERSON_GATE = frozenset({"i", "i've", "i\u2019ve", "we", "we've", "we\u2019ve", "my", "our"})


@rule(
    "first_person_experience",
    Severity.CRITICAL,
    FAMILY,
    'First-person experience a model cannot have ("I tested", "in my experience").',
)
def first_person_experience(ctx: Context) -> Iterator[Hit]:
    if not ctx.has_any(_FIRST_PERSON_GATE):
        return
    found = [
        match
        for text, pattern in ((ctx.prose, _FIRST_PERSON_I), (ctx.lower, _FIRST_PERSON_LOWER))
        for match in word_matches(pattern, text)
    ]
    last_end = -1
    for match in sorted(found, key=lambda m: m.start()):
        if match.start() < last_end:
            continue  # "when I tried" is one claim, not two
        last_end = match.end()
        yield Hit(match.start(), match.end(), "first-person experience the writer cannot have")
