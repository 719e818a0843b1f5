"""Critical: a claim put in the mouth of a named authority nobody can check.

An invented expert, whatever the wording, has three parts: a name (any first name and surname,
or an honorific and a surname: "Dr Okafor", "Ms. Brandt"), what makes the person an authority (a
title or an employer, before or after the name: "security researcher Ingrid Solberg", "head of
platform at Kestrel Systems", "(Head of Security, Polaris Bank)", "of nordlight"), and something
the person is made to say, think or find ("says", "expects", "according to", "we spoke to"). With
no source in the paragraph (a footnote that only records the writer's own interview is none),
the claim is critical; a person introduced by a public work ("author of ...") is checkable.

A person named without a claim ("Ingrid Solberg gave the keynote") is `unsourced_person`'s
warning; a stock first name with a title is `fabricated_person`'s; a quotation in marks is
`fabricated_quote`'s. Expert tables (a name, a role and a view in one row) and blockquote
signature lines ("> -- Name, Org") are the same claim in another layout. Upstream's third
fake-person pattern is here too: a job title at the publishing company ("the CTO at <company>")
saying something, a person the company facts do not know.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from agents.reviewers.validator import _people
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._text import (
    at_word_start,
    line_bounds,
    line_start_matches,
    paragraph_bounds,
    sentence_span,
    word_matches,
)
from schemas.records import Severity

_UP, _LOW, _ROLES = _people._UP, _people._LOW, _people._ROLES
_PART = rf"[{_UP}][{_LOW}'\u2019]{{1,30}}(?:-[{_UP}]?[{_LOW}]{{1,20}})?"
_NAME = (
    rf"[{_UP}][{_LOW}'\u2019-]{{1,20}}(?: (?:(?:de|da|van|von|der|del|di|du|la|le|al) )?{_PART})"
    r"{1,2}(?![\w'\u2019-])"
)
_TWO_NAMES = re.compile(_NAME)
# An honorific and a surname (or a first name and a surname): "Dr Okafor", "Ms. Brandt".
_HONORIFIC = re.compile(
    rf"(?P<title>Dr|Prof|Professor|Dean|Mr|Mrs|Ms|Mx|Sir|Dame)\.? [{_UP}][{_LOW}'\u2019-]{{1,30}}"
    rf"(?: [{_UP}][{_LOW}'\u2019-]{{1,30}})?(?![\w'\u2019-])"
)
_HONORIFIC_GATE = frozenset({"dr", "prof", "professor", "dean", "mr", "mrs", "ms", "mx", "sir"})
_SCHOLARLY = frozenset({"Dr", "Prof", "Professor", "Dean"})
# What a person is made to say, think or find, after the name in its sentence.
_CLAIM_WORDS = (
    "says said argues argued expects expected warns warned believes believed thinks thought"
    " recommends recommended suggests suggested told tells found finds notes noted explains"
    " explained predicts predicted claims claimed insists insisted estimates estimated reckons"
    " advises advised cautions cautioned stresses stressed maintains agrees agreed disagrees"
    " disagreed adds added observes observed concludes concluded urges urged recalls recalled"
    " admits admitted writes wrote puts put calls called sums emphasises emphasizes emphasised"
    " emphasized describes described points pointed according interviewed spoke"
    # advice given, credit taken: "swears by it", "the rule X gives every client", "with thanks
    # to X, whose advice shaped this article", "on the advice of"
    " swears swore teaches taught prescribes gives gave favours favors thanks whose courtesy"
    " advice reviewed likes rule tip verdict motto mantra recommendation"
)
_CLAIM_GATE = frozenset(_CLAIM_WORDS.split())
_CLAIM_AFTER = re.compile(
    r"(?<![a-z])(?:says|said|argues|argued|expects|expected|warns|warned|believes|believed"
    r"|thinks|thought|recommends|recommended|suggests|suggested|told|tells|found|finds|notes"
    r"|noted|explains|explained|predicts|predicted|claims|claimed|insists|insisted|estimates"
    r"|estimated|reckons|advises|advised|cautions|cautioned|stresses|stressed|maintains|agrees"
    r"|agreed|disagrees|disagreed|adds|added|observes|observed|concludes|concluded|urges|urged"
    r"|recalls|recalled|admits|admitted|writes|wrote|puts it|put it|calls it|called it|sums it up"
    r"|summed it up|emphasi[sz]es|emphasi[sz]ed|describes|described|points out|pointed out"
    r"|is convinced|was convinced|likes to (?:say|point out|remind|tell|joke)|swears by"
    r"|swore by|teaches|taught|prescribes"
    r"|favours|favors|(?:gives|gave) (?:every|each|all|her|his|their|new|clients|patients"
    r"|students|readers)|whose (?:advice|guidance|tips|rule|rules|insight|input|research|words"
    r"|view|views|experience|help)"
    # advice given to someone is a claim ("recommends to every homeowner"), unlike "agreed to"
    r"|(?:recommends|recommended|suggests|suggested|explains|explained) to"
    # the person's advice itself: "X's advice is simple: ...", "X's rule of thumb:"
    r"|(?:advice|rule of thumb|rule|tip|verdict|motto|mantra|recommendation)(?= is| was|:)"
    r"|(?:calls|called) (?:[\w-]+ ){0,3}(?=[\"\u201c]))(?![a-z])"
    # not a claim: "agreed to give the talk", "added to the programme", "called in sick"
    r"(?! (?:to|for|on|in|up|off|together|by)(?![a-z]))"
)
# Words put in the person's mouth with no verb: '..., swears by it: "Put the chicken on top."'
_COLON_QUOTE = re.compile(r": ?(?:[\"\u201c\u2018]|\n\n? {0,3}> ?[\"\u201c]?)")
# A claim introduced before the name: "according to X", "we spoke to X", "in an interview, X".
_CLAIM_BEFORE = re.compile(
    r"(?<![a-z])(?:according to|as told to|we spoke (?:to|with)|i spoke (?:to|with)|we interviewed"
    r"|i interviewed|we asked|i asked|interview with|talked to|talking to|sat down with|speaking"
    r" to|in conversation with|per|thanks to|with help from|credit to|courtesy of|reviewed by"
    r"|fact-checked by|checked by|advice from|input from|on the advice of|tips from)"
    r" (?:[\w'\u2019-]+ ){0,5}?$"
)
# A trade noun right before a name ("assessor", "ceramicist", "luthier" is not one): its
# ending says it names a person; the function words with those endings are not trades.
_AGENT_BEFORE = re.compile(
    r"(?<![a-z'\u2019-])(?P<word>[a-z]{2,20}(?:ist|ian|er|or|eur|ant|ief)) $"
)
_NOT_AGENTS = frozenset(
    (  # noqa: SIM905
        "whether after under over never other either neither rather together ever later however"
        " her per for nor or our your their water paper number order answer letter matter member"
        " manner error color colour favour favor honour behaviour behavior floor door minor major"
        " prior sooner further farther earlier power user customer reader partner register"
        " consider remember discover deliver offer enter cover gather wonder suffer alter monitor"
        " tenant relevant important grant brilliant"
        " elegant pleasant vibrant significant"
    ).split()
)
# A descriptor between "according to" (or a credit) and the name is what makes the person an
# authority, whatever the trade: "according to master orchardist X", "thanks to our tutor X".
_DESCRIBED_BEFORE = re.compile(
    r"(?<![a-z])(?:according to|thanks to|with help from|credit to|courtesy of|reviewed by"
    r"|on the advice of|advice from|tips from|(?<!such )(?<!well )as) (?:(?:the|a|an|our|their"
    r"|his|her) )?"
    r"(?:[a-z'\u2019-]{2,20} ){0,3}[a-z\u2019-]{3,20}(?<!the|and|but) $"
)
# An employer right after the name: "of Kestrel Systems", "from Polaris Bank", "at nordlight,".
_ORG_AFTER = re.compile(
    rf",? (?:of|from|at) (?:the )?(?:[{_UP}0-9]|[a-z][\w.&-]{{1,30}}(?:,| \u2014| -|\)))"
)
# "X, the company's VP of Growth", "X, Polaris Bank's head of security"
_POSSESSIVE_ROLE = re.compile(
    r",? (?:the |a )?[\w&.-]{1,30}(?: [\w&.-]{1,30})?['\u2019]s "
    rf"(?:[\w-]{{1,20}} ){{0,2}}?{_ROLES}(?![a-z])"
)
# A title in parentheses or between dashes: "(Head of Security, Polaris Bank)".
_ASIDE_AFTER = re.compile(r" ?(?:\(|\u2014 ?|\u2013 ?|-- ?)(?P<aside>[^()\n\u2014\u2013]{2,90})")
_ROLE_WORD = re.compile(rf"(?<![a-z]){_ROLES}(?![a-z])")
# A title right before the name: "security researcher X", "Polaris Bank's head of security X".
_ROLE_BEFORE = re.compile(
    rf"(?<![a-z]){_ROLES}(?: (?:of|for|at) [\w&.'\u2019-]+(?: [\w&.'\u2019-]+){{0,2}})?,? $"
)
_EMPLOYER_NEXT = (" at ", " of ", " for ", " from ", " with ", " in ", " by ")
# "who leads security at Polaris Bank", "who runs the data team at Lumen Health"
_WHO_AT = re.compile(
    r",? who (?:leads|runs|heads|manages|directs|founded|co-founded|works|worked|teaches"
    r"|taught|oversees|led|ran|headed) (?:[\w-]+ ){0,4}?(?:at|for|of|in) "
)


def _authority(ctx: Context, start: int, end: int, title: str | None) -> int | None:
    """The end of what makes the person at [start, end) an authority, or None."""
    low, text = ctx.lower, ctx.prose
    role = _people._ROLE_AFTER_NAME.match(low, end, end + 90) or _POSSESSIVE_ROLE.match(
        low, end, end + 90
    )
    if role is not None:
        return None if _people._famous(low, end, role.end()) else role.end()
    for pattern in (_ORG_AFTER, _WHO_AT):
        found = pattern.match(text if pattern is _ORG_AFTER else low, end, end + 90)
        if found is not None:
            return found.end()
    aside = _ASIDE_AFTER.match(text, end, end + 100)
    if aside is not None and (
        _ROLE_WORD.search(low, aside.start("aside"), aside.end()) or "," in aside.group("aside")
    ):
        return aside.end()
    before = _ROLE_BEFORE.search(low, max(0, start - 70), start)
    if before is not None and not before.group(0).endswith(_EMPLOYER_NEXT):
        return end  # not "head of security at Polaris Bank": that name is the employer
    if _DESCRIBED_BEFORE.search(low, max(0, start - 90), start) is not None:
        return end
    if _trade_before(low, start):
        return end  # "energy assessor X", "orchardist X": a trade noun right before the name
    return end if title in _SCHOLARLY else None


def _claimed(ctx: Context, start: int, end: int, authority: int) -> int | None:
    """Something is put in the person's mouth: a claim verb soon after the title (not anywhere
    in a long sentence), or an "according to" / interview before the name. Returns where the
    claim's attribution ends (None: no claim)."""
    low = ctx.lower
    if _CLAIM_BEFORE.search(low, max(0, start - 60), start) is not None:
        return authority
    _, stop = sentence_span(low, start, end, reach=220)
    verb = _CLAIM_AFTER.search(low, authority, min(stop, authority + 100))
    if verb is None and ":" in low[authority : min(stop + 1, authority + 100)]:
        verb = _COLON_QUOTE.search(ctx.prose, authority, min(stop + 8, authority + 108))
        # a title, not just an employer ("Run Git Bash from the Start menu and type: ...")
        if verb is not None and not _titled(low, start, verb.start()):
            verb = None
    return None if verb is None else verb.end()


