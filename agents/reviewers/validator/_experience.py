"""Critical: first-person experience a model cannot have had.

Anecdotes, not opinions: calls and meetings ("I sat down with a CTO"), workplaces ("at my
company"), acquaintances ("a client of mine", "a baker I worked with"), dated episodes ("last
week we migrated"), hands-on claims ("I tested", "I spent three weekends"), money in a story
("saved us $1,200/month"), and dialogue ("... he said", "she told me"). First-person advice is not
an anecdote and is not flagged: "I recommend", "I would", "in my view", "if I were starting", "in
my experience, small commits are easier to review".
Every pattern is gated on a word of the draft and starts with a literal (see _text.phrases).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator import _leads
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._text import (
    anchored,
    anchored_matches,
    sentence_span,
    word_matches,
    word_set,
)
from schemas.records import Severity

FAMILY = "first_person"
_A = "['\u2019]"
_PERIOD = (
    r"(?:week|month|year|quarter|spring|summer|autumn|fall|winter|weekend|night|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday)"
)
_PEOPLE = (
    r"(?:client|customer|founder|friend|colleague|coworker|co-worker|manager|boss|mentor|engineer"
    r"|developer|designer|reader|student|neighbou?r|teammate|contractor|consultant|partner)s?"
)
_PAST = (
    r"(?:tried|tested|used|installed|switched|interviewed|visited|met|started|joined|moved|ran"
    r"|built|deployed|migrated|launched|wrote|worked|rolled|shipped|rebuilt|replaced)"
)

_WE = rf"(?:i|we|my team|our team)(?:{_A}(?:ve|d))?"
# Past actions that make an episode when "I" did them.
_NARRATIVE_VERBS = (
    "migrated rewrote rolled shipped deployed launched rebuilt replaced switched hired fired"
    " inherited scrapped ditched abandoned noticed realised realized discovered wasted broke"
    " debugged upgraded downgraded configured benchmarked measured adopted joined quit founded"
    " co-founded led managed pushed merged bought sold interviewed visited refactored automated"
    " onboarded"
)
_NARRATIVE = "(?:" + "|".join(_NARRATIVE_VERBS.split()) + ")"
# Every anecdote has a first-person pronoun: without one among the draft's words, skip it.
_I_WE_TEAM = "i we i've i\u2019ve we've we\u2019ve i'd i\u2019d team"
_I_WE = "i we i've i\u2019ve we've we\u2019ve i'd i\u2019d i'm i\u2019m"
_ANECDOTES = (
    anchored(
        "tested tried reviewed benchmarked installed switched",
        r"(?:tested|tried|reviewed|benchmarked|installed|switched)(?![a-z])",
        r"(?:i|we) (?:personally |first |recently |finally )?",
        30,
        "i_ we_ personally_ first_ recently_ finally_",
        also=_I_WE,
    ),
    anchored(
        "using used tested tried hands-on spent",
        r"(?:been using|personally used|tested|tried out|hands-on|spent)(?![a-z])",
        rf"(?:i|we)(?:{_A}ve| have) ",
        12,
        "'ve_ \u2019ve_ _have_",
        also=_I_WE,
    ),
    # ("in my experience" alone is judged by `_in_my_experience`: it also opens advice)
    anchored(
        "testing tests lab",
        r"(?:testing|tests|lab)(?![a-z])",
        r"in (?:my|our) (?:own )?",
        16,
        "my_ our_ own_",
        also="my our",
    ),
    anchored(
        "when after before once",
        rf"(?:when|after|before|once) (?:i|we) (?:first )?{_PAST}(?![a-z])",
        also=_I_WE,
    ),
    anchored(
        "spent",
        r"spent (?:[\w-]{1,15} ){0,3}(?:days|weeks|weekends|months|years|hours|evenings|nights"
        r"|afternoons?|a weekend|a week|a month|a year)(?![a-z])",
        r"(?:i|we) ",
        4,
        also=_I_WE,
    ),
    anchored(
        "call meeting sat met spoke talked chatted coffee lunch caught",
        r"(?:on a call|in a meeting|sat down|had (?:a )?(?:call|chat|coffee|lunch|meeting)|met"
        r"|spoke|talked|chatted|caught up)(?: up)? with(?![a-z])",
        r"(?:i|we) (?:was |were )?",
        12,
        "i_ we_ was_ were_",
        also=_I_WE,
    ),
    anchored(
        "company startup org organization organisation employer firm agency workplace job "
        "studio lab office client customer",
        r"(?:company|startup|org|organi[sz]ation|employer|firm|agency|workplace|job|day job"
        r"|studio|lab|office|client|customer)(?![a-z])",
        r"(?:at|for|in) (?:my|our) (?:current |previous |former |old |last |first )?",
        30,
        "my_ our_ current_ previous_ former_ old_ last_ first_",
        also="my our",
    ),
    anchored(
        "mine ours",
        r"of (?:mine|ours)(?![a-z])",
        rf"(?:a|an|one|another) (?:[\w-]{{1,20}} ){{0,3}}?{_PEOPLE} ",
        70,
    ),
    anchored(
        "know knew met worked work spoke talked interviewed coached mentored advised",
        r"(?:know|knew|met|worked with|work with|spoke (?:to|with)|talked (?:to|with)"
        r"|interviewed|coached|mentored|advised|used to work with)(?![a-z])",
        rf"(?:a|an|one|another) (?:[\w-]{{1,20}} ){{0,2}}?(?:{_PEOPLE}|[a-z]{{3,20}}) (?:i|we) ",
        80,
        "i_ we_",
        also=_I_WE,
    ),
    anchored(
        "clients customers colleagues readers students friends coworkers co-workers mentors",
        r"one of my (?:clients|customers|colleagues|readers|students|friends|coworkers"
        r"|co-workers|mentors|managers)(?![a-z])",
    ),
    anchored("said", r"said to (?:me|us)(?![a-z])"),
    anchored(
        "told asked showed taught warned reminded assured",
        r"(?:told|asked|showed|taught|warned|reminded|assured) me(?![a-z])",
    ),
    anchored("last", rf"last {_PERIOD},? {_WE} [a-z]", also=_I_WE_TEAM),
    anchored("recently", rf"recently,? {_WE} [a-z]", also=_I_WE_TEAM),
    anchored("day", rf"other day,? {_WE} [a-z]", "the ", 4, also=_I_WE_TEAM),
    anchored(
        "ago",
        rf"(?:days|weeks|months|years) ago,? {_WE} [a-z]",
        r"(?:a (?:few|couple of)|two|three|four|five|six|\d{1,2}) ",
        16,
        also=_I_WE_TEAM,
    ),
    anchored(
        "last",
        rf"last {_PERIOD}(?![a-z])",
        r"(?:i|we) [a-z]{2,20}ed (?:[\w'-]{1,20} ){0,6}?",
        100,
        also=_I_WE,
    ),
    anchored(
        "yesterday ago",
        r"(?:yesterday|a (?:few|couple of) (?:days|weeks|months) ago)(?![a-z])",
        r"(?:i|we) [a-z]{2,20}ed (?:[\w'-]{1,20} ){0,6}?",
        100,
        also=_I_WE,
    ),
    anchored("team", r"my team and i(?![a-z])", also=_I_WE),
    # Recollections: "I remember the first time I deployed", "I once spent a weekend ..."
    anchored(
        "remember",
        r"remember (?:the (?:first|last|one|day|night|week|time)|when|how (?:i|we))(?![a-z])",
        r"(?:i|we) (?:still |clearly |vividly )?",
        12,
        also=_I_WE,
    ),
    anchored(
        "once",
        r"once (?:[a-z]{2,20}ed|spent|ran|built|wrote|lost|saw|had|took|made|broke|did|met|gave"
        r"|sat|spoke|told|forgot|left|got|went|found|caught)(?![a-z])",
        r"(?:i|we) ",
        4,
        also=_I_WE,
    ),
    # Work done for someone: "we rolled this out for a retail client", "a workshop I ran for a
    # nonprofit"
    anchored(
        "client clients customer customers",
        r"(?:client|customer)s?(?![a-z])",
        rf"(?:i|we) {_PAST}(?: [\w'\u2019-]{{1,20}}){{0,4}}? (?:for|at|with) (?:a|an|one|another)"
        r" (?:[\w-]{1,20} ){0,2}?",
        110,
        also=_I_WE,
    ),
    anchored(
        "workshop talk session training course class project audit engagement review migration"
        " site app website",
        r"for (?:a|an|one|another)(?![a-z])",
        r"(?:workshop|talk|session|training|course|class|project|audit|engagement|review"
        r"|migration|site|app|website) (?:i|we) (?:ran|gave|led|taught|delivered|did|built|wrote) ",
        40,
        also=_I_WE,
    ),
    # Past roles: "back when I was leading the platform team", "when I was at a bank"
    anchored(
        "when",
        r"when (?:i|we) (?:was|were) (?:at|working|leading|running|managing|still|an? |the )",
        also=_I_WE,
    ),
    # A past action told in the first person singular: "I migrated our cron jobs", "I rewrote
    # the importer", "I finally ditched Jenkins" (not "if I migrated"). The verbs are episodes,
    # not the writer's choices about the article ("I picked this example", "I used a table").
    # "We" is left out: a company writes "we moved our portal" in its own voice, which the
    # company facts judge instead.
    anchored(
        _NARRATIVE_VERBS,
        rf"(?<!if )(?<!unless )(?<!suppose )(?<!imagine )i (?:(?:then|first|finally|eventually"
        rf"|once|recently|actually|later|quickly|just|personally|ultimately) )?{_NARRATIVE}"
        r"(?![a-z])",
        also=_I_WE,
    ),
    # Lessons and witness: "I learned this the hard way", "I've seen teams burn a quarter",
    # "speaking from experience", "in my previous role", "my old manager".
    anchored(
        "hard",
        r"the hard way(?![a-z])",
        r"(?:i|we) (?:[\w'\u2019-]{1,20} ){1,5}?",
        60,
        also=_I_WE,
    ),
    anchored(
        "seen watched witnessed",
        r"(?:seen|watched|witnessed) (?:this|it|that|teams?|companies|clients|customers|projects"
        r"|startups|people|engineers|developers|so many|many|dozens|hundreds|countless|plenty"
        r"|a (?:lot|few|dozen|team|client|company|startup))(?![a-z])",
        rf"i(?:{_A}ve| have)? (?:personally |often |repeatedly |also )?",
        14,
        also=_I_WE,
    ),
    anchored(
        "experience",
        r"from (?:my |our )?(?:own |personal |bitter |painful |first-hand )?experience(?![a-z])",
        also="my our speaking i we",
    ),
    anchored(
        "role job position team company startup employer gig manager boss cto ceo client",
        r"(?:in|at|during) (?:my|our) (?:previous|last|former|old|first) (?:role|job|position"
        r"|team|company|startup|employer|gig)(?![a-z])",
        also="my our",
    ),
    anchored(
        "boss manager employer cto ceo mentor lead",
        r"my (?:former|previous|old|last|first) (?:boss|manager|employer|cto|ceo|mentor|lead"
        r"|team lead|tech lead)(?![a-z])",
        also="my",
    ),
    anchored(
        "firsthand first-hand",
        r"(?:firsthand|first-hand|first hand)(?![a-z])",
        rf"(?:i|we)(?:{_A}ve| have)? (?:saw|seen|learned|learnt|experienced|watched|witnessed)"
        r"(?: [\w'\u2019-]{1,20}){0,3}? ",
        50,
        also=_I_WE,
    ),
)
# Money in a story: a figure with "us"/"me"/"our ..." or a first-person subject.
_MONEY = (
    anchored(
        "cost costs costing saved saves saving spent spending paying paid billed charged lost"
        " wasted",
        r"(?:us|me|my (?:team|company|client|clients)|our (?:team|company|client|clients))"
        r"(?: (?:over|about|around|nearly|almost|roughly|more than))? [$\u20ac\u00a3]\d",
        r"(?:cost|costs|costing|saved|saves|saving|spent|spending|paying|paid|billed|charged|lost"
        r"|wasted) ",
        12,
    ),
    anchored(
        "saved spent paid lost wasted cut burned",
        r"(?:saved|spent|paid|lost|wasted|cut|burned) (?:[\w-]+ ){0,3}?[$\u20ac\u00a3]\d",
        r"(?:i|we|my team|our team) (?:[a-z]+ ){0,2}?",
        30,
    ),
)


# A quotation closed and attributed to a pronoun: dialogue from a story ("Ship it," he said).
# The speaker may be someone the writer knows: '"Ship it," our head of product said to me'.
_SAID = (
    r"(?:(?:[a-z]+ly|finally|just|then|once) )?(?:said|says|say|told|tells|explained|replied"
    r"|asked|asks|added|laughed|shrugged|smiled|insisted|admitted|whispered|warned|joked|snapped"
    r"|sighed|answered|shot back|muttered|shouted|wrote|texted|messaged|emailed|typed|grinned"
    r"|nodded)"
)
# After the quote ('"Ship it," he said', '"No," I replied', '"...," our head of product said
# to me'), or before it ('She leaned back and said: "..."', 'I told him, "..."').
_DIALOGUE = re.compile(
    r"[\"\u201d'\u2019] ?,? ?(?:(?:(?:he|she|they)(?:['\u2019]d| would)?|i|(?:my|our)"
    r" (?:[\w-]{1,20} ){0,4}?[\w-]{2,20})"
    rf" {_SAID}(?![a-z])|{_SAID} (?:he|she|my|our) )"
)
# Both are found from their rare part (a pattern opening with a lookbehind is tried at every
# position): the colon and quote of a script line, the verb and quote of dialogue; the speaker
# is then matched at the end of the text before it.
_SCRIPT_QUOTE = re.compile(r":[ ]?\*{0,2}[\"\u201c]")
_SCRIPT_SPEAKER = re.compile(
    r"(?<![\w'\u2019-])(?:me|i|my (?:[\w-]{1,20} ){0,3}?[\w-]{2,20}|our (?:[\w-]{1,20} ){0,3}?"
    r"[\w-]{2,20})\*{0,2}$"
)
_SAID_QUOTE = re.compile(
    rf"{_SAID.replace('(?:(?:[a-z]+ly|finally|just|then|once) )?', '', 1)}"
    r"(?: (?:me|us|him|her|them))?"
    r"(?: (?:quietly|simply|flatly|finally))?[,:] ?[\"\u201c\u2018']"
)
_SPEAKER_BEFORE = re.compile(
    r"(?<![a-z])(?:he|she|they|i) (?:(?:[a-z]+ ){1,3}(?:and|then) )?"
    r"(?:(?:[a-z]+ly|finally|just|then|once) )?$"
)
_DIALOGUE_GATE = frozenset({"said", "told", "explained", "replied", "asked", "added", "laughed"})
_DIALOGUE_GATE |= {"shrugged", "smiled", "insisted", "admitted", "whispered", "warned", "joked"}
_DIALOGUE_GATE |= {"snapped", "sighed", "says", "tells", "asks", "answered", "shot", "muttered"}
_DIALOGUE_GATE |= {"shouted", "wrote", "texted", "messaged", "emailed", "typed", "grinned"}
_DIALOGUE_GATE |= {"nodded", "say", "he'd", "she'd", "he\u2019d", "she\u2019d"}


@rule(
    "first_person_experience",
    Severity.CRITICAL,
    FAMILY,
    'First-person experience a model cannot have ("I tested", "last week we migrated", "a client '
    'of mine", "saved us $1,200/month", "... he said").',
)
def first_person_experience(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    company = speaks_as_company(ctx)
    found = list(anchored_matches(_ANECDOTES, low, ctx.words))
    if "$" in low or "\u20ac" in low or "\u00a3" in low:
        found += anchored_matches(_MONEY, low, ctx.words)
    if ctx.has_any(_DIALOGUE_GATE) and any(q in low for q in "\"'\u201c\u201d\u2018\u2019"):
        found += [(m.start(), m.end()) for m in _leads.finditer(_DIALOGUE, low)]
        found += _dialogue_before(low)
    if ":" in low and not ctx.words.isdisjoint(("my", "our", "me", "i")):
        found += _script_lines(low)
    if "experience" in ctx.words and not ctx.words.isdisjoint(("my", "our")):
        found += _in_my_experience(low)
    last_end = -1
    for start, end in sorted(found):
        if start < last_end:
            continue  # "when I tried" is one claim, not two
        last_end = end
        text = ctx.prose[start:end]
        if company and plural_only(low[start:end]):
            continue  # the company's own history in its voice: the company facts judge it
        yield Hit(start, end, f"first-person experience the writer cannot have: {text!r}")


_SINGULAR = frozenset({"i", "my", "me", "mine", "myself", "i've", "i\u2019ve", "i'd", "i\u2019d"})
_SINGULAR |= {"i'm", "i\u2019m"}
_PLURAL = frozenset({"we", "our", "us", "ours", "we've", "we\u2019ve", "we'd", "we\u2019d"})


def speaks_as_company(ctx: Context) -> bool:
    """The draft is written in the voice of the company the settings describe: it names the
    company (company_name, set) and says "we". Its "we" is then the company, not a narrator
    claiming a life: "we shipped reminders this autumn", "since we started in 2015" are company
    history, which the company-fact rules check against the settings (a contradiction rejects
    there). "I" stays a narrator whatever voice the draft speaks in."""
    name = ctx.settings.company_name.strip().lower()
    if not name or "we" not in ctx.words:
        return False
    return name in ctx.content_lower


def plural_only(low: str) -> bool:
    """The span's narrator is "we"/"our"/"us" only (no "I"/"my"/"me" in it)."""
    found = word_set(low)
    return found.isdisjoint(_SINGULAR) and not found.isdisjoint(_PLURAL)


