"""Critical: company facts stated as a fact sheet ("| Founded | 2009 |", "- **Team size:** 40").

An "about us" table or list states the same facts as prose claims and is judged the same way
against the company_* settings (_company's judges). It counts only in the company's own voice:
the block, or the 300 characters before it, names the company or says "we", "our" or "about
us"; a fact table about another organisation ("| Founded | 1976 |" for Apple) is not a claim.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._company import FAMILY, _age, _clients, _names, _number
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._text import line_start_matches, paragraph_bounds
from schemas.records import Severity

# "| Founded | 2009 |" or "- **Founded:** 2009" / "Founded: 2009" at a line start.
_ROW = re.compile(
    r"\n[ \t]*(?:\|[ \t]*|[*+-][ \t]+)?\*{0,2}(?P<label>founded|established|year founded"
    r"|founding year|team size|team|employees|headcount|staff|clients|customers"
    r"|notable clients|key clients|revenue|annual revenue|arr|funding|valuation|years in business"
    r"|in business since|since|awards|recognition|accolades)\*{0,2}[ \t]*(?:\||:)\*{0,2}[ \t]*"
    r"(?P<value>[^|\n]{1,200})"
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_COUNT = re.compile(r"(?<![\d,])(?:over |more than |about |around |~)?(\d[\d,]{0,6})\+?")
_AWARD_WORDS = frozenset({"awards", "award", "recognition", "accolades", "honours", "honors"})
_VOICE = re.compile(r"(?<![a-z])(?:we|our|us|about us)(?![a-z])")


@rule(
    "company_fact_sheet",
    Severity.CRITICAL,
    FAMILY,
    "Company facts in an about-us table or list (founded, team size, clients, revenue) that "
    "contradict the company_* settings or that no setting can confirm.",
)
def company_fact_sheet(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    if ctx.has_any(_AWARD_WORDS):
        yield from _awards_sections(ctx)
    if "|" not in low and ":" not in low:
        return
    block_end, voiced = -1, False  # per block: a long table is judged once, not once per row
    for match in _ROW.finditer("\n" + low):
        start, end = match.start(), match.end() - 1  # offsets in "\n" + low, less one
        if start >= block_end:
            block_start, block_end = paragraph_bounds(low, start)
            voiced = _company_voice(ctx, block_start, block_end)
        if not voiced:
            continue
        why = _judge(match.group("label"), ctx.prose[match.start("value") - 1 : end], ctx)
        if why is not None:
            yield Hit(start, end, why)


# A section of awards: "## Awards", "**Recognition**", "### Awards & press".
_AWARDS_HEADING = re.compile(
    r"\n {0,3}(?:#{1,6}[ \t]+|\*\*)(?:our |recent |selected )?(?:awards?|recognition|accolades"
    r"|honou?rs|awards? (?:and|&) (?:recognition|press|honou?rs)|press (?:and|&) awards)"
    r"(?:\*\*)?[ \t]*:?[ \t]*(?=\n)"
)


def _awards_sections(ctx: Context) -> Iterator[Hit]:
    """A section listing the company's awards: the writer cannot know them."""
    for start, end in line_start_matches(_AWARDS_HEADING, ctx.lower):
        block_start, block_end = paragraph_bounds(ctx.lower, min(len(ctx.lower), end + 2))
        listed = ctx.lower[block_start : min(block_end, block_start + 400)].lstrip()
        is_list = listed[:1] in ("-", "*", "+", "|") or listed[:1].isdigit()
        if is_list and _company_voice(ctx, max(0, start - 1), block_end):
            heading = ctx.prose[start:end].strip()[:40]
            yield Hit(start, end, f"awards the writer cannot know: section {heading!r}")


def _company_voice(ctx: Context, block_start: int, block_end: int) -> bool:
    around = ctx.lower[max(0, block_start - 300) : min(block_end, block_start + 4000)]
    name = ctx.settings.company_name.strip().lower()
    return bool(_VOICE.search(around)) or bool(name and name in around)


def _judge(label: str, value: str, ctx: Context) -> str | None:
    settings = ctx.settings
    value = value.strip(" *|")
    if label in ("awards", "recognition", "accolades"):
        return f"awards the writer cannot know: {value!r}"
    if label in ("revenue", "annual revenue", "arr", "funding", "valuation"):
        return f"company finances the writer cannot know: {label} {value!r}"
    if label in ("clients", "customers", "notable clients", "key clients"):
        return _clients(_names(value), ctx)
    if label in ("years in business",):
        count = _COUNT.match(value)
        return _age(_number(count.group(1)), None, ctx) if count else None
    year = _YEAR.search(value)
    if label in ("founded", "established", "year founded", "founding year", "in business since"):
        if year is None:
            return None
        known = settings.company_founded_year
        if not known:
            return (
                f"founding year {year.group(0)} cannot be known (company_founded_year is not set)"
            )
        if int(year.group(0)) == known:
            return None
        return f"founded in {year.group(0)} contradicts company_founded_year={known}"
    if label == "since":
        return None if year is None else _judge("founded", year.group(0), ctx)
    count = _COUNT.match(value)
    if count is None:
        return None
    size = _number(count.group(1))
    known = settings.company_team_size
    if not known:
        return f"team size {size} cannot be known (company_team_size is not set)"
    return None if size == known else f"team size {size} contradicts company_team_size={known}"