def _trade_before(low: str, start: int) -> bool:
    agent = _AGENT_BEFORE.search(low, max(0, start - 24), start)
    return agent is not None and agent.group("word") not in _NOT_AGENTS


def _titled(low: str, start: int, stop: int) -> bool:
    """A title or a trade noun near the name (an employer alone may be a program's menu)."""
    return _ROLE_WORD.search(low, max(0, start - 40), stop) is not None or _trade_before(low, start)


# A footnote that is not a source: the writer's own conversation with the person.
_PRIVATE_NOTE = re.compile(
    r"interview|conversation|spoke|call with|email (?:to|from|with)|personal communication"
    r"|correspondence|chat with|message to|message from|in person"
)


def _in_linked_line(text: str, surname: str) -> bool:
    """The surname is on a line that carries a link (a Sources entry, a linked mention)."""
    pos = text.find(surname)
    for _ in range(20):
        if pos == -1:
            return False
        start, end = line_bounds(text, pos)
        line = text[start:end]
        if "](" in line or "http" in line or "<a " in line:
            return True
        pos = text.find(surname, end)
    return False


_FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]{1,20})\]")


def _linked(text: str, pos: int) -> bool:
    """Sourced (_people._sourced), where a footnote counts unless its note is the writer's own
    conversation with the person ("[^1]: Interview with ..., March 2026") with no link."""
    if not _people._sourced(text, pos):
        return False
    start, end = paragraph_bounds(text, pos)
    chunk = text[max(start, pos - 2000) : min(end, pos + 2000)]
    low = chunk.lower()
    if "](" in chunk or "http" in low or "<a " in low or "[" not in chunk:
        return True  # a link, or a source has_source found around the paragraph
    refs = _FOOTNOTE_REF.findall(chunk)
    if not refs:
        return True
    for ref in refs:
        at = text.find(f"\n[^{ref}]:")
        if at == -1:
            return True  # an unresolved footnote is the placeholder rules' concern
        note = text[at : line_bounds(text, at + 1)[1]].lower()
        if "http" in note or "](" in note or _PRIVATE_NOTE.search(note) is None:
            return True
    return False


