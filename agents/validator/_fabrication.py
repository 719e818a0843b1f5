"""Critical: claims the writer (a model) cannot have a source for.

Fabricated people, studies and statistics, company facts, quotes, and first-person experience.
A claim whose paragraph links a source is not flagged (except people and company facts: a link
does not make "our team of 40" true). Every pattern has bounded quantifiers only, and starts with
a literal (or a rare character class) so `re` can skip ahead quickly; see _text.word_matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import paragraph_has_source, word_matches
from schemas.records import Severity

FAMILY = "fabrication"
_APOS = "['\u2019]"

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


_STUDY_WORDS = ("study", "survey", "report", "analysis", "poll", "paper", "experiment")
_STUDY_BY_YEAR = re.compile(
    r"(?:19|20)\d\d (?:study|survey|report|analysis|poll|paper|experiment)"
    r" (?:by|from|conducted by|published by|carried out by|of)(?![a-z])"
)
_ACCORDING_TO_STUDY = re.compile(
    r"according to (?:a|one|another) (?:recent |new |major |landmark )?"
    r"(?:study|survey|report|poll|research paper|analysis)(?![a-z])"
)


@rule(
    "fabricated_study",
    Severity.CRITICAL,
    FAMILY,
    'An unsourced study ("a 2024 study by ...", "according to a recent survey").',
)
def fabricated_study(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    if not any(word in low for word in _STUDY_WORDS):
        return
    for pattern in (_STUDY_BY_YEAR, _ACCORDING_TO_STUDY):
        for match in word_matches(pattern, low):
            if not paragraph_has_source(ctx.prose, match.start()):
                yield Hit(match.start(), match.end(), "study cited without a source link")


# Found from the "%" (or "percent") backwards and forwards: the sign is rare, so this is fast.
_NUMBER_BEFORE = re.compile(r"(?<![\d.,])\d{1,3}(?:[.,]\d{1,2})? ?$")
_EFFECT_AFTER = re.compile(
    r" ?(?:increase|decrease|reduction|improvement|boost|rise|drop|growth|decline|jump|"
    r"faster|slower|uplift|higher conversion|more likely|less likely|"
    r"of (?:users|companies|businesses|people|respondents|developers|customers|marketers|"
    r"organi[sz]ations|consumers|adults|teams|enterprises|shoppers))(?![a-z])"
)
_VERB_BY_BEFORE = re.compile(
    r"(?<![a-z])(?:increase|improve|boost|reduce|cut|grow|raise|lower)(?:s|d|ed)? "
    r"(?:[\w-]{1,20} ){0,3}?by (?:up to |over |nearly |almost |about )?\d{1,3}(?:[.,]\d{1,2})? ?$"
)
_PERCENT = re.compile(r"%|percent(?![a-z])|per cent(?![a-z])")


@rule(
    "unsourced_statistic",
    Severity.CRITICAL,
    FAMILY,
    'A percentage effect with no source in its paragraph ("a 47% increase").',
)
def unsourced_statistic(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    if "%" not in low and "cent" not in low:
        return
    for sign in _PERCENT.finditer(low):
        left = low[max(0, sign.start() - 120) : sign.start()]
        number = _NUMBER_BEFORE.search(left[-10:])
        if number is None:
            continue
        start = sign.start() - (len(left[-10:]) - number.start())
        effect = _EFFECT_AFTER.match(low, sign.end(), sign.end() + 60)
        verb = None if effect else _VERB_BY_BEFORE.search(left)
        if effect is None and verb is None:
            continue
        if verb is not None:
            start = sign.start() - (len(left) - verb.start())
        end = effect.end() if effect is not None else sign.end()
        if not paragraph_has_source(ctx.prose, sign.start()):
            yield Hit(start, end, "statistic with no source")


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


# A quotation: an opening quote, 10-400 characters on one line, a closing quote.
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
