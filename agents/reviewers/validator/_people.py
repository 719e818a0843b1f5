"""Critical: people the writer made up, and quotes it put in their mouths.

A stock first name with a surname and a job title is the model's favourite invented expert; a
quotation attributed to someone, with no source in its paragraph, cannot be checked. A link in the
paragraph clears a quote, not a person: a link does not make "Sarah Mitchell, CTO" real.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._sources import has_source
from agents.reviewers.validator._text import word_matches
from schemas.records import Severity

FAMILY = "fake_people"

# First names models reach for when inventing an expert.
_STOCK_FIRST_NAMES = (
    "Sarah|Sara|John|Jane|Emily|Emma|Michael|David|Jessica|Jennifer|Mark|Lisa|Laura|Alex|"
    "Alexandra|Chris|Rachel|Daniel|Maria|Mike|James|Robert|Tom|Anna|Amanda|Kevin|Brian|Linda|"
    "Karen|Susan|Elena|Priya|Raj|Marcus|Olivia|Sophia|Liam|Noah|Ethan|Mia|Ava|Jake|Ryan|Megan|"
    "Hannah|Nina|Maya|Amelia|Grace|Claire|Julia|Kate|Katie|Dan|Steve|Paul|Peter|Anthony|"
    "Matthew|Andrew|Jason|Eric|Lauren|Ashley|Nicole|Rebecca|Natalie|Samantha|Sam|Ben|Nathan|"
    "Lucas|Sofia|Carlos|Ahmed|Omar|Aisha|Wei|Kenji|Arjun|Ananya|Rohan|Mei|Tyler|Jordan"
)
_STOCK_GATE = frozenset(_STOCK_FIRST_NAMES.lower().split("|"))
_SURNAME = r"(?:[A-Z]\. )?(?:O['\u2019])?[A-Z][a-z'\u2019-]{1,30}(?![\w'\u2019-])"
# Starts with an uppercase letter, which is rare in prose, so the scan is fast without \b.
_PERSON = re.compile(rf"(?:{_STOCK_FIRST_NAMES}) {_SURNAME}")
_ROLES = (
    r"(?:ceo|cto|cfo|coo|cmo|cio|ciso|founder|co-founder|cofounder|director|head|vp|svp|evp"
    r"|vice president|president|manager|engineer|analyst|researcher|scientist|professor"
    r"|expert|consultant|specialist|architect|developer|strategist|lead|officer|partner|sre"
    r"|chief [a-z]+|owner|editor|economist|designer|advisor|adviser|principal|fellow)"
)
# Words one of the roles needs (a gate: without any, no name can have a role).
_ROLE_WORDS = frozenset(
    {
        *("ceo", "cto", "cfo", "coo", "cmo", "cio", "ciso", "founder", "co-founder", "cofounder"),
        *("director", "head", "vp", "svp", "evp", "vice", "president", "manager", "engineer"),
        *("analyst", "researcher", "scientist", "professor", "expert", "consultant", "specialist"),
        *("architect", "developer", "strategist", "lead", "officer", "partner", "sre", "chief"),
        *("owner", "editor", "economist", "designer", "advisor", "adviser", "principal", "fellow"),
    }
)
# A role right after a name (matched on the lowercased text): ", a senior analyst at",
# " (CTO, ...", " | Staff engineer,", " \u2014 head of product", ":** CFO of".
_ROLE_AFTER_NAME = re.compile(
    r"\*{0,2}(?:,|:| ?[|\u2014\u2013(]| -)? ?\*{0,2} ?(?:a |an |the |who is (?:a |an |the )?"
    r"|is (?:a |an |the )?|was (?:a |an |the )?|our |their )?(?:[\w-]{1,20} ){0,3}?"
    rf"{_ROLES}(?![a-z])"
)
# Real public figures whose first name happens to be a stock one.
_KNOWN_PEOPLE = frozenset(
    {
        *("Mark Zuckerberg", "Michael Dell", "Lisa Su", "John Collison", "Brian Chesky"),
        *("Daniel Ek", "Peter Thiel", "Steve Jobs", "Steve Wozniak", "Steve Ballmer"),
        *("Paul Graham", "James Gosling", "John Carmack", "Ryan Dahl", "Chris Lattner"),
        *("Linda Yaccarino", "Susan Wojcicki", "David Solomon", "Jane Fraser", "Kate Crawford"),
        *("Sam Altman", "Andrew Ng", "Marc Andreessen", "Jensen Huang", "Tim Cook"),
    }
)


@rule(
    "fabricated_person",
    Severity.CRITICAL,
    FAMILY,
    "An invented expert: a stock first name and a surname with a job title (whatever the "
    "organisation), or Dr./Prof. and two names, with no source in the paragraph.",
)
def fabricated_person(ctx: Context) -> Iterator[Hit]:
    text, low = ctx.prose, ctx.lower
    if ctx.has_any(_STOCK_GATE):
        for match in word_matches(_PERSON, text):
            name = match.group(0)
            if name in _KNOWN_PEOPLE:
                continue
            if _ROLE_AFTER_NAME.match(low, match.end(), match.end() + 90):
                yield Hit(
                    match.start(), match.end(), f"likely invented person: {name!r} with a role"
                )
    if ctx.has_any(_HONORIFIC_GATE):
        for match in word_matches(_HONORIFIC, text):
            if not has_source(text, match.start()):
                yield Hit(match.start(), match.end(), f"unsourced expert {match.group(0)!r}")


# "Dr. Smith Williams", "Prof. Anna Lindqvist": an authority with a title and no source.
_HONORIFIC = re.compile(
    r"(?:Dr|Prof|Professor)\.? [A-Z][a-z'\u2019-]{1,20} [A-Z][a-z'\u2019-]{1,30}"
)
_HONORIFIC_GATE = frozenset({"dr", "prof", "professor"})
# Any two capitalised names with a job title: maybe a real executive, maybe not; no rule knows.
_ANY_PERSON = re.compile(rf"[A-Z][a-z]{{1,15}} {_SURNAME}")
_NOT_FIRST_NAMES = frozenset(
    {
        *("The", "This", "That", "These", "Those", "Our", "Your", "Their", "His", "Her", "Its"),
        *("A", "An", "In", "On", "At", "For", "With", "From", "By", "And", "But", "If", "When"),
        *("New", "Open", "Google", "Microsoft", "Apple", "Amazon", "Meta", "Red", "Big", "Chief"),
    }
)


@rule(
    "unsourced_person",
    Severity.WARNING,
    FAMILY,
    "A named person with a job title and no source in the paragraph: real or invented, a "
    "person should check.",
    human_review=True,
)
def unsourced_person(ctx: Context) -> Iterator[Hit]:
    if ctx.words.isdisjoint(_ROLE_WORDS):
        return
    text, low = ctx.prose, ctx.lower
    for match in word_matches(_ANY_PERSON, text):
        first = match.group(0).split(" ", 1)[0]
        if first in _NOT_FIRST_NAMES or first.lower() in _STOCK_GATE:
            continue  # a stock name is fabricated_person's (critical) case
        if match.group(0) in _KNOWN_PEOPLE:
            continue
        role = _ROLE_AFTER_NAME.match(low, match.end(), match.end() + 90)
        if role is not None and not has_source(text, match.start()):
            yield Hit(match.start(), role.end(), f"unsourced person {match.group(0)!r} with a role")


_QUOTATION = re.compile(r"[\"\u201c][^\"\u201c\u201d\n]{10,400}[\"\u201d]")
_SAYS = (
    r"(?:said|says|explains|explained|notes|noted|adds|added|recalls|recalled|argues|argued"
    r"|writes|wrote|observes|observed|warns|warned|insists|insisted|quipped|remarked|tells|told"
    r"|puts it|put it|calls it|called it|according to)"
)
_SPEAKER_AFTER = re.compile(rf",? ?{_SAYS} (?:[\w-]{{1,20}} ){{0,2}}?[A-Z][\w.'\u2019-]{{1,30}}")
# An attribution line under a quote: "> \u2014 Maria Gonzalez, VP of Marketing".
_DASH_AFTER = re.compile(r"[ \t]*(?:\n[ \t]*>?[ \t]*){0,3}[\u2014\u2013-]{1,2} ?[A-Z][a-z]+ [A-Z]")
_SPEAKER_BEFORE = re.compile(
    r"[A-Z][a-z]{1,20} [A-Z][\w'\u2019-]{1,30},? (?:[\w-]{1,20} ){0,4}?"
    rf"{_SAYS}(?: [\w-]{{1,20}}){{0,5}}[,:]? ?$"
)


@rule(
    "fabricated_quote",
    Severity.CRITICAL,
    FAMILY,
    "A quotation attributed to a person (after it, before it, or on a dash line under it) with "
    "no source in its paragraph.",
)
def fabricated_quote(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    # The quotation pattern starts with a character class, which `re` tries at every position:
    # a draft without double quotes skips the scan.
    if '"' not in text and "\u201c" not in text:
        return
    for quote in _QUOTATION.finditer(text):
        after = _SPEAKER_AFTER.match(text, quote.end(), quote.end() + 60)
        after = after or _DASH_AFTER.match(text, quote.end(), quote.end() + 40)
        before = None
        if after is None:
            window_start = max(0, quote.start() - 120)
            before = _SPEAKER_BEFORE.search(text, window_start, quote.start())
        if after is None and before is None:
            continue
        if has_source(text, quote.start()):
            continue
        start = before.start() if before is not None else quote.start()
        end = after.end() if after is not None else quote.end()
        yield Hit(start, end, "attributed quote with no source")
