"""Critical: a claim the draft makes about the company itself, by kind of claim.

`_company` reads the claims the company_* settings can check (team size, founding year,
clients) in the wordings it knows. This module is the wider net, organised by what is claimed
rather than by phrase: offices and locations, certifications and partner status, funding,
partnerships, customers counted or reach, revenue and growth, volumes the company's platform
handles, patents, awards, years in business, and clients named. A claim counts only in the
company's own voice (we, our, the company's name) and as an assertion: a sentence that opens
with "if", "when", "how to" or speaks to "you" is advice, not a claim. Each kind is judged
against the settings that could confirm it; the kinds no setting covers (offices, funding,
revenue, ...) can never be known by the writer, so they are critical whenever asserted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from agents.reviewers.validator import _company, _company_metrics, _company_record
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._text import phrase_matches, phrases
from schemas.records import Severity

_A = "['\u2019]"
# The company speaking: "we", "we've", "our company", or its name ({company}, filled in).
_WE = (
    rf"(?:we|{{company}})(?:{_A}ve| have| has| had)?(?: now| recently| just| also| already"
    r"| proudly| successfully| officially| finally)?"
)
_WE_ARE = (
    rf"(?:we{_A}re|we are|we were|we{_A}ve been|we have been|{{company}} is|{{company}} was"
    r"|{company} has been)(?: now| also| proudly| officially| fully| recently)?"
)
_N = (
    r"(?:\d[\d,.]*\+?|one|two|three|four|five|six|seven|eight|nine|ten|a dozen|dozens of"
    r"|hundreds of|thousands of|millions of)"
)
_MORE = r"(?:(?:over|more than|nearly|almost|about|around|roughly|some|well over|close to) )?"
_SCALE = r"(?: ?(?:million|billion|thousand|[km]|bn))?"
_WHO = (
    r"(?:customers|clients|users|teams|businesses|companies|brands|merchants|organi[sz]ations"
    r"|developers|agencies|retailers|schools|hospitals|clinics|restaurants|shops|stores"
    r"|subscribers|members|families|students|creators|sellers|partners)"
)
_BIZ = (
    r"(?:annual |monthly |recurring |total |net |gross |yearly |quarterly )?(?:revenues?|sales"
    r"|arr|mrr|turnover|profits?|bookings|customer base|user base|client base|subscriber base"
    r"|customers|clients|users|subscribers|headcount|workforce|valuation|market share|business)"
)
_MULTIPLE = (
    r"(?:\d[\d.,]*(?:x|%| ?percent| times|-fold)|(?:two|three|four|five|six|seven|eight|nine"
    r"|ten)(?:fold|-fold| times)|by (?:half|a third|a quarter|\w+ percent))"
)

_KINDS = phrases(
    # offices and locations
    (
        "headquartered based located",
        rf"(?P<office>{_WE_ARE} (?:headquartered|based|located) (?:in|out of) )",
    ),
    (
        "headquarters hq office offices studios branches locations",
        rf"(?P<office>(?:our|{{company}}{_A}s) (?:global |european |us |uk |new |main |head )?"
        r"(?:headquarters|hq|head office|main office|offices|studios|branches|locations|hubs)"
        r"(?: are| is)?(?: now)? (?:in|at|across|spread across|span|based in|located in) )",
    ),
    (
        "opened open operate operates runs maintain maintains office offices",
        rf"(?P<office>{_WE} (?:opened|open|operate|operates|run|runs|maintain|maintains|have|has"
        r"|added|launched) (?:an? |our |its |two |three |four |five |\d+ )?(?:new |second |third"
        r" |fourth |first |regional |european |satellite |flagship )?(?:offices?|studios?"
        r"|branch(?:es)?|locations|hubs?|headquarters)(?: in| across| on) )",
    ),
    (
        "office offices studio studios hub hubs headquarters",
        # "our Lisbon office opened", "from our London offices": a place before the office is
        # enough (checked capitalised below), whatever follows, bar "office hours" and the like
        rf"(?P<office>(?:our|{{company}}{_A}s) (?P<place>[a-z][a-z-]+)(?: and [a-z][a-z-]+)?"
        r" (?:offices?|studios?|hubs?"
        r"|headquarters)(?![a-z])(?! (?:hours|chair|chairs|space|supplies|party|suite|app)))",
    ),
    # a metric of the company named, then its value: "our NPS score is 72"
    (
        "nps retention satisfaction uptime rating churn",
        rf"(?P<growth>(?:our|{{company}}{_A}s) (?:[a-z-]+ )?(?:nps|retention|satisfaction|uptime"
        r"|rating|churn)(?: score| rate)? (?:is|was|stands at|sits at|of|hit|reached) (?:over |"
        r"above |about |around )?\d)",
    ),
    # ownership and results: "we were acquired by", "we hit profitability"
    (
        "acquired profitable profitability",
        rf"(?P<event>{_WE_ARE} acquired by |{_WE} (?:hit|reached|became|turned|broke even and"
        r" turned) (?:profitable|profitability)|(?:we|{company}) (?:turned|became) profitable)",
    ),
    (
        "recognised recognized",
        rf"(?P<award>{_WE_ARE} (?:recognised|recognized) (?:as|among) (?:one of )?the )",
    ),
    (
        "range include included span",
        rf"(?P<clientsfrom>(?:our|{{company}}{_A}s) (?:clients|customers) (?:range from|span"
        r"|have included|included) )",
    ),
    # certifications and partner status
    (
        "certified accredited compliant registered",
        rf"(?P<cert>{_WE_ARE} (?:an? |fully )?(?:[\w-]+ ){{0,4}}?(?:certified|accredited"
        r"|compliant)(?![a-z]))",
    ),
    (
        "achieved earned obtained received gained passed completed",
        rf"(?P<cert>{_WE} (?:achieved|earned|obtained|received|gained|passed|completed)"
        r"(?: our| its| an?| the)? (?:[\w-]+ ){0,3}?(?:certification|accreditation|attestation"
        r"|audit|iso ?\d{4,5}|soc ?2)(?![a-z]))",
    ),
    (
        "partner",
        rf"(?P<cert>(?:{_WE_ARE}|we became|{{company}} became|we{_A}ve become|we have become)"
        r"(?: proud to be)? (?:an? |the )(?:[\w-]+ ){0,4}?partner(?![a-z]))",
    ),
    # funding
    (
        "raised closed secured landed",
        rf"(?P<funding>{_WE} (?:raised|closed|secured|landed)(?: an?| our| its| the)?"
        r" (?:[$\u20ac\u00a3]?[\w.,-]+ ){0,4}?(?:round|funding|seed|series [a-f]|investment"
        r"|million|[$\u20ac\u00a3]\d))",
    ),
    (
        "closing raising closed raised securing secured",
        r"(?P<funding>(?:closing|raising|securing|closed|raised|secured) our (?:[\w-]+ )?"
        r"(?:pre-seed|seed|series [a-f]|funding|investment)(?: round)?(?![a-z]))",
    ),
    ("backed funded financed", rf"(?P<funding>{_WE_ARE} (?:backed|funded|financed) by )"),
    (
        "investors backers round",
        rf"(?P<funding>(?:our|{{company}}{_A}s) (?:investors|backers|lead investor|seed round"
        r"|series [a-f]|series [a-f] round|funding round|latest round)(?: include| includes| are"
        r"| was| were| came| led| closed|,))",
    ),
    # partnerships
    (
        "partnered teamed joined",
        rf"(?P<partner>{_WE} (?:partnered|teamed up|joined forces|signed a partnership) with )",
    ),
    (
        "partnership alliance",
        rf"(?P<partner>(?:our|{{company}}{_A}s) (?:[\w-]+ )?(?:partnership|alliance) with )",
    ),
    # customers counted, reach
    (
        "use rely trust choose depend run switched signed book buy order shop pay",
        r"(?P<counted>(?:use|rely on|trust|choose|depend on|run on|run their [\w-]+ on|have"
        r" switched to|signed up for|book through|book with|buy from|order from|shop with"
        r"|pay through) (?:us|our|{company})(?![a-z]))",
    ),
    (
        "serve serves served support supports supported power powers powered onboarded count"
        " counts",
        rf"(?P<reach>{_WE} (?:serve|serves|served|support|supports|supported|power|powers"
        rf"|powered|onboarded|count|counts) {_MORE}{_N}{_SCALE} (?:[\w-]+ ){{0,2}}?{_WHO}"
        r"(?![a-z]))",
    ),
    (
        "countries",
        rf"(?P<reach>(?:we|{{company}}|our (?:platform|product|app|software|service|tool))"
        r" (?:now )?(?:serves?|supports?|operates?|is used|are used|is available|is live|runs?"
        rf"|ships?|sells?)(?: [\w-]+){{0,2}}? (?:in|to|across) {_MORE}{_N} countries)",
    ),
    # revenue and growth
    (
        "grew grown",
        rf"(?P<growth>(?:we|{{company}})(?:{_A}ve| have| has)? (?:grew|grown)(?: by)? {_MULTIPLE})",
    ),
    (
        "doubled tripled quadrupled grown grew increased boosted expanded",
        rf"(?P<growth>(?P<verbfirst>doubled|tripled|quadrupled|grown|grew|increased|boosted"
        rf"|expanded) (?:our|its) {_BIZ}(?![a-z]))",
    ),
    (
        "revenue revenues sales arr mrr turnover profit profits bookings base customers clients"
        " users subscribers headcount valuation",
        rf"(?P<growth>(?:our|{{company}}{_A}s) {_BIZ}(?: [\w-]+){{0,2}}? (?:has |have )?(?:tripled"
        r"|doubled|quadrupled|grew|grown|rose|risen|increased|jumped|reached|hit|topped|exceeded"
        r"|passed|crossed|surpassed|climbed|is up|are up)(?![a-z]))",
    ),
    (
        "arr mrr recurring",
        r"(?P<growth>(?:annual recurring revenue|monthly recurring revenue|arr|mrr) (?:has )?"
        r"(?:passed|crossed|reached|hit|topped|surpassed|exceeded|grew|doubled|tripled)(?![a-z]))",
    ),
    # volumes the company's own systems handle
    (
        "processes handles serves delivers sends ingests stores powers",
        rf"(?P<volume>(?:our|{{company}}{_A}s) (?:platform|systems?|service|api|servers|network"
        r"|infrastructure|engine|product) (?:now )?(?:processes|handles|serves|delivers|sends"
        rf"|ingests|stores|powers) {_MORE}\d[\d,.]*(?: ?(?:million|billion|thousand|[km]|bn)))",
    ),
    # patents
    (
        "patent patents",
        rf"(?P<patent>{_WE} (?:hold|holds|own|owns|have|has|filed|been granted|were granted)"
        r"(?: [\w-]+){0,2}? patents?(?![a-z]))",
    ),
    # awards the older rule's wordings miss ("we were named Agency of the Year")
    (
        "named voted crowned awarded honoured honored",
        rf"(?P<award>{_WE_ARE} (?:named|voted|crowned|awarded|honou?red)(?: [\w&'-]+){{1,6}}?"
        r" (?:of the year|awards?|prize|medal|winner|finalist|best))",
    ),
    # headcount told as growth: "the team has grown to 45 people"
    (
        "grown grew expanded doubled",
        rf"(?P<team>(?:the|our) (?:[\w-]+ )?(?:team|company|studio|agency|staff|workforce)"
        r" (?:has |have )?(?:grown|grew|expanded|doubled) (?:to|from \S+ to) "
        rf"{_MORE}(?P<size>\d[\d,]*|[a-z]+(?:-[a-z]+)?) (?:people|engineers|employees|staff"
        r"|members|strong|full-time|designers|developers)(?![a-z]))",
    ),
    # years in business: "For more than a decade, we have ...", found from ", we have" (the
    # span before it is checked by _YEARS_BEFORE)
    ("decade decades years", rf"(?P<years>(?:we|{{company}})(?:{_A}ve| have| has) )"),
    # clients named: "we count Spotify among our clients"
    (
        "count counts",
        rf"(?:we|{{company}})(?:(?: are| were|{_A}re) (?:proud|lucky|happy) to)? counts?"
        rf" (?P<named>[^.\n]{{2,120}}?) among our (?:[\w-]+ )?{_WHO}",
    ),
)

# Advice, conditions and instructions: the sentence before the claim makes it hypothetical.
_NOT_ASSERTED = re.compile(
    r"(?<![a-z])(?:if|when|whenever|once|whether|unless|until|suppose|imagine|how to|you|your"
    r"|should|could|would|might|can|will|let{_A}s|once|aim to|plan to|hope to|want to|"
    r"goal is to)(?![a-z])".replace("{_A}", _A)
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")
_KIND_LABEL = {
    "office": "offices or locations",
    "cert": "certifications or partner status",
    "funding": "funding",
    "partner": "partnerships",
    "reach": "customers counted or reach",
    "counted": "customers counted or reach",
    "growth": "revenue or growth",
    "volume": "volumes the company handles",
    "patent": "patents",
    "award": "awards",
    "event": "ownership or results",
    "clientsfrom": "clients",
}


@functools.lru_cache(maxsize=16)
def _subject_before(company: str) -> re.Pattern[str]:
    """The company as the subject, ending where a verb-first claim starts."""
    name = re.escape(company.lower()) if company.strip() else "we"
    return re.compile(rf"(?<![a-z]){_WE.replace('{company}', name)} $")


@functools.lru_cache(maxsize=16)
def _compiled(company: str) -> tuple[tuple[frozenset[str], re.Pattern[str]], ...]:
    name = re.escape(company.lower()) if company.strip() else "we"
    words = frozenset(company.lower().split())
    return tuple(
        (gate | words, re.compile(pattern.pattern.replace("{company}", name)))
        for gate, pattern in _KINDS
    )


# "More than 300 teams use ...": the count before the verb, found after the verb (a literal).
_COUNTED_BEFORE = re.compile(
    # whoever they are: "900 practices", "300 teams"
    rf"(?<![\w-]){_MORE}{_N}{_SCALE} (?:[\w-]+ ){{0,2}}?(?:{_WHO}|[a-z-]{{2,20}}s)"
    # where they are: "2,000 businesses across Europe run on ..."
    r"(?: (?:across|in|around|from|throughout) (?:the )?[\w-]+(?: [\w-]+)?)?"
    r" (?:now |already |today )?$"
)


_YEARS_BEFORE = re.compile(
    rf"(?<![a-z])(?:for|over) {_MORE}(?P<n>a decade|decades|two decades|\d+|[a-z]+)(?: years)?$"
)


def _asserted(ctx: Context, start: int) -> bool:
    """The claim's sentence, up to the claim, carries no condition, advice or future."""
    low = ctx.lower
    floor = max(0, start - 200)
    cut = floor
    for m in _SENTENCE_END.finditer(low, floor, start):
        cut = m.end()
    return _NOT_ASSERTED.search(low, cut, start) is None


