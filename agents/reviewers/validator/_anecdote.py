"""Critical: a first-person episode told as something that happened (the concept behind
`_experience`'s phrase list).

An anecdote is a past action of the narrator ("I", "we", "my team", "my colleague Priya") that
the sentence pins to a time, a place, a person or a sum of money: "This summer I left Aberdeen
to work on billing", "We spent most of March moving the jobs", "A designer on my team asked
...". A model writing a draft has lived none of these. Advice has no such episode: "I recommend
pinning versions", "First we create the table", "If you have ever deployed on a Friday", and a
sentence that sets up a hypothetical ("imagine", "let's say", "suppose", "when you") is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._experience import FAMILY, plural_only, speaks_as_company
from agents.reviewers.validator._text import sentence_span, word_matches
from schemas.records import Severity

_A = "['\u2019]"
_IRREGULAR = (
    "was were spent left took made went came found got ran saw sat met told said wrote built"
    " began thought knew lost won paid sold bought brought kept felt heard led chose broke drove"
    " flew gave hit put set stood taught threw understood woke rewrote overheard forgot became"
    " did had froze fell caught swore rode tore hung sank shook stuck struck sent spoke slept wore"
    " bent hid fought dug burnt learnt stole swam meant dealt sought cut"
)
# "-ed" but not "-eed" ("we need", "I proceed" are not past)
_PAST = r"(?:[a-z]{2,}(?<!e)ed|" + "|".join(_IRREGULAR.split()) + ")"
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
)
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_SEASON = r"(?:spring|summer|autumn|fall|winter)"
# The narrator acting in the past; "had" only as an auxiliary ("I had just merged").
_NARRATOR = re.compile(
    rf"(?:i|we|my team|our team|the team)(?: [a-z]+ly| then| just| once| first| finally| all"
    rf"| both| had| had just| had already)? {_PAST}(?![a-z{_A[1:-1]}])"
    rf"|(?:i|we) (?:remember|recall|still remember)(?![a-z])"
)
# Openings that are an episode by themselves: a recollection, a count of past incidents.
_RECALLED = re.compile(
    rf"(?:i|we) (?:still )?(?:remember|recall)(?![a-z])|i{_A}ve lost count|i have lost count"
    r"|more times than i can count|(?:i|we) learned (?:this|that|it) the hard way"
)
# Somebody the narrator knows, acting in the past: "my colleague Priya spent", "a designer on
# my team asked", "our CTO pulled me aside".
_ACQUAINTANCE = re.compile(
    r"(?:my|our) (?:[a-z-]+ )?(?:colleague|coworker|co-worker|manager|boss|lead|cto|ceo|cfo"
    r"|founder|co-founder|intern|teammate|designer|director|mentor|friend|office manager"
    r"|product manager|tech lead|team lead|landlord|accountant)(?: [a-z]+)?(?: [a-z]+ly)?"
    rf" {_PAST}(?![a-z])"
    rf"|(?:on|in|from) (?:my|our) team (?:{_PAST})(?![a-z])"
    rf"|(?:my|our) (?:[a-z-]+ )?(?:designer|manager|lead|cto|ceo|founder|engineer|developer"
    rf"|intern|director)s?, [a-z]+, (?:[a-z]+ly )?{_PAST}(?![a-z])"
    # family: a model has none ("my daughter's school uses ...")
    r"|my (?:daughter|son|wife|husband|kids?|children|mum|mom|dad|mother|father|brother"
    rf"|sister|grandmother|grandfather|nephew|niece|partner{_A}s (?:mum|mom|dad))(?:{_A}s)?"
    r" [a-z]+"
    # a past workplace: "on my last project", "at a previous job"
    r"|(?:on|in|at|during) (?:my|our) (?:last|previous|old|former|first) (?:project|job|role"
    r"|company|team|startup|employer|gig|contract|client)(?![a-z])"
    r"|at (?:a|one) (?:previous|former) (?:job|company|employer|startup|agency|role)(?![a-z])"
)
# What pins the episode down: a time, a place, a person, money or speech.
_ANCHOR = re.compile(
    rf"(?<![a-z])(?:ago|yesterday|last (?:{_SEASON}|year|month|week|quarter|night|time|{_DAY})"
    rf"|this (?:{_SEASON}|morning|week|year|month)|back in|back when|years back|months back"
    rf"|weeks back|a while back|in (?:19|20)\d\d|(?:one|that) (?:day|morning|afternoon|evening"
    rf"|night|weekend|week)|over (?:a|one|the) (?:long )?weekend|at the time|during my"
    rf"|during our|the first time|most of {_MONTH}|in (?:early |late |mid-)?{_MONTH}"
    rf"|on (?:a )?{_DAY}|at \d{{1,2}}(?::\d\d)? ?(?:a\.m\.|p\.m\.|am|pm)|for (?:\d+|two|three"
    r"|four|five|six|a few|several) (?:days|weeks|months|hours|nights)"
    r"|in (?:a|an|the|our|my) (?:[a-z-]+ )?(?:office|meeting|room|cafe|conference|standup"
    r"|stand-up|retro|workshop|hotel|kitchen|bar|warehouse|basement)"
    r"|at (?:a|an|the) (?:[a-z-]+ )?(?:conference|meetup|offsite|client|startup|agency|bank"
    r"|hackathon|company|firm)|on (?:a|the) call|colleague|coworker|manager|boss|intern"
    r"|teammate|mentor|my lead|our cto|our ceo|someone|a client|a customer|the client"
    r"|(?:consulting|freelancing|contracting|working) for (?:a|an) [a-z-]+(?: [a-z-]+)?"
    r"|(?:support )?shift|meeting|interview|demo|workshop|offsite|retro|standup|stand-up|trip"
    r"|[$\u20ac\u00a3]\d|told me|asked me|said to me"
    # a moment of the narrator's life: "the year I filed", "the day we moved", "on my first
    # route", "in my second season"
    rf"|the (?:year|day|week|month|night|morning|evening|summer|winter|spring|autumn|{_SEASON}"
    r"|time) (?:i|we)|(?:on|in|at|during) (?:my|our) (?:very )?(?:first|second|third|last) "
    # (not a tutorial's own parts: "in our first example we created a table")
    r"(?!example|step|section|chapter|post|article|part|lesson|exercise|snippet|query|function"
    r"|script|version|draft|listing|table|figure|test|case|approach|option|pass|iteration"
    r"|method|model|attempt at the|pattern|program|file|command|call|run|request)[a-z]+"
    # something the narrator owns or runs: "my own heap", "my design studio", "our bakery"
    r"|my own|(?:my|our) (?:[a-z-]+ )?(?:studio|shop|bakery|business|practice|restaurant|cafe"
    r"|allotment|plot|farm|salon|workshop|garage|flat|apartment|house|home))(?![a-z])"
)
# A hypothetical or an instruction: the episode is imagined, not told.
_IMAGINED = re.compile(
    r"(?<![a-z])(?:if|imagine|suppose|let{_A}s say|say you|when you|whenever|you|your|would"
    r"|could|might|should|will|in this (?:post|guide|tutorial|article))(?![a-z])".replace(
        "{_A}", _A
    )
)


_NARRATOR_LEADS = ("i ", "we ", "my team ", "our team ", "the team ")


def _narrators(low: str) -> Iterator[re.Match[str]]:
    """_NARRATOR's matches at word starts, tried only where a narrator's word is (the one-
    and two-letter openings are too short for `re`'s own prefix search to skip ahead)."""
    starts: set[int] = set()
    for lead in _NARRATOR_LEADS:
        pos = low.find(lead)
        while pos != -1:
            if pos == 0 or not (low[pos - 1].isalnum() or low[pos - 1] in "_'\u2019"):
                starts.add(pos)
            pos = low.find(lead, pos + 1)
    for pos in sorted(starts):
        match = _NARRATOR.match(low, pos)
        if match is not None:
            yield match


_FOUNDING = re.compile(r"(?:founded|established|incorporated|registered) $")


def _anchored(low: str, begin: int, stop: int) -> bool:
    """An anchor in the sentence; a founding year ("founded in 2021") is a company fact, which
    `_company` checks, not the time of an episode."""
    for anchor in _ANCHOR.finditer(low, begin, stop):
        if not _FOUNDING.search(low, max(0, anchor.start() - 16), anchor.start()):
            return True
    return False


@rule(
    "first_person_anecdote",
    Severity.CRITICAL,
    FAMILY,
    "A first-person episode (a past action of the writer or someone they know, pinned to a "
    "time, place, person or sum of money) a model cannot have lived.",
)
def first_person_anecdote(ctx: Context) -> Iterator[Hit]:
    words = ctx.words
    if words.isdisjoint(("i", "we", "my", "our")):
        return
    low = ctx.lower
    seen_until = -1
    candidates: list[tuple[int, int, bool]] = []
    if not words.isdisjoint(("i", "we", "team")):
        candidates += [(m.start(), m.end(), False) for m in _narrators(low)]
    if not words.isdisjoint(("my", "our", "at")):
        candidates += [(m.start(), m.end(), True) for m in word_matches(_ACQUAINTANCE, low)]
    if not words.isdisjoint(("remember", "recall", "count", "hard")):
        candidates += [(m.start(), m.end(), True) for m in word_matches(_RECALLED, low)]
    company = speaks_as_company(ctx)
    for start, end, known_person in sorted(candidates):
        if start < seen_until or low.endswith(("since ", "until "), max(0, start - 6), start):
            continue  # "since we started in 2021": a point in time, not an episode
        begin, stop = sentence_span(low, start, end)
        if _IMAGINED.search(low, begin, stop) is not None:
            continue
        before = low[begin:start]
        if (before.count('"') + before.count("\u201c") - before.count("\u201d")) % 2:
            continue  # inside quotation marks: an example being quoted, not the writer's story
        if not known_person and not _anchored(low, begin, stop):
            continue
        if company and plural_only(low[start:end]):
            continue  # company history in the company's voice (see speaks_as_company)
        seen_until = stop
        yield Hit(start, end, f"first-person episode: {ctx.prose[begin:stop].strip()[:160]!r}")
