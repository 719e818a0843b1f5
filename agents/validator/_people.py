"""Critical: people the writer made up, and quotes it put in their mouths.

A stock first name with a surname and a job title is the model's favourite invented expert; a
quotation attributed to someone, with no source in its paragraph, cannot be checked. A link in the
paragraph clears a quote, not a person: a link does not make "Sarah Mitchell, CTO" real.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import paragraph_has_source, word_matches
from schemas.records import Severity

FAMILY = "fake_people"

# First names models reach for when inventing an expert.
_STOCK_FIRST_NAMES = (
    "Sarah|Sara|John|Jane|Emily|Emma|Michael|David|Jessica|Jennifer|Mark|Lisa|Laura|Alex|"
    "Alexandra|Chris|Rachel|Daniel|Maria|Mike|James|Robert|Tom|Anna|Amanda|Kevin|Brian|Linda|"
    "Karen|Susan|Elena|Priya|Raj|Marcus|Olivia|Sophia|Liam|Noah|Ethan|Mia|Ava|Jake|Ryan|Megan|"
    "Hannah|Nina|Maya|Amelia|Grace|Claire|Julia|Kate|Katie|Dan|Steve|Paul|Peter|Anthony"
)
_STOCK_GATE = frozenset(_STOCK_FIRST_NAMES.lower().split("|"))
# Starts with an uppercase letter, which is rare in prose, so the scan is fast without \b.
_PERSON = re.compile(
    rf"(?:{_STOCK_FIRST_NAMES}) (?:[A-Z]\. )?[A-Z][a-z'\u2019-]{{1,30}}(?![\w'\u2019-])"
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
        "Peter Thiel",
        "Steve Jobs",
        "Steve Wozniak",
        "Steve Ballmer",
        "Paul Graham",
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
    if not ctx.has_any(_STOCK_GATE):
        return
    text = ctx.prose
    for match in word_matches(_PERSON, text):
        name = match.group(0)
        if name in _KNOWN_PEOPLE:
            continue
        if _ROLE_AFTER_NAME.match(text, match.end(), match.end() + 90):
            yield Hit(match.start(), match.end(), f"likely invented person: {name!r} with a role")


_QUOTATION = re.compile(r"[\"\u201c][^\"\u201c\u201d\n]{10,400}[\"\u201d]")
_SPEAKER_AFTER = re.compile(
    r",? ?(?:said|says|explains|explained|notes|noted|adds|added|recalls|recalled|"
    r"told [A-Z]\w{0,20}|according to) [A-Z][\w.'\u2019-]{1,30}"
)
_SPEAKER_BEFORE = re.compile(
    r"[A-Z][a-z]{1,20} [A-Z][\w'\u2019-]{1,30},? (?:[\w-]{1,20} ){0,4}?(?:said|says|explains|"
    r"explained|notes|noted|told [A-Z]\w{0,20}|recalls|puts it)[,:]? ?$"
)


@rule(
    "fabricated_quote",
    Severity.CRITICAL,
    FAMILY,
    "A quotation attributed to a person with no source in its paragraph.",
)
def fabricated_quote(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    for quote in _QUOTATION.finditer(text):
        after = _SPEAKER_AFTER.match(text, quote.end(), quote.end() + 60)
        before = None
        if after is None:
            window_start = max(0, quote.start() - 100)
            before = _SPEAKER_BEFORE.search(text, window_start, quote.start())
        if after is None and before is None:
            continue
        if paragraph_has_source(text, quote.start()):
            continue
        start = before.start() if before is not None else quote.start()
        end = after.end() if after is not None else quote.end()
        yield Hit(start, end, "attributed quote with no source")
