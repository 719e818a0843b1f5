"""Critical: people the writer made up, and quotes it put in their mouths.

A stock first name with a surname and a job title is the model's favourite invented expert; a
quotation attributed to someone, with no source in its paragraph, cannot be checked. A link in the
paragraph clears a quote, not a person: a link does not make "Sarah Mitchell, CTO" real.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator import _leads
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._sources import has_source
from agents.reviewers.validator._text import (
    line_bounds,
    line_start_matches,
    paragraph_bounds,
    word_matches,
)
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
# Capitals and small letters of Latin-1 and Latin Extended-A as well as ASCII: invented experts
# are often given accented names ("Inés Álvarez").
_UP = "A-Z\u00c0-\u00d6\u00d8-\u00de"
_LOW = "a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u017f"
_SURNAME = rf"(?:[{_UP}]\. )?(?:O['\u2019])?[{_UP}][{_LOW}'\u2019-]{{1,30}}(?![\w'\u2019-])"
# Starts with an uppercase letter, which is rare in prose, so the scan is fast without \b.
_PERSON = re.compile(rf"(?:{_STOCK_FIRST_NAMES}) {_SURNAME}")
# Professions an invented expert is given besides business titles.
_PROFESSION_WORDS = (  # noqa: SIM905
    "author writer journalist reporter investor trader chef coach trainer nutritionist dietitian"
    " psychologist therapist psychiatrist doctor physician surgeon nurse lawyer attorney"
    " accountant banker planner historian philosopher teacher lecturer dean chair chairman"
    " chairwoman entrepreneur marketer copywriter photographer artist curator librarian"
    " pharmacist dentist veterinarian biologist chemist physicist ecologist statistician"
    " epidemiologist sociologist neuroscientist spokesperson executive strategist forecaster"
    " agronomist horticulturist"
).split()
_PROFESSIONS = "|".join(_PROFESSION_WORDS)
_ROLES = (
    r"(?:ceo|cto|cfo|coo|cmo|cio|ciso|founder|co-founder|cofounder|director|head|vp|svp|evp"
    r"|vice president|president|manager|engineer|analyst|researcher|scientist|professor"
    r"|expert|consultant|specialist|architect|developer|strategist|lead|officer|partner|sre"
    r"|chief [a-z]+|owner|editor|economist|designer|advisor|adviser|principal|fellow"
    rf"|{_PROFESSIONS})"
)
# Words one of the roles needs (a gate: without any, no name can have a role).
_ROLE_WORDS = frozenset(
    {
        *("ceo", "cto", "cfo", "coo", "cmo", "cio", "ciso", "founder", "co-founder", "cofounder"),
        *("director", "head", "vp", "svp", "evp", "vice", "president", "manager", "engineer"),
        *("analyst", "researcher", "scientist", "professor", "expert", "consultant", "specialist"),
        *("architect", "developer", "strategist", "lead", "officer", "partner", "sre", "chief"),
        *("owner", "editor", "economist", "designer", "advisor", "adviser", "principal", "fellow"),
        *_PROFESSION_WORDS,
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
    rf"(?:Dr|Prof|Professor)\.? [{_UP}][{_LOW}'\u2019-]{{1,20}} [{_UP}][{_LOW}'\u2019-]{{1,30}}"
)
_HONORIFIC_GATE = frozenset({"dr", "prof", "professor"})
# Any two capitalised names with a job title: maybe a real executive, maybe not; no rule knows.
_ANY_PERSON = re.compile(rf"[{_UP}][{_LOW}]{{1,15}} {_SURNAME}")
_NOT_FIRST_NAMES = frozenset(
    {
        *("The", "This", "That", "These", "Those", "Our", "Your", "Their", "His", "Her", "Its"),
        *("A", "An", "In", "On", "At", "For", "With", "From", "By", "And", "But", "If", "When"),
        *("New", "Open", "Google", "Microsoft", "Apple", "Amazon", "Meta", "Red", "Big", "Chief"),
    }
)


# "X, the German industrial designer": a definite description with no organisation names
# someone known for the role itself; invented experts come with an employer ("a senior
# analyst at ...", "the head of growth at ...").
_FAMOUS_APPOSITIVE = re.compile(
    r"\*{0,2},? ?\*{0,2} ?the (?:(?!at |of |from |with |for )[\w-]{1,20} ){0,4}?[\w-]{2,20}$"
)


# An employer right after the role ("the head of growth at Fernway"), not a clause after it
# ("the German industrial designer who shaped Braun's products for decades").
_AFFILIATION = re.compile(
    r"(?: (?!who |that |which |whose |and )[\w-]{1,20}){0,3}? (?:at|of|from|with)(?![a-z])"
)


# A nationality in the description is how an article introduces a public figure to readers
# ("the American economist"); invented experts get an employer instead.
_NATIONALITY = re.compile(
    r" the (?:[\w-]+ ){0,2}?(?:american|british|english|scottish|welsh|irish|german|french"
    r"|italian|spanish|portuguese|dutch|belgian|swiss|austrian|swedish|norwegian|danish|finnish"
    r"|icelandic|polish|czech|hungarian|greek|turkish|russian|ukrainian|israeli|egyptian|nigerian"
    r"|kenyan|south african|indian|pakistani|chinese|japanese|korean|vietnamese|thai|indonesian"
    r"|australian|canadian|mexican|brazilian|argentine|argentinian|chilean|colombian|peruvian"
    r"|new zealand) "
)


# A person introduced by a public work ("author of Designing Data-Intensive Applications", "who
# created Python"): the work is there to be checked; an invented expert has an employer instead.
BY_THEIR_WORK = re.compile(
    r",? (?:the )?(?:author|creator|co-creator|inventor|co-inventor|designer|maintainer|editor)"
    r" of (?:the )?[A-Z\u201c\"*_]|,? who (?:wrote|created|invented|coined|designed|co-wrote)"
    r"(?![a-z])"
)


def _famous(low: str, start: int, role_end: int) -> bool:
    if not _FAMOUS_APPOSITIVE.match(low, start, role_end):
        return False
    if _NATIONALITY.search(low, start, role_end + 1):
        return True
    return not _AFFILIATION.match(low, role_end, role_end + 60)


@rule(
    "unsourced_person",
    Severity.WARNING,
    FAMILY,
    "A named person with a job title and no source in the paragraph, with no claim put in their "
    "mouth (that is unsourced_expert_claim): worth a look, not a reason to hold the draft.",
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
        if role is not None and _famous(low, match.end(), role.end()):
            continue  # "Dieter Rams, the German industrial designer": known, not invented
        if role is not None and BY_THEIR_WORK.match(text, match.end(), match.end() + 40):
            continue  # "Martin Kleppmann, author of Designing ...": the work can be checked
        if role is not None and not _sourced(text, match.start()):
            yield Hit(match.start(), role.end(), f"unsourced person {match.group(0)!r} with a role")


_QUOTATION = re.compile(
    r"[\"\u201c][^\"\u201c\u201d\n]{10,400}[\"\u201d]|\u2018[^\u2018\u2019\n]{10,400}\u2019(?![a-z])"
)
_SAYS = (
    r"(?:said|says|explains|explained|notes|noted|adds|added|recalls|recalled|argues|argued"
    r"|writes|wrote|observes|observed|warns|warned|insists|insisted|quipped|remarked|tells|told"
    r"|puts it|put it|calls it|called it|according to|declared|declares|joked|jokes|asked|asks"
    r"|advised|advises|reminded|suggested|suggests|claimed|claims|stated|states|tweeted|posted"
    r"|replied|answered|mused|cautioned|predicted|predicts|admitted|liked to say|used to say"
    r"|summed it up|sums it up)"
)
_SPEAKER_AFTER = re.compile(rf",? ?{_SAYS} (?:[\w-]{{1,20}} ){{0,2}}?[A-Z][\w.'\u2019-]{{1,30}}")
# The name first, then the verb: '"...," Einstein said', '"...," Jane Doe explained'.
_NAME_SAYS_AFTER = re.compile(
    rf",? ?(?:[{_UP}][{_LOW}.'\u2019-]{{1,30}} ){{1,3}}(?:once |later |famously )?{_SAYS}(?![a-z])"
)
# An attribution line under a quote: "> \u2014 Maria Gonzalez, VP of Marketing", "\u2014 Einstein".
_DASH_AFTER = re.compile(
    rf"[ \t]*(?:\n[ \t]*>?[ \t]*){{0,3}}[\u2014\u2013-]{{1,2}} ?[{_UP}][{_LOW}]{{2,}}"
    rf"(?: [{_UP}]|[,.\n]|$)"
)
# Between the attribution and the quote: a space, or a blank line and a blockquote marker
# ("Steve Jobs put it best:\n\n> \"...\"").
_TO_QUOTE = r"(?: ?|\s{1,4}(?:>[ \t]?)?)"
_SPEAKER_BEFORE = re.compile(
    rf"[{_UP}][{_LOW}]{{1,20}} [{_UP}][\w'\u2019-]{{1,30}},? (?:[\w-]{{1,20}} ){{0,4}}?"
    rf"{_SAYS}(?: [\w-]{{1,20}}){{0,5}}[,:]?{_TO_QUOTE}$"
)
# One name: "Einstein once said, ...", "As Jobs put it: ..." (pronouns and common sentence
# openers are not names).
_ONE_NAME_BEFORE = re.compile(
    rf"(?<![\w'\u2019-])(?P<name>[{_UP}][{_LOW}]{{2,20}}),? (?:once |later |famously |reportedly "
    rf"|supposedly |allegedly )?{_SAYS}(?: [\w-]{{1,20}}){{0,4}}[,:]?{_TO_QUOTE}$"
)
_NOT_SPEAKERS = frozenset(
    {
        *("The", "This", "That", "It", "He", "She", "They", "We", "You", "One", "Someone"),
        *("Everyone", "Nobody", "People", "Critics", "Users", "Customers", "Readers", "Others"),
        *("Experts", "Some", "Many", "Most", "Who", "What", "Which", "As", "And", "But", "So"),
        *("Research", "Science", "History", "Wisdom", "Folklore", "Legend", "Tradition"),
    }
)
# A name and a colon right before the quote: 'Steve Jobs: "..."', '**Maren Holt:** "..."'.
_NAME_COLON = re.compile(
    rf"(?<![\w'\u2019-])\*{{0,2}}[{_UP}][{_LOW}]{{1,20}} [{_UP}][\w'\u2019-]{{1,30}}\*{{0,2}}:"
    r"\*{0,2} ?$"
)
# A speaker whose name is a link ("As [Steve Jobs](https://en.wikipedia.org/...) once said,"):
# the link is about the person, not a source for the words (_sourced_quote).
_LINKED_NAME = (
    rf"\[(?P<linked>[{_UP}][{_LOW}]+(?: (?:(?:de|da|van|von|der|del|di|du|la|le) )?"
    rf"[{_UP}][\w'\u2019-]+){{0,3}})\]\([^)\s]{{1,300}}\)"
)
_LINKED_BEFORE = re.compile(
    rf"{_LINKED_NAME},? (?:[\w-]{{1,20}} ){{0,3}}?{_SAYS}(?: [\w-]{{1,20}}){{0,4}}[,:]?{_TO_QUOTE}$"
)
_LINKED_AFTER = re.compile(rf",? ?{_SAYS} {_LINKED_NAME}")
# A blockquote without quotation marks, attributed on a dash line at its end.
_BLOCK_ATTRIBUTION = re.compile(
    rf"\n[ \t]*>?[ \t]*[\u2014\u2013]{{1,2}} ?[{_UP}][{_LOW}]{{2,}}(?: [{_UP}][\w'\u2019-]+)*"
)


@rule(
    "fabricated_quote",
    Severity.CRITICAL,
    FAMILY,
    "A quotation attributed to a person (after it, before it, on a dash line under it, or beside "
    "a name in a table row) with no source in its paragraph (its row, in a table).",
)
def fabricated_quote(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    if "\u2014" in text or "\u2013" in text:
        yield from _attributed_blockquotes(text)
    # The quotation pattern starts with a character class, which `re` tries at every position:
    # a draft without double quotes skips the scan.
    if '"' not in text and "\u201c" not in text and "\u2018" not in text:
        return
    for quote in _leads.finditer(_QUOTATION, text):
        span = _attribution(text, quote)
        if span is None or _sourced_quote(text, quote.start(), span):
            continue
        yield Hit(span[0], span[1], "attributed quote with no source")


def _sourced_quote(text: str, pos: int, span: tuple[int, int]) -> bool:
    """Sourced (_sourced), unless the only link around is the one on the speaker's name: a page
    about the person is not a source for the words."""
    if not _sourced(text, pos):
        return False
    linked = _LINKED_BEFORE.search(text, span[0], pos) or _LINKED_AFTER.search(text, pos, span[1])
    if linked is None:
        return True
    start, end = paragraph_bounds(text, pos)
    rest = text[max(start, pos - 2000) : linked.start()] + text[linked.end() : min(end, pos + 2000)]
    return "](" in rest or "http" in rest.lower() or "<a " in rest.lower()


def _attribution(text: str, quote: re.Match[str]) -> tuple[int, int] | None:
    """The span of the quote with its attribution, or None when nobody is named."""
    after = (
        _LINKED_AFTER.match(text, quote.end(), quote.end() + 400)
        or _SPEAKER_AFTER.match(text, quote.end(), quote.end() + 60)
        or _NAME_SAYS_AFTER.match(text, quote.end(), quote.end() + 60)
        or _DASH_AFTER.match(text, quote.end(), quote.end() + 40)
    )
    if after is not None:
        return quote.start(), after.end()
    before = _LINKED_BEFORE.search(text, max(0, quote.start() - 420), quote.start())
    window_start = max(0, quote.start() - 120)
    before = before or _SPEAKER_BEFORE.search(text, window_start, quote.start())
    if before is None:
        one = _ONE_NAME_BEFORE.search(text, window_start, quote.start())
        before = one if one is not None and one.group("name") not in _NOT_SPEAKERS else None
    if before is None:
        colon = _NAME_COLON.search(text, window_start, quote.start())
        first = colon.group(0).strip("*").split(" ", 1)[0] if colon is not None else ""
        if first not in _NOT_FIRST_NAMES and first not in _NOT_SPEAKERS and first != "My":
            before = colon
    if before is not None:
        return before.start(), quote.end()
    row_start, row_end = line_bounds(text, quote.start())
    # A quoted term of a few words in a table ("GPU Scheduler" row) is a label, not speech.
    words = len(text[quote.start() : quote.end()].split())
    if words >= 4 and text.startswith("|", row_start) and _named_in_row(text, row_start, row_end):
        return quote.start(), quote.end()
    return None


def _named_in_row(text: str, start: int, end: int) -> bool:
    for match in _ANY_PERSON.finditer(text, start, end):
        if match.group(0).split(" ", 1)[0] not in _NOT_FIRST_NAMES:
            return True
    return False


_REFERENCE = re.compile(r"#\d|/|https?:|\]\(|(?<![a-z])(?:rfc|issue|section|p\.) ?\d", re.I)


def _attributed_blockquotes(text: str) -> Iterator[Hit]:
    for start, end in line_start_matches(_BLOCK_ATTRIBUTION, text):
        quote_line_start = text.rfind("\n", 0, max(0, start - 1)) + 1
        if not text[quote_line_start:start].lstrip(" \t").startswith(">"):
            continue  # a dash line under ordinary prose is not an attribution
        if '"' in text[quote_line_start:start] or "\u201c" in text[quote_line_start:start]:
            continue  # a quote in marks is judged by the quotation rule
        signature = text[start : line_bounds(text, start + 1)[1]]
        if _REFERENCE.search(signature) or _sourced(text, quote_line_start):
            continue  # "— owner/repo#378", "— RFC 9110, section 15": the signature is a source
        yield Hit(quote_line_start, end, "attributed quote with no source")


def _sourced(text: str, pos: int) -> bool:
    """In a table each row is its own claim: its source is in the row. Elsewhere, has_source."""
    row_start, row_end = line_bounds(text, pos)
    if text.startswith("|", row_start):
        row = text[row_start:row_end]
        return "](" in row or "http" in row.lower() or "<a " in row.lower()
    return has_source(text, pos)