@rule(
    "unconfirmed_company_claim",
    Severity.CRITICAL,
    _company.FAMILY,
    "A claim about the company itself (offices, certifications, funding, partnerships, "
    "customers counted, revenue or growth, volumes, patents, awards, years in business, "
    "clients named) that the company_* settings cannot confirm.",
)
def unconfirmed_company_claim(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    for match in phrase_matches(_compiled(ctx.settings.company_name), low, ctx.words):
        start = match.start()
        if "counted" in match.re.groupindex:
            counted = _COUNTED_BEFORE.search(low, max(0, start - 80), start)
            if counted is None:
                continue
            start = counted.start()
        if "verbfirst" in match.re.groupindex:
            subject = _subject_before(ctx.settings.company_name).search(
                low, max(0, start - 60), start
            )
            if subject is None:
                continue
            start = subject.start()
        years = None
        if "years" in match.re.groupindex:
            if not low.endswith(", ", 0, start):
                continue
            years = _YEARS_BEFORE.search(low, max(0, start - 42), start - 2)
            if years is None:
                continue
            start = years.start()
        if not _asserted(ctx, start):
            continue
        if "place" in match.re.groupindex and not ctx.prose[match.start("place")].isupper():
            continue  # "our main office is" is not a place; "our Lisbon office" is
        why = _judge(match, ctx) if years is None else _judge_years(years.group("n"), ctx)
        if why is not None:
            yield Hit(start, match.end(), why)
    yield from _company_metrics.metric_hits(ctx)
    yield from _company_record.record_hits(ctx, _asserted)


def _judge(match: re.Match[str], ctx: Context) -> str | None:
    groups = {k for k, v in match.groupdict().items() if v is not None}
    said = ctx.prose[match.start() : match.end()].strip()
    if "named" in groups:
        names = _company._names(ctx.prose[match.start("named") : match.end("named")])
        return _company._clients(names, ctx)
    if "team" in groups:
        size, known = _company._number(match.group("size")), ctx.settings.company_team_size
        if size == known:
            return None
        if not known:
            return f"team size {size} cannot be known (company_team_size is not set)"
        return f"team size {size} contradicts company_team_size={known}"
    kind = next((k for k in _KIND_LABEL if k in groups), None)
    if kind is None:
        return None
    return f"company {_KIND_LABEL[kind]} no company_* setting can confirm: {said!r}"


def _judge_years(text: str, ctx: Context) -> str | None:
    years = {"a decade": 10, "decades": 20, "two decades": 20}.get(text) or _company._number(text)
    return None if years <= 1 else _company._age(years, "over", ctx)
