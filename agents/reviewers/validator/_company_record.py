"""Company claims by what they assert: part of `unconfirmed_company_claim` (`_company_kinds`).

`_company_kinds` reads claims by kind of fact (offices, funding, revenue, ...); `_company_metrics`
any figure with the company as subject. This module adds the claims that carry no figure or a
figure in words, which a writer cannot know either: the company's standing ("we are the leading
studio", "the first agency in the region to", "one of the fastest-growing", "as the UK's
top-rated agency, we"), its track record ("we have delivered hundreds of migrations", "we have
never missed a launch", "trusted by 200 businesses"), who it worked for ("has built sites for the
NHS", "our work for Greenleaf Hotels"), where it is ("our studio in Manchester", "we have
designers in five countries"), certifications ("we hold ISO 27001 certification"), press and
awards ("we were featured in The Guardian"), its founders ("founded by two former Google
engineers") and its clients' results ("our clients have seen conversions rise"). Each counts in
the company's voice only, asserted (no condition, advice, plan or negation before it); clients
named are checked against company_clients and years against company_founded_year.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from agents.reviewers.validator import _company
from agents.reviewers.validator._core import Context, Hit
from agents.reviewers.validator._text import phrase_matches, phrases, sentence_span

_A = "['\u2019]"
_WE = rf"(?:we|{{company}})(?:{_A}ve| have| has| had)?(?: now| also| already| proudly)?"
_WE_ARE = (
    rf"(?:we{_A}re|we are|we were|we{_A}ve been|we have been|{{company}} is|{{company}} was"
    r"|{company} has been|{company} became|we became)(?: now| also| proudly| officially)?"
)
_BIZ = (
    r"(?:agency|agencies|studio|studios|company|companies|firm|firms|team|teams|provider"
    r"|providers|partner|partners|consultancy|consultancies|shop|shops|business|businesses"
    r"|vendor|vendors|developer|developers|practice|practices|specialists?|experts?|brand"
    r"|brands|platform|platforms|name|names|choice)"
)
_STANDING = (
    r"(?:leading|largest|biggest|best|top|top-rated|highest-rated|best-rated|fastest-growing"
    r"|fastest growing|first|only|premier|foremost|most trusted|most awarded|most experienced"
    r"|most recommended|most popular|number one|no\. ?1|#1|market-leading|industry-leading"
    r"|award-winning|pioneering|oldest|go-to|longest-running|best-known|most respected)"
)
_MANY = (
    r"(?:hundreds|thousands|dozens|scores|tens of thousands|millions) of|countless|numerous"
    r"|(?:over|more than|nearly|almost|well over) (?:\d[\d,]*|a hundred|a thousand|fifty|forty"
    r"|thirty|twenty|sixty|seventy|eighty|ninety|a dozen|two hundred|five hundred)"
    # not a time ("since we launched over 8 years ago": the company's age, judged elsewhere)
    r"(?! (?:years?|months?|weeks?|days?|hours?|decades?)(?![a-z]))"
)
_MADE = (
    r"(?:delivered|completed|built|rebuilt|launched|shipped|migrated|designed|redesigned"
    r"|developed|created|made|run|ran|audited|optimi[sz]ed|moved|converted|onboarded|handled"
    r"|managed|implemented|produced|written|wrote|deployed|rescued|fixed|trained|helped"
    r"|supported|served|worked on)"
)
# The names after "for": matched on the lowercased text, read back in the original case
# (_leading_names keeps the capitalised run: "the NHS and the BBC", not "small clinics").
_NAMES = r"(?P<named>[^.\n;:!?()|]{2,160})"

_RECORD = phrases(
    # standing: "we are the leading studio", "Acme is one of the fastest-growing agencies"
    (
        "leading largest biggest best top top-rated highest-rated best-rated fastest-growing"
        " fastest first only premier foremost most number no #1 market-leading"
        " industry-leading award-winning pioneering oldest go-to longest-running best-known",
        rf"(?P<standing>{_WE_ARE} (?:(?:one of|among) )?(?:the |an? )(?:[\w'\u2019-]+ ){{0,3}}?"
        rf"{_STANDING}(?: [\w-]+){{0,3}}? (?:{_BIZ}(?![a-z])|to (?!admit|say|agree|notice"
        r"|acknowledge|point|tell|recommend|ask|suggest|concede|warn)[a-z]+))",
    ),
    # "as the UK's top-rated Webflow agency, we ...": the standing as an appositive
    (
        "leading largest biggest best top top-rated highest-rated best-rated fastest-growing"
        " fastest first only premier foremost most number no #1 market-leading"
        " industry-leading award-winning pioneering oldest go-to longest-running best-known",
        rf"(?P<standing>as (?:one of )?(?:the |an? )(?:[\w'\u2019-]+ ){{0,3}}?{_STANDING}"
        rf"(?: [\w-]+){{0,3}}? {_BIZ},? (?:we|{{company}})(?![a-z]))",
    ),
    # track record: "we have delivered hundreds of migrations", "we've shipped over fifty sites"
    (
        "hundreds thousands dozens scores millions countless numerous over more nearly almost",
        rf"(?P<record>{_WE} (?:successfully |personally )?{_MADE} (?:{_MANY})(?![a-z]))",
    ),
    (
        "never",
        rf"(?P<record>{_WE} never (?:once )?(?:missed|lost|failed|broken|dropped|had)"
        r"(?![a-z]))",
    ),
    # "trusted by 200 businesses", "used by teams at Nike and Spotify"
    (
        "trusted relied chosen loved used depended",
        rf"(?P<trusted>(?:trusted|relied on|chosen|loved|used|depended on) by (?:{_MANY}"
        r"|\d[\d,]*\+?|teams at|brands like|companies like|the likes of|[A-Z]))",
    ),
    # who it worked for: "has built sites for the NHS and the BBC", "our work for Greenleaf"
    (
        "for",
        rf"(?:{_WE}|we{_A}ve|we) {_MADE}(?: [\w-]+){{0,4}}? for (?!you|your|our|us|a |an |the "
        rf"(?:web|first|same|next|last)|every|each|small|local|clients|customers){_NAMES}",
    ),
    (
        "work project projects campaign redesign rebuild",
        rf"(?:our|{{company}}{_A}s) (?:recent |latest |award-winning )?(?:work|projects?|campaign"
        rf"|redesign|rebuild) (?:for|with) {_NAMES}",
    ),
    # where it is: "our studio in Manchester", "we have designers in five countries"
    (
        "studio office offices headquarters hq base team",
        rf"(?P<office>(?:our|{{company}}{_A}s) (?:[a-z]+ )?(?:studio|office|offices|headquarters|hq"
        r"|base|team|teams) (?:in|on|across) (?:(?P<place>[a-z])|\w+ (?:countries|cities"
        r"|continents)))",
    ),
    (
        "countries cities continents",
        rf"(?P<office>{_WE} (?:have |employs? |has )?(?:[\w-]+ ){{0,2}}?(?:in|across) (?:\w+|\d+)"
        r" (?:countries|cities|continents|time zones))",
    ),
    # certifications: "we hold ISO 27001 certification", "we're a certified B Corp"
    (
        "certification certificate certified accreditation accredited iso soc corp",
        rf"(?P<cert>(?:{_WE} (?:hold|holds|maintain|maintains|carry|carries|have|has)"
        r"(?: an?| the| our| its)? (?:[\w-]+ ){0,3}?(?:certification|certificate|accreditation"
        rf"|iso ?\d{{4,5}}|soc ?2)|{_WE_ARE} (?:an? |fully )?(?:certified|accredited) )"
        r"(?![a-z]))",
    ),
    # press: "we were featured in The Guardian", "our work has been covered by Wired"
    (
        "featured mentioned covered profiled interviewed quoted written",
        rf"(?P<press>(?:{_WE_ARE}|our (?:work|studio|team|founders?) (?:has been|have been|was"
        r"|were)) (?:recently )?(?:featured|mentioned|covered|profiled|written up|interviewed"
        r"|quoted) (?:in|by|on) )",
    ),
    # awards for named work: "our work for Greenleaf Hotels won Site of the Day"
    (
        "won",
        rf"(?P<award>(?:our|{{company}}{_A}s) (?:[\w-]+ ){{1,5}}?won (?:an? |the )?"
        r"(?P<place>[a-z0-9]))",
    ),
    # founders: "founded by two former Google engineers", "our founder started it in 2015"
    (
        "founded started established co-founded",
        r"(?P<founders>(?:we were|{company} was|the (?:company|studio|agency|firm) was|our"
        r" (?:company|studio|agency|firm) was) (?:founded|started|set up|established|co-founded)"
        r" by )",
    ),
    (
        "founder founders co-founder co-founders",
        r"our (?:co-)?founders? (?:[a-z][\w-]+ ){0,2}?(?:started|founded|launched"
        r"|set up|built|opened) (?:the (?:company|studio|agency|business|firm)|{company}|it|us)"
        r"(?: [\w-]+){0,6}? in (?P<founded>(?:19|20)\d\d)(?!\d)",
    ),
    (
        "founder founders co-founder co-founders",
        r"(?P<founders>our (?:co-)?founders? (?:previously |once |also )?(?:worked|led|ran|spent"
        r"|sold|built|headed|was|were) )",
    ),
    # clients' results: "our clients have seen conversion rates rise by 30%"
    (
        "seen saw see report reported achieve achieved get got gain gained enjoy enjoyed cut"
        " saved grew doubled tripled",
        rf"(?P<results>(?:our|{{company}}{_A}s) (?:clients|customers|users) (?:have |typically "
        r"|regularly |on average |usually )?(?:seen|saw|see|report|reported|achieve|achieved|get"
        r"|got|gain|gained|enjoy|enjoyed|cut|saved|grew|doubled|tripled)(?![a-z]))",
    ),
    # experience the team is said to have: "our team has decades of combined experience"
    (
        "experience",
        rf"(?P<record>(?:our (?:[a-z]+ )?team|we|{{company}})(?:{_A}ve| have| has| bring| brings)"
        r" (?:over |more than )?(?:decades|\d+\+? years|[a-z]+ years|a century) of (?:combined"
        r" |collective |shared )?experience)",
    ),
    # active since a year: "we have rebuilt more than fifty booking systems since 2019"
    (
        "since",
        rf"{_WE} {_MADE}(?: [\w&.'\u2019-]+){{0,8}}? since (?P<since>(?:19|20)\d\d)(?!\d)",
    ),
)
_LABEL = {
    "standing": "standing",
    "record": "track record",
    "trusted": "customers or reach",
    "office": "offices or locations",
    "cert": "certifications",
    "press": "press coverage",
    "award": "awards",
    "founders": "founders",
    "results": "clients' results",
}
# A negation or a wish right before the claim: "we are not the only", "we want to be the first".
_NEGATED = re.compile(r"(?:not|n't|n\u2019t|never|hope|want|aim|plan|strive|try|trying) ")


@functools.lru_cache(maxsize=16)
def _compiled(company: str) -> tuple[tuple[frozenset[str], re.Pattern[str]], ...]:
    name = re.escape(company.lower()) if company.strip() else "we"
    words = frozenset(company.lower().split())
    return tuple(
        (gate | words, re.compile(pattern.pattern.replace("{company}", name), pattern.flags))
        for gate, pattern in _RECORD
    )


def record_hits(ctx: Context, asserted: Callable[[Context, int], bool]) -> Iterator[Hit]:
    """The claims above that the settings cannot confirm. `asserted(ctx, start)` is
    `_company_kinds._asserted` (passed in: that module imports this one)."""
    low = ctx.lower
    patterns = _compiled(ctx.settings.company_name)
    for match in phrase_matches(patterns, low, ctx.words):
        start = match.start()
        if not asserted(ctx, start):
            continue
        if _NEGATED.search(low, max(0, start - 12), start + 1) and not low.startswith(
            "never", start
        ):
            continue
        place = match.start("place") if match.groupdict().get("place") else -1
        if place >= 0 and not (ctx.prose[place].isupper() or ctx.prose[place].isdigit()):
            continue  # "our team in the office" is not a place; "our studio in Leeds" is
        begin, _ = sentence_span(low, start, match.end(), reach=200)
        if "trusted" in match.re.groupindex and not _voiced(ctx, begin, match.end() + 120):
            continue
        why = _judge(match, ctx)
        if why is not None:
            yield Hit(start, match.end(), why)


_NAME_TOKEN = re.compile(r"[\w&.'\u2019-]+|,")
_CONNECTORS = frozenset({"and", "&", "the", ",", "of"})
# Nouns a name only qualifies: "the FreeAgent website" is the company's own product.
_MODIFIED = frozenset(
    (  # noqa: SIM905
        "website websites site sites app apps users user customers team teams platform store"
        " theme themes plugin plugins api community ecosystem account accounts blog page pages"
        " docs developers integration integrations extension extensions project projects"
    ).split()
)


def _leading_names(text: str) -> list[str]:
    """The capitalised names at the start of `text` ("the NHS and the BBC in 2023" -> NHS,
    BBC); none when it starts with an ordinary word."""
    names: list[str] = []
    current: list[str] = []
    for token in _NAME_TOKEN.findall(text):
        if token[:1].isupper() or (current and token[:1].isdigit()):
            current.append(token)
            continue
        if token in ("&", "of") and current:
            current.append(token)  # "Pine & Co", "Bank of Ireland"
            continue
        if token.lower() not in _CONNECTORS:
            if token in _MODIFIED:
                current = []  # "the FreeAgent website", "WordPress users": not a client
            break
        if current:
            names.append(" ".join(current))
            current = []
    if current:
        names.append(" ".join(current))
    return names


def _voiced(ctx: Context, begin: int, end: int) -> bool:
    sentence = ctx.lower[begin : min(len(ctx.lower), end)]
    name = ctx.settings.company_name.strip().lower()
    return bool(_company._FIRST_PLURAL.search(sentence)) or bool(name and name in sentence)


def _judge(match: re.Match[str], ctx: Context) -> str | None:
    groups = {k for k, v in match.groupdict().items() if v is not None}
    said = ctx.prose[match.start() : match.end()].strip()
    if "named" in groups:
        own = ctx.settings.company_name.strip().lower()
        named = _leading_names(ctx.prose[match.start("named") : match.end("named")])
        names = [n for n in named if n.lower() != own]
        return _company._clients(names, ctx) if names else None
    if "since" in groups or "founded" in groups:
        found = match.groupdict()
        year = int(found.get("since") or found.get("founded") or 0)
        known = ctx.settings.company_founded_year
        if not known:
            return f"company active since {year} cannot be known (company_founded_year is not set)"
        if year >= known if "since" in groups else year == known:
            return None
        return f"{year} contradicts company_founded_year={known}"
    kind = next((k for k in _LABEL if k in groups), None)
    if kind is None:
        return None
    return f"company {_LABEL[kind]} no company_* setting can confirm: {said!r}"
