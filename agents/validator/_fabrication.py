"""Critical: claims the writer (a model) cannot have a source for.

Fabricated people, studies and statistics, company facts, quotes, and first-person experience.
A claim whose paragraph links a source is not flagged (except people and company facts: a link
does not make "our team of 40" true). Every pattern has bounded quantifiers only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import paragraph_has_source
from schemas.records import Severity

FAMILY = "fabrication"

# First names models reach for when inventing an expert.
_STOCK_FIRST_NAMES = (
    "Sarah|Sara|John|Jane|Emily|Emma|Michael|David|Jessica|Jennifer|Mark|Lisa|Laura|Alex|"
    "Alexandra|Chris|Rachel|Daniel|Maria|Mike|James|Robert|Tom|Anna|Amanda|Kevin|Brian|Linda|"
    "Karen|Susan|Elena|Priya|Raj|Marcus|Olivia|Sophia|Liam|Noah|Ethan|Mia|Ava|Jake|Ryan|Megan|"
    "Emma|Hannah|Nina|Maya|Amelia|Grace|Claire|Julia|Kate|Katie|Dan|Steve|Paul|Peter|Anthony"
)
_PERSON = re.compile(
    rf"\b(?:Dr\.? )?(?:{_STOCK_FIRST_NAMES}) (?:[A-Z]\. )?[A-Z][a-z'\u2019-]{{1,30}}\b"
)
_ROLE_AFTER_NAME = re.compile(
    r",? (?:\(|a |an |the |who is (?:a |an |the )?|is (?:a |an |the )?|was (?:a |an |the )?)?"
    r"(?:[\w-]{1,20} ){0,3}?"
    r"(?:CEO|CTO|CFO|COO|CMO|founder|co-founder|cofounder|director|head|VP|vice president|"
    r"president|manager|engineer|analyst|researcher|scientist|professor|expert|consultant|"
    r"specialist|architect|developer|strategist|lead|officer|partner)\b,? (?:of|at) [A-Z0-9]"
)
# Real public figures whose first name happens to be a stock one.
_KNOWN_PEOPLE = frozenset(
    {
        "Mark Zuckerberg",
        "Michael Dell",
        "Lisa Su",
        "John Collison",
        "Brian Chesky",
        "Daniel Ek",
        "Tom Preston-Werner",
        "Peter Thiel",
        "Steve Jobs",
        "Steve Wozniak",
        "Steve Ballmer",
        "Paul Graham",
        "Satya Nadella",
        "James Gosling",
        "John Carmack",
        "Ryan Dahl",
        "Chris Lattner",
        "Linda Yaccarino",
        "Susan Wojcicki",
        "David Solomon",
        "Jane Fraser",
        "Kate Crawford",
    }
)


@rule(
    "fabricated_person",
    Severity.CRITICAL,
    FAMILY,
    "An invented expert: stock first name + surname + a role at an organisation.",
)
def fabricated_person(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    for match in _PERSON.finditer(text):
        name = match.group(0).removeprefix("Dr. ").removeprefix("Dr ")
        if name in _KNOWN_PEOPLE:
            continue
        if _ROLE_AFTER_NAME.match(text, match.end(), match.end() + 90):
            yield Hit(match.start(), match.end(), f"likely invented person: {name!r} with a role")


_STUDY = re.compile(
    r"(?i:\b(?:a|one|another|the|this) (?:recent |new |landmark |major |groundbreaking )?"
    r"(?:(?:19|20)\d\d )(?:study|survey|report|analysis|poll|paper|experiment)"
    r" (?:by|from|conducted by|published by|carried out by)\b"
    r"|\baccording to (?:a|one|another) (?:recent |new |major |landmark )?"
    r"(?:study|survey|report|poll|research paper|analysis)\b)"
)


@rule(
    "fabricated_study",
    Severity.CRITICAL,
    FAMILY,
    'An unsourced study ("a 2024 study by ...", "according to a recent survey").',
)
def fabricated_study(ctx: Context) -> Iterator[Hit]:
    for match in _STUDY.finditer(ctx.prose):
        if not paragraph_has_source(ctx.prose, match.start()):
            yield Hit(match.start(), match.end(), "study cited without a source link")


_STATISTIC = re.compile(
    r"\b\d{1,3}(?:[.,]\d{1,2})? ?(?:%|percent\b|per cent\b) ?"
    r"(?i:increase|decrease|reduction|improvement|boost|rise|drop|growth|decline|jump|"
    r"faster|slower|uplift|higher conversion|more likely|less likely|"
    r"of (?:users|companies|businesses|people|respondents|developers|customers|marketers|"
    r"organi[sz]ations|consumers|adults|teams|enterprises|shoppers))"
    r"|(?i:\b(?:increase|improve|boost|reduce|cut|grow|raise|lower)(?:s|d|ed)? "
    r"(?:[\w-]{1,20} ){0,3}?by (?:up to |over |nearly |almost |about )?)\d{1,3}(?:[.,]\d{1,2})? ?%"
)


@rule(
    "unsourced_statistic",
    Severity.CRITICAL,
    FAMILY,
    'A percentage effect with no source in its paragraph ("a 47% increase").',
)
def unsourced_statistic(ctx: Context) -> Iterator[Hit]:
    for match in _STATISTIC.finditer(ctx.prose):
        if not paragraph_has_source(ctx.prose, match.start()):
            yield Hit(match.start(), match.end(), "statistic with no source")


_COMPANY_CLAIM = re.compile(
    r"(?i:\bour (?:team|staff|company|agency) of (?:over |more than |nearly )?\d{1,6}\b"
    r"|\bour \d{1,6}\+? (?:employees|engineers|experts|staff|specialists|consultants|clients|"
    r"customers|members|writers)\b"
    r"|\bwe(?:'ve|\u2019ve| have) (?:spent|invested) (?:over |more than |nearly |almost |the last |"
    r"the past )?(?:\d{1,3}|a decade|decades|two decades|years)\b"
    r"|\bwe(?:'ve|\u2019ve| have) been (?:doing|working|helping|building|serving|in business)"
    r"[^.\n]{0,40}? (?:for|since) (?:over |more than |nearly |almost )?(?:\d{1,4}|a decade)\b"
    r"|\bwe(?:'ve|\u2019ve| have) (?:helped|served|worked with|trained|supported) "
    r"(?:over |more than |nearly |almost )?\d[\d,]{0,9}\+? (?:clients|customers|companies|"
    r"businesses|students|people|brands|teams|organi[sz]ations)\b"
    r"|\bsince (?:we (?:were )?founded|our founding|we started)(?: the company)?"
    r" in (?:19|20)\d\d\b)"
)


@rule(
    "unknowable_company_claim",
    Severity.CRITICAL,
    FAMILY,
    'A company fact the writer cannot know ("our team of 40", "we have spent 10 years").',
)
def unknowable_company_claim(ctx: Context) -> Iterator[Hit]:
    for match in _COMPANY_CLAIM.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), "company claim the writer cannot know")


_QUOTE_THEN_SPEAKER = re.compile(
    r"[\"\u201c][^\"\u201c\u201d\n]{10,400}[\"\u201d],? ?"
    r"(?:said|says|explains|explained|notes|noted|adds|added|"
    r"recalls|recalled|told [A-Z][\w]{0,20}|according to) [A-Z][\w.'\u2019-]{1,30}"
)
_SPEAKER_THEN_QUOTE = re.compile(
    r"\b[A-Z][a-z]{1,20} [A-Z][\w'\u2019-]{1,30},? (?:[\w-]{1,20} ){0,4}?(?:said|says|explains|"
    r"explained|notes|noted|told [A-Z][\w]{0,20}|recalls|puts it)[,:]? "
    r"[\"\u201c][^\"\u201c\u201d\n]{10,400}[\"\u201d]"
)


@rule(
    "fabricated_quote",
    Severity.CRITICAL,
    FAMILY,
    "A quotation attributed to a person with no source in its paragraph.",
)
def fabricated_quote(ctx: Context) -> Iterator[Hit]:
    for pattern in (_QUOTE_THEN_SPEAKER, _SPEAKER_THEN_QUOTE):
        for match in pattern.finditer(ctx.prose):
            if not paragraph_has_source(ctx.prose, match.start()):
                yield Hit(match.start(), match.end(), "attributed quote with no source")


_FIRST_PERSON = re.compile(
    r"\b(?:I|[Ww]e) (?:personally )?(?i:tested|tried|reviewed|benchmarked|"
    r"spent (?:[\w-]{1,15} ){0,2}"
    r"(?:days|weeks|months|years|hours) (?:testing|using|with))\b"
    r"|\b(?:I|we)(?:'ve|\u2019ve| have) (?i:been using|personally used|tested|tried out|hands-on)\b"
    r"|\b(?i:in my (?:own )?(?:experience|testing|tests)|when I (?:first )?(?:tried|tested|used|"
    r"installed|switched)|in our (?:own )?(?:testing|tests|lab))\b"
)


@rule(
    "first_person_experience",
    Severity.CRITICAL,
    FAMILY,
    'First-person experience a model cannot have ("I tested", "in my experience").',
)
def first_person_experience(ctx: Context) -> Iterator[Hit]:
    for match in _FIRST_PERSON.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), "first-person experience the writer cannot have")
