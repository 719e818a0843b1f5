"""A figure about the company itself: part of `unconfirmed_company_claim` (`_company_kinds`).

Whatever the wording, a company claim with a figure has two parts in one sentence: the company
as the subject ("we", "our clients", "Northwind Labs") and a count, share, sum or rating of
something a business has (clients, projects, bookings, reviews, offices, a retention rate, a
turnover). The figure is found first (digits and currency signs are rare in prose, so the scan
is cheap), then its sentence is checked for the company's voice and for an assertion. A figure
the settings can confirm passes (the team size, the company's age); the rest cannot be known.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from agents.reviewers.validator import _company
from agents.reviewers.validator._core import Context, Hit
from agents.reviewers.validator._text import sentence_span

_A = "['\u2019]"
_BUSINESS = (
    r"(?:clients?|customers?|projects?|businesses|companies|brands|clinics|practices|shops"
    r"|stores|merchants|retailers|restaurants|agencies|organi[sz]ations|users|members"
    r"|subscribers|students|patients|bookings|orders|transactions|payments|shipments"
    r"|deliveries|installs|downloads|sites|websites|apps|launches|reviews|ratings?|stars?"
    r"|countries|cities|markets|offices|locations|studios|branches|awards|partners|patents"
    r"|retention|satisfaction|nps|uptime|growth|revenue|turnover|profit|sales|arr|mrr"
    r"|million|billion|employees|staff|people|engineers|developers|designers|specialists"
    r"|consultants|experts|years|decades|per cent|percent|hours|days|weeks)"
)
_PEOPLE = frozenset(
    ("employees", "staff", "people", "engineers", "developers", "designers", "specialists")
) | {"consultants", "experts"}
_TIME = frozenset(("hours", "days", "weeks"))
_THEIRS = ("clients", "customers", "users")
_WORD_NUMBERS = (
    "two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty"
    " fifty sixty seventy eighty ninety hundred hundreds thousand thousands dozen dozens"
)
_NUMBER_WORDS = frozenset(_WORD_NUMBERS.split())
# The figure and the business noun after it ("300 projects", "98% client retention", "4.9-star
# rating", "£2.4 million"). Found from a digit or a currency sign, or from a number word.
_FIGURE = re.compile(
    r"[$\u20ac\u00a30-9](?:(?<=[0-9])|(?=[0-9]))[\d,.]*"
    r"(?:\+|%|-star| ?(?:million|billion|thousand|k|m|bn))?"
    rf"(?: (?:[a-z-]+ ){{0,2}}?(?P<noun>{_BUSINESS}))?(?![a-z])"
)
_WORD_FIGURE = re.compile(
    r"(?:" + "|".join(_WORD_NUMBERS.split()) + r")(?:[- ](?:one|two|three|four|five|six|seven"
    rf"|eight|nine|hundred|thousand))?(?: (?:[a-z-]+ ){{0,2}}?(?P<noun>{_BUSINESS}))(?![a-z])"
)
# What makes a sentence advice, a condition or someone else's claim rather than the company's.
_NOT_ASSERTED = re.compile(
    rf"(?<![a-z])(?:if|when|whenever|once|whether|unless|suppose|imagine|how to|you|your|should"
    rf"|could|would|might|can|will|we{_A}ll|let{_A}s|this guide|this post|in this|aim to"
    r"|plan to|hope to|want to|goal is|claim|claims"
    r"|example|e\.g\.|for instance|say)(?![a-z])"
)
_YEAR = re.compile(r"(?:19|20)\d\d")


@functools.lru_cache(maxsize=16)
def _voice(company: str) -> re.Pattern[str]:
    """The company as the subject at the start of the sentence's clause before the figure."""
    name = re.escape(company.lower()) if company.strip() else "(?!x)x"
    return re.compile(
        rf"(?<![a-z{_A[1:-1]}])(?:we|we{_A}re|we{_A}ve|our(?= [$\u20ac\u00a3\d])"
        r"|our (?:company|team|agency|studio|firm"
        r"|business|platform|product|app|software|service|tool|clients|customers|users|work"
        rf"|portfolio)|{name})(?![a-z])"
    )


def metric_hits(ctx: Context) -> Iterator[Hit]:
    """Figures about the company the settings cannot confirm (see the module docstring)."""
    low = ctx.lower
    if ctx.words.isdisjoint(("we", "our", "us", "we're", "we've", "we\u2019re", "we\u2019ve")):
        name_words = ctx.settings.company_name.lower().split()
        if not name_words or ctx.words.isdisjoint(name_words):
            return
    voice = _voice(ctx.settings.company_name)
    matches = list(_FIGURE.finditer(low))
    for word in ctx.words & _NUMBER_WORDS:
        pos = low.find(word)
        while pos != -1:
            found = _WORD_FIGURE.match(low, pos) if _word_start(low, pos) else None
            if found is not None:
                matches.append(found)
            pos = low.find(word, pos + 1)
    seen_until = -1
    for match in sorted(matches, key=lambda m: m.start()):
        noun = match.group("noun") or ("money" if low[match.start()] in "$\u20ac\u00a3" else None)
        if noun is None or match.start() < seen_until or not _word_start(low, match.start()):
            continue
        begin, stop = sentence_span(low, match.start(), match.end(), reach=240)
        if low.endswith("our ", 0, match.start()):
            subject: re.Match[str] | None = voice.match(low, match.start() - 4)  # "our 98% ..."
        else:
            subject = voice.search(low, begin, match.start())
        if noun in _TIME and (subject is None or not subject.group(0).endswith(_THEIRS)):
            continue  # "12 hours a week" is a figure about the company only as its clients' gain
        if subject is None or _NOT_ASSERTED.search(low, begin, stop) is not None:
            continue
        why = _judge(match, noun, ctx)
        if why is not None:
            seen_until = stop
            yield Hit(subject.start(), match.end(), why)


def _judge(match: re.Match[str], noun: str, ctx: Context) -> str | None:
    figure = match.group(0)
    said = ctx.prose[match.start() : match.end()]
    if _YEAR.fullmatch(figure.split(" ", 1)[0]):
        return None  # a year ("since 2021") is judged by `_company`
    number = figure.split(" ", 1)[0].rstrip("+%").replace(",", "")
    if noun in _PEOPLE:
        return None  # headcounts: `_company` reads their wordings ("two developers on call")
    if noun in ("years", "decades"):
        # the company's age, in digits or words ("four years"): judged against the founding year
        count = int(number) if number.isdigit() else _company._number(number)
        return _company._age(count * (10 if noun == "decades" else 1), None, ctx) if count else None
    return f"company figure no company_* setting can confirm: {said!r}"


def _word_start(text: str, pos: int) -> bool:
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] in "_.,-")