# "In my experience ..." names an experience ("with the X200", "running a bakery", "at Acme")
# or tells what it showed about one thing ("the battery lasts"): a claim to have lived it. Or it
# opens a generalisation, advice anyone may give ("small pull requests get reviewed faster",
# "it pays to pin versions", "most teams ..."): not an anecdote.
_EXPERIENCE = re.compile(r"in (?:my|our) (?:own )?experience(?![a-z])")
_EXPERIENCE_OF = re.compile(
    r"[ \t]*(?:with|of|at|as|in|on|over|during|since|across|from|running|using|testing|working"
    r"|building|teaching|managing|leading|selling|writing|baking|growing|owning|living)(?![a-z])"
)
_GENERAL = re.compile(
    r"(?<![a-z])(?:usually|often|rarely|seldom|always|never|generally|typically|mostly|almost"
    r"|tends?|most|many|few|fewer|every|any|anyone|people|teams|you|your|should|can|could|may"
    r"|might|helps?|pays?|worth|best|better|worse|easier|harder|faster|slower|cheaper|safer"
    r"|simpler|more|less|nothing|no one|nobody|it(?:['\u2019]s| is) (?:best|better|worth|wise"
    r"|easier|safer))(?![a-z])"
)


def _in_my_experience(low: str) -> list[tuple[int, int]]:
    """The "in my experience" that claims an experience (see `_EXPERIENCE`), not advice."""
    found = []
    for match in word_matches(_EXPERIENCE, low):
        if not _EXPERIENCE_OF.match(low, match.end()):
            _, stop = sentence_span(low, match.start(), match.end())
            if _GENERAL.search(low, match.end(), stop):
                continue  # a generalisation: advice
        found.append((match.start(), match.end()))
    return found


def _dialogue_before(low: str) -> list[tuple[int, int]]:
    """'She leaned back and said: "..."', 'I told him, "..."': from the verb, speaker before."""
    found = []
    for tail in word_matches(_SAID_QUOTE, low):
        head = _SPEAKER_BEFORE.search(low, max(0, tail.start() - 60), tail.start())
        if head is not None:
            found.append((head.start(), tail.end()))
    return found


def _script_lines(low: str) -> list[tuple[int, int]]:
    """Script-style dialogue at a line start: 'Me: "Can we ship?"', 'My CTO: "Not today."'."""
    found = []
    for quote in _SCRIPT_QUOTE.finditer(low):
        speaker = _SCRIPT_SPEAKER.search(low, max(0, quote.start() - 90), quote.start())
        if speaker is None:
            continue
        start = speaker.start()
        if start == 0 or low[start - 1] in "\n >*-":
            found.append((start, quote.end()))
    return found
