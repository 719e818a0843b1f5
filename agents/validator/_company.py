"""Critical: facts about the publishing company that the writer cannot know."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import word_matches
from schemas.records import Severity

FAMILY = "company_claim"
_APOS = "['\u2019]"

_COMPANY_CLAIMS = (
    re.compile(
        r"our (?:team|staff|company|agency) of (?:over |more than |nearly )?\d{1,6}(?!\d)"
        r"|our \d{1,6}\+? (?:employees|engineers|experts|staff|specialists|consultants|clients|"
        r"customers|members|writers)(?![a-z])"
    ),
    re.compile(
        rf"we(?:{_APOS}ve| have) (?:spent|invested) (?:over |more than |nearly |almost |"
        r"the last |the past )?(?:\d{1,3}|a decade|decades|two decades|years)(?![a-z])"
        rf"|we(?:{_APOS}ve| have) been (?:doing|working|helping|building|serving|in business)"
        r"[^.\n]{0,40}? (?:for|since) (?:over |more than |nearly |almost )?(?:\d{1,4}|a decade)"
        rf"|we(?:{_APOS}ve| have) (?:helped|served|worked with|trained|supported) "
        r"(?:over |more than |nearly |almost )?\d[\d,]{0,9}\+? (?:clients|customers|companies|"
        r"businesses|students|people|brands|teams|organi[sz]ations)(?![a-z])"
    ),
    re.compile(
        r"since (?:we (?:were )?founded|our founding|we started)(?: the company)?"
        r" in (?:19|20)\d\d(?!\d)"
    ),
)


@rule(
    "unknowable_company_claim",
    Severity.CRITICAL,
    FAMILY,
    'A company fact the writer cannot know ("our team of 40", "we have spent 10 years").',
)
def unknowable_company_claim(ctx: Context) -> Iterator[Hit]:
    for pattern in _COMPANY_CLAIMS:
        for match in word_matches(pattern, ctx.lower):
            yield Hit(match.start(), match.end(), "company claim the writer cannot know")