@rule(
    "unsourced_expert_claim",
    Severity.CRITICAL,
    _people.FAMILY,
    "A claim (says, expects, according to, an interview) attributed to a named person with a "
    "title or an employer, with no linked source: an expert the writer may have invented.",
)
def unsourced_expert_claim(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    colon_quote = ":" in text and ('"' in text or "\u201c" in text)
    if colon_quote or ctx.has_any(_CLAIM_GATE):
        seen_until = -1
        for start, end, title in _people_found(ctx):
            if start < seen_until:
                continue
            authority = _authority(ctx, start, end, title)
            claim_end = None if authority is None else _claimed(ctx, start, end, authority)
            if authority is None or claim_end is None:
                continue
            seen_until = claim_end  # "(Head of Security, Polaris Bank) said": one person
            if _people.BY_THEIR_WORK.match(text, end, end + 40) or _linked(text, start):
                continue
            if _in_linked_line(text, text[start:end].rsplit(" ", 1)[-1]):
                continue  # the person is named in a linked source elsewhere (a Sources list)
            name = text[start:end]
            yield Hit(start, authority, f"claim attributed to {name!r} with a title, no source")
    if "|" in text:
        yield from _expert_rows(ctx)
    if ">" in text:
        yield from _signatures(ctx)
    if ctx.settings.company_name.strip():
        for match in word_matches(_role_at(ctx.settings.company_name), ctx.lower):
            if _claimed(ctx, match.start(), match.end(), match.end()) is not None:
                said = text[match.start() : match.end()]
                yield Hit(match.start(), match.end(), f"a role at the company: {said!r}")


def _people_found(ctx: Context) -> Iterator[tuple[int, int, str | None]]:
    """(start, end, honorific) of every name that could be a person, in text order."""
    text = ctx.prose
    found: list[tuple[int, int, str | None]] = []
    if ctx.has_any(_HONORIFIC_GATE):
        found.extend((m.start(), m.end(), m.group("title")) for m in word_matches(_HONORIFIC, text))
    # any trade noun can make a name an authority (_AGENT_BEFORE), so no word list gates this
    pos = 0
    while (match := _TWO_NAMES.search(text, pos)) is not None:
        first = match.group(0).split(" ", 1)[0]
        pos = match.end()
        if first in _NOT_NAMES or first.lower() in _people._ROLE_WORDS:
            pos = match.start() + len(first) + 1  # "Chief Economist Ingrid Solberg"
            continue
        if match.group(0).count(" ") == 2 and _trade_before(first.lower() + " ", len(first) + 1):
            pos = match.start() + len(first) + 1  # "Glazier Oona Fairbairn": a trade, a name
            continue
        if not at_word_start(text, match.start()):
            continue
        if match.group(0) in _people._KNOWN_PEOPLE or first in _HONORIFIC_TITLES:
            continue
        if first.lower() in _people._STOCK_GATE and _people._ROLE_AFTER_NAME.match(
            ctx.lower, match.end(), match.end() + 90
        ):
            continue  # fabricated_person's case
        found.append((match.start(), match.end(), None))
    found.sort()
    yield from found


_NOT_NAMES = _people._NOT_FIRST_NAMES | _people._NOT_SPEAKERS
_HONORIFIC_TITLES = frozenset({"Dr", "Prof", "Professor", "Dean", "Mr", "Mrs", "Ms", "Sir"})
_CELL_NAME = re.compile(rf"\*{{0,2}}(?:(?:Dr|Prof)\.? )?{_NAME}\*{{0,2}}")


def _expert_rows(ctx: Context) -> Iterator[Hit]:
    """Table rows naming a person, a role and a view (three cells or more), without a link."""
    text, low = ctx.prose, ctx.lower
    for start, end in line_start_matches(_TABLE_ROW, text):
        cells = [c.strip() for c in text[start:end].strip().strip("|").split("|")]
        if len(cells) < 3 or not _CELL_NAME.fullmatch(cells[0]):
            continue
        first = cells[0].strip("*").split(" ", 1)[0]
        if first in _people._NOT_FIRST_NAMES or cells[0].strip("*") in _people._KNOWN_PEOPLE:
            continue
        has_role = _ROLE_WORD.search(low, start + len(cells[0]), end) is not None
        has_view = any(len(c.split()) >= 3 for c in cells[1:])
        if has_role and has_view and not _linked(text, start):
            yield Hit(start, end, f"expert {cells[0].strip('*')!r} in a table, no source")


_TABLE_ROW = re.compile(r"\n[ \t]*\|[^\n]{5,600}")
# "> -- Ingrid Solberg, Head of Security at Polaris Bank", "> - Ingrid Solberg, Polaris Bank"
_SIGNATURE = re.compile(
    rf"\n[ \t]*>[ \t]*(?:--|-|~)[ \t]?(?P<name>{_NAME})(?P<rest>[^\n]{{0,160}})"
)


def _signatures(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    for start, end in line_start_matches(_SIGNATURE, text):
        line = text[start:end]
        match = _SIGNATURE.match("\n" + line)
        if match is None:
            continue
        first = match.group("name").split(" ", 1)[0]
        if first in _people._NOT_FIRST_NAMES or match.group("name") in _people._KNOWN_PEOPLE:
            continue
        rest = match.group("rest")
        if not rest.lstrip().startswith((",", "(", "\u2014", "\u2013", "of ", "at ", "from ")):
            continue
        if not _quoted_above(text, start) or _people._REFERENCE.search(rest):
            continue
        if not _linked(text, start):
            yield Hit(start, end, f"blockquote signed by {match.group('name')!r}, no source")


def _quoted_above(text: str, start: int) -> bool:
    """The nearest non-empty blockquote line above is prose (a quote, not a list item)."""
    pos = start
    for _ in range(4):
        if pos <= 0:
            return False
        line_start = text.rfind("\n", 0, pos - 1) + 1
        line = text[line_start : pos - 1].strip()
        pos = line_start
        if line in (">", ""):
            continue
        body = line.lstrip("> \t")
        return line.startswith(">") and bool(body) and body[0] not in "-*+|" and len(body) > 8
    return False


@functools.lru_cache(maxsize=16)
def _role_at(company: str) -> re.Pattern[str]:
    return re.compile(
        r"(?:ceo|cto|cfo|coo|cmo|vp|vice president|director|lead architect|head of [a-z]+"
        rf"|chief [a-z]+(?: officer)?) (?:at|of) {re.escape(company.lower())}(?![a-z])"
    )
