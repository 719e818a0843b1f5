"""Critical: facts about the publishing company that the writer cannot know.

Checked against the company-fact settings (company_name, company_founded_year,
company_team_size, company_clients): a claim that matches them passes ("our team of eight" when
the team is 8), a claim that contradicts them or that no setting can confirm is critical. Money
(revenue, profit, valuation, funding) and volumes served ("we processed 2 million orders") have no
setting: the writer can never know them. The company's age is judged against the current
calendar year, so a claim of "four years" becomes true as time passes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from datetime import UTC, datetime

from agents.reviewers.validator import _company_named
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._text import phrase_matches, phrases
from agents.values import split_list
from schemas.records import Severity

FAMILY = "company_claim"
_A = "['\u2019]"
_WORDS = {
    **{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7},
    **{"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13},
    **{"fourteen": 14, "fifteen": 15},
    **{"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "a dozen": 12},
    **{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "a hundred": 100, "a decade": 10},
    **{"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90},
    **{"two decades": 20, "three decades": 30, "decades": 20, "a century": 100},
}
_N = r"(?:\d[\d,]{0,9}|a dozen|a hundred|a decade|two decades|three decades|decades|a century|" + (
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|ten|one|two"
    r"|three|four|five|six|seven|eight|nine)"
)
_MORE = r"(?:(?P<more>over|more than|almost|nearly|about|around|roughly|some|just|only) )?"
_CLAIMS = phrases(
    # "our small team of 14"; "a team of six" only counts in the company's own voice (_judge)
    (
        "team staff company agency studio crew",
        rf"(?P<teamof>team|staff|company|agency|studio|crew|group) of {_MORE}(?P<team>{_N})"
        r"(?![\w-])",
    ),
    # Awards and rankings: "we've won two Webby Awards", "Acme was named one of the best
    # agencies", "our award-winning studio"
    (
        "won received earned collected scooped picked took taken",
        rf"(?:we|{{company}})(?:{_A}ve| have| has)? (?:won|received|earned|collected|scooped"
        r"|picked up|took home|taken home) (?:[\w'\u2019&-]+ ){0,5}?(?P<award>awards?|prizes?"
        r"|medals?|trophy|trophies|honou?rs?)(?![a-z])",
    ),
    # "our work has won two Webbys", "our booking flows have been shortlisted for"
    (
        "won received earned shortlisted nominated recognised recognized",
        r"our (?:[a-z-]{2,20} ){1,3}?(?:has |have )?(?:been |also been )?(?P<award>won|received"
        r"|earned|shortlisted|nominated|recognised|recognized)(?: [\w'\u2019&-]+){0,6}?"
        r" (?:awards?|prizes?|medals?|honou?rs?|trophy|trophies|accolades)(?![a-z])",
    ),
    (
        "named voted ranked recognised recognized shortlisted listed featured crowned",
        rf"(?:we|{{company}})(?:{_A}ve| have| has| were| was| are| is)(?: been| also been)?"
        r" (?P<award>named|voted|ranked|recognised|recognized|shortlisted|listed|featured|crowned)"
        r" (?:as |among |one of |in |by |on |the |a )",
    ),
    # "we're a three-time winner of the ...", "Acme is proud to be a finalist of ..."
    (
        "winner winners recipient finalist finalists honoree honouree nominee",
        rf"(?:we{_A}re|we are|we were|{{company}} is|{{company}} was) (?:proud to be |now )?"
        r"(?:a |an |the )?(?:[\w-]+ ){0,2}?(?P<award>winners?|recipients?|finalists?|honou?rees?"
        r"|nominees?)"
        r" (?:of|for|in|at)(?![a-z])",
    ),
    (
        "award-winning awards accolades",
        rf"(?:our|{{company}}{_A}s) (?:(?P<award>award-winning) [a-z-]+|(?P<awards>awards|accolades"
        r"|honou?rs)(?: include|:| so far| list))",
    ),
    (
        "our",
        rf"our {_MORE}(?P<team>{_N})\+? (?:employees|engineers|designers|developers|experts|staff"
        r"|specialists|consultants|people|members|writers)(?![a-z])",
    ),
    # "our 60-person engineering team", "a 200-strong studio"
    (
        "our",
        rf"our (?P<team>{_N})[- ](?:person|people|strong|member)(?: [a-z-]+){{0,3}}?"
        r" (?:team|staff|company|agency|studio|crew|workforce|department|group|unit|division"
        r"|org|organi[sz]ation|squad|practice|office|firm|consultancy|shop)(?![a-z])",
    ),
    # "we employ 80 people", "we now have 40 engineers", "we are 30 people" (a bare "we have two
    # developers on call" is about a rota, not the headcount)
    *(
        (
            "employ employs have has are is",
            rf"(?:we|{{company}}) {verb} {_MORE}(?P<team>{_N})\+? (?:full-time )?(?:employees"
            r"|engineers|designers|developers|staff|specialists|consultants|people|members"
            r"|writers)(?![a-z])",
        )
        for verb in (
            r"(?:now |currently |today )?(?:employ|employs|are|is)",
            r"(?:now|currently|today) (?:have|has)",
            r"(?:have|has)(?= (?:over|more than) )",
        )
    ),
    # "our engineering team now numbers 85", "our headcount has grown to 200", "our staff is
    # 30 people": the team named, then its size
    (
        "team staff workforce headcount crew group division department org organisation"
        " organization",
        rf"our (?:[a-z-]{{2,20}} ){{0,2}}?(?:team|staff|workforce|headcount|crew|group|division"
        r"|department|org|organi[sz]ation) (?:now |today "
        r"|currently )?(?:numbers|totals|counts|stands at|is|is now|has grown to|grew to"
        rf"|has reached|reached|has|includes|of) {_MORE}(?P<team>{_N})\+?"
        r"(?: (?:full-time |permanent )?(?:employees|engineers|designers|developers|staff|people"
        r"|members|specialists|consultants|writers|strong)| ?[.,;)]|$)(?![a-z])",
    ),
    # "we're 200 strong", "we are now a team of 45", "we're a 30-person studio", "we have grown
    # to 85 people"
    (
        "we're we\u2019re are",
        rf"(?:we{_A}re|we are|{{company}} is)(?: now| currently| today)? (?:a team of |an? )?"
        rf"{_MORE}(?P<team>{_N})\+?(?:[- ](?:person|people|strong|member))?"
        r" (?:strong|people|employees|engineers|designers|developers|staff|members|specialists"
        r"|team|studio|company|agency|crew|shop|consultancy)(?![a-z])",
    ),
    (
        "grown",
        rf"(?:we|{{company}})(?:{_A}ve| have| has) grown (?:to|into) (?:a team of |an? )?{_MORE}"
        rf"(?P<team>{_N})\+?(?:[- ](?:person|people|strong|member))?(?: (?:[a-z-]+ )?(?:people"
        r"|employees|engineers|designers|developers|staff|members|team|studio|company))?"
        r"(?![\w-])",
    ),
    # "we have 80 employees", "Acme has over 200 staff": a bare have/has only with a headcount
    # noun ("we have two developers on call" is a rota)
    (
        "employees staff full-time payroll",
        rf"(?:we|{{company}})(?:{_A}ve| have| has)(?: now| currently| today)? {_MORE}"
        rf"(?P<team>{_N})\+? (?:full-time )?(?:employees|staff|people on (?:the|our|its) payroll"
        r"|full-timers)(?![a-z])",
    ),
    # "we've been building booking tools since 2011": a year, not a count of years; the verbs
    # are the business's own work ("we have been using Figma since 2016" is about people)
    (
        "been",
        rf"(?:we|{{company}})(?:{_A}ve| have| has) been (?:building|making|designing|developing"
        r"|creating|serving|helping|running|operating|working|supporting|providing|offering"
        r"|selling|shipping|writing|delivering|advising|consulting|in business|around|trading)"
        r"(?: [\w&.-]+){0,8}? since "
        r"(?:as early as |back in )?(?P<since>(?:19|20)\d\d)(?!\d)",
    ),
    (
        "been",
        rf"(?:we|{{company}})(?:{_A}ve| have| has) been [a-z]+(?: [\w&.-]+){{0,8}}? (?:for|since) "
        rf"{_MORE}(?!(?:19|20)\d\d(?!\d))(?P<years>{_N})(?: years?)?(?![\w-])",
    ),
    # "Since 2009, we have helped ..."
    (
        "since",
        rf"since (?P<since>(?:19|20)\d\d),? (?:we|{{company}})(?:{_A}ve| have| has)? [a-z]+",
    ),
    (
        "spent invested",
        rf"(?:we|{{company}})(?:{_A}ve| have| has) (?:spent|invested) {_MORE}"
        rf"(?:the (?:last|past) )?(?P<years>{_N}) (?:years?|decades?)(?![a-z])",
    ),
    (
        "founded founding started began launched",
        r"since (?:we (?:were )?(?:founded|started|began|launched)|our founding|we started out"
        r"|(?:the company|{company}) (?:was )?(?:founded|started|launched))(?: the company)?"
        r"(?: back)? in (?P<founded>(?:19|20)\d\d)(?!\d)",
    ),
    (
        "founded established",
        r"(?:we were|{company} was|our company was) (?:founded|established|started|launched)"
        r"(?: back)? in (?P<founded>(?:19|20)\d\d)(?!\d)",
    ),
    (
        "revenue revenues profit profits margin margins valuation funding sales arr mrr turnover"
        " earnings",
        rf"(?:our|{{company}}{_A}s) (?:annual |monthly |recurring |total |net |gross |recent )?"
        r"(?P<money>revenues?|profits?|profit margins?|margins?|valuation|funding(?: round)?|sales"
        r"|arr|mrr|turnover|earnings)(?: [\w-]+){0,2}? (?:tripled|doubled|quadrupled|grew|rose"
        r"|increased|jumped|fell|dropped|reached|hit|topped|exceeded|is|was|were|of|round|lets"
        r"|let|allows|came|grew|hit)(?![a-z])",
    ),
    ("raised", r"we(?: recently)? raised (?P<money>[$\u20ac\u00a3]\d)"),
    # money moved through the company, in its voice anywhere in the sentence: "Acme makes one
    # automatically and processed over \u00a3300 million for freelancers last year"
    (
        "processed handled paid collected moved transferred invoiced billed",
        r"(?:processed|handled|paid out|collected|moved|transferred|invoiced|billed) "
        rf"{_MORE}(?P<handled>[$\u20ac\u00a3]\d[\d,.]*(?: ?(?:million|billion|thousand|[mbk]n?))?)"
        r"(?![\w])",
    ),
    # "we doubled our revenue", "Acme tripled its annual sales"
    (
        "doubled tripled quadrupled grew increased boosted",
        rf"(?:we|{{company}})(?: have| has|{_A}ve)? (?:doubled|tripled|quadrupled|grew|increased"
        r"|boosted) (?:our|its) (?:annual |monthly |recurring |total |net |gross )?"
        r"(?P<money>revenues?|profits?|margins?|sales|arr|mrr|turnover|earnings)(?![a-z])",
    ),
    (
        "helped served trained supported support supports worked work works",
        rf"(?:we|{{company}})(?:{_A}ve| have| has)? (?:helped|served|worked with|work with"
        r"|works with|trained|supported|support|supports)"
        rf" {_MORE}(?P<volume>\d[\d,]{{0,9}}|dozens of|hundreds of|thousands of)\+?"
        r" (?:[a-z-]{2,20} )?(?:clients|customers"
        r"|companies|businesses|students|people|brands|teams|organi[sz]ations|users|schools"
        r"|charities|clinics|practices|councils|hospitals|shops|retailers|firms|agencies"
        r"|universities|colleges|nurseries|surgeries)(?![a-z])",
    ),
    (
        "processed handled served shipped delivered",
        rf"(?:we|{{company}}) (?:processed|handled|served|shipped|delivered) {_MORE}"
        r"(?P<volume>\d[\d,.]{0,9})(?: (?:million|billion|thousand))? (?:[a-z-]+ ){0,2}?"
        r"(?:orders|requests|transactions|packages|customers|users|messages|emails|visitors"
        r"|shipments|payments)(?![a-z])",
    ),
    (
        "include includes",
        r"our (?:clients|customers)(?: include| includes| are| such as| like)"
        r" (?P<clients>[^.\n]{2,200})",
    ),
    (
        "clients customers brands companies",
        r"(?P<listed>clients|customers|brands|companies) (?:such as|like|including)"
        r" (?P<clients>[^.\n]{2,200})",
    ),
    ("trusted", r"(?P<trusted>trusted) by (?P<clients>[^.\n]{2,200})"),
    (
        "partnered worked",
        rf"(?:we(?:{_A}ve| have)?|{{company}}(?: has)?) (?:worked with|partnered with)"
        r"(?: brands| companies| clients| teams)?(?: such as| like| including)?"
        r" (?P<clients>[A-Z][^.\n]{1,200})",
    ),
)
# "our 15 years of experience": found from "years of", the number before it.
_YEARS_OF = re.compile(
    r"years? of (?:experience|client work|building|helping|serving|work|practice)(?![a-z])"
)
_YEARS_BEFORE = re.compile(rf"(?<![a-z])(?:our|with) {_MORE}(?P<years>{_N}) $")
# "Oakridge Dental, one of our clients": found from ", one of our clients", the name before it.
_ONE_OF_OUR = re.compile(r", (?:one|two|some|several|both) of our (?:clients|customers)")
_NAME_BEFORE = re.compile(r"[A-Z][\w&.'\u2019-]*(?: (?:(?:&|of|de) )?[A-Z][\w&.'\u2019-]*)*$")
_TITLE_YEARS = re.compile(
    rf"(?<![a-z])(?<!next )(?<!coming )(?<!first )(?<!past )(?<!last )(?P<years>{_N})"
    r" years? (?:of|in|building|running|at|with|doing)(?![a-z])"
)
_NAME = re.compile(r"[A-Z][\w&.'\u2019-]*(?: (?:(?:&|of|de) )?[A-Z][\w&.'\u2019-]*)*")
_LIST_SEPARATOR = re.compile(r",\s*|\s+(?:and|or)\s+|;\s*")


@functools.lru_cache(maxsize=16)
def _compiled(company: str) -> tuple[tuple[frozenset[str], re.Pattern[str]], ...]:
    """The claim patterns with the company's name filled in (lowercased, escaped). With no name
    set, "we" stands in: every alternative stays a literal, so `re` keeps its fast scan."""
    name = re.escape(company.lower()) if company.strip() else "we"
    words = frozenset(company.lower().split())
    return tuple(
        (gate | words, re.compile(pattern.pattern.replace("{company}", name)))
        for gate, pattern in _CLAIMS
    )


@rule(
    "unknowable_company_claim",
    Severity.CRITICAL,
    FAMILY,
    "A company fact the writer cannot know or that contradicts the company_* settings (revenue, "
    "team size, age, clients, volumes served).",
)
def unknowable_company_claim(ctx: Context) -> Iterator[Hit]:
    settings = ctx.settings
    patterns = _compiled(settings.company_name)
    last_end = -1
    for match in sorted(phrase_matches(patterns, ctx.lower, ctx.words), key=lambda m: m.start()):
        start, article = match.start(), None
        if match.group("teamof") if "teamof" in match.re.groupindex else None:
            # found from "team of" (a literal opening); "our"/"a" and up to two words before it
            before = _ARTICLE_BEFORE.search(ctx.lower, max(0, start - 50), start)
            if before is None:
                continue
            start, article = before.start(), before.group("article")
        if start < last_end:
            continue  # "since we were founded in 2009" is one claim
        why = _judge(match, ctx, article)
        if why is not None:
            last_end = match.end()
            yield Hit(start, match.end(), why)
    if "work" in ctx.words or "works" in ctx.words:
        yield from _workforce(ctx)
    if "years" in ctx.words or "year" in ctx.words:
        for match in _YEARS_OF.finditer(ctx.lower):
            before = _YEARS_BEFORE.search(ctx.lower, max(0, match.start() - 40), match.start())
            if before is None:
                continue
            why = _age(_number(before.group("years")), before.group("more"), ctx)
            if why is not None:
                yield Hit(before.start(), match.end(), why)
    if ctx.has_any(_ONE_OF_OUR_GATE):
        yield from _company_named.clients_in_apposition(ctx, _clients)
        for match in _ONE_OF_OUR.finditer(ctx.lower):
            name = _NAME_BEFORE.search(ctx.prose, max(0, match.start() - 60), match.start())
            why = _clients([name.group(0)], ctx) if name is not None else None
            if name is not None and why is not None:
                yield Hit(name.start(), match.end(), why)
    if ctx.has_any(_company_named.ASKED_US_GATE):
        yield from _company_named.organisations_served(ctx, _clients)
    for match in _TITLE_YEARS.finditer(ctx.title.lower()):
        why = _age(_number(match.group("years")), None, ctx)
        if why is not None:
            yield Hit(match.start(), match.end(), f"title claims {match.group(0)!r}: {why}", True)


# "more than 150 people work at Brightline Studio": found from " work(s) at/for <the company>" (a
# literal opening, so `re` finds it at C speed; an opening alternation of nouns is tried at every
# position), then the staff noun just before it and the number before that checked after.
_WORK_AT = re.compile(
    r" works? (?:at|for) (?:us|our (?:company|studio|agency|firm)|{company})(?![a-z])"
)
_STAFF_BEFORE = re.compile(r"(?:people|employees|engineers|designers|developers|staff)(?: now)?$")
_HEADCOUNT_BEFORE = re.compile(rf"(?<![\w-])(?P<team>{_N})\+? $")


@functools.lru_cache(maxsize=16)
def _work_at(company: str) -> re.Pattern[str]:
    name = re.escape(company.lower()) if company.strip() else "our company"
    return re.compile(_WORK_AT.pattern.replace("{company}", name))


def _workforce(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    for match in _work_at(ctx.settings.company_name).finditer(low):
        staff = _STAFF_BEFORE.search(low, max(0, match.start() - 16), match.start())
        if staff is None:
            continue
        before = _HEADCOUNT_BEFORE.search(low, max(0, staff.start() - 30), staff.start())
        if before is None:
            continue
        size, known = _number(before.group("team")), ctx.settings.company_team_size
        if not known:
            why = f"team size {size} cannot be known (company_team_size is not set)"
        elif size == known:
            continue
        else:
            why = f"team size {size} contradicts company_team_size={known}"
        yield Hit(before.start(), match.end(), why)


_ARTICLE_BEFORE = re.compile(r"(?<![a-z])(?P<article>our|a|an) (?:[a-z-]{2,20} ){0,2}?$")


def _judge(match: re.Match[str], ctx: Context, article: str | None = None) -> str | None:
    settings = ctx.settings
    groups = {k: v for k, v in match.groupdict().items() if v is not None}
    more = groups.get("more")
    if "award" in groups or "awards" in groups:
        return f"awards the writer cannot know: {ctx.prose[match.start() : match.end()]!r}"
    if article in ("a", "an") and not _company_voice(match, ctx):
        return None  # "a team of six engineers can own it": not the company's team
    if "money" in groups:
        return (
            f"company finances the writer cannot know: {ctx.prose[match.start() : match.end()]!r}"
        )
    if "volume" in groups:
        return "company volumes the writer cannot know"
    if "handled" in groups:
        if not _company_voice(match, ctx):
            return None  # "the scheme paid out \u00a32 million": not the company's books
        return f"money the company handled, which the writer cannot know: {groups['handled']!r}"
    if "team" in groups:
        size = _number(groups["team"])
        known = settings.company_team_size
        if not known:
            return f"team size {size} cannot be known (company_team_size is not set)"
        if size == known or (more in ("over", "more than") and known > size):
            return None
        return f"team size {size} contradicts company_team_size={known}"
    if "years" in groups:
        return _age(_number(groups["years"]), more, ctx)
    if "since" in groups:
        year = int(groups["since"])
        known = settings.company_founded_year
        if not known:
            return f"company active since {year} cannot be known (company_founded_year is not set)"
        if year >= known:
            return None
        return f"active since {year} contradicts company_founded_year={known}"
    if "founded" in groups:
        year = int(groups["founded"])
        known = settings.company_founded_year
        if not known:
            return f"founding year {year} cannot be known (company_founded_year is not set)"
        return (
            None if year == known else f"founded in {year} contradicts company_founded_year={known}"
        )
    if ("listed" in groups or "trusted" in groups) and not _company_voice(match, ctx):
        return None  # "companies like Amazon invest in robots": not the company's clients
    if "clients" in groups:
        return _clients(_names(ctx.prose[match.start("clients") : match.end("clients")]), ctx)
    return "company claim the writer cannot know"


_FIRST_PLURAL = re.compile(r"(?<![a-z'\u2019])(?:we|our|us|we're|we\u2019re)(?![a-z])")


def _company_voice(match: re.Match[str], ctx: Context) -> bool:
    """The sentence around a claim speaks as the company ("we", "our", the company's name)."""
    low = ctx.lower
    floor = max(0, match.start() - 200)
    start = max(low.rfind(". ", floor, match.start()), low.rfind("\n", floor, match.start()))
    end_at = [i for i in (low.find(". ", match.end()), low.find("\n", match.end())) if i != -1]
    end = min([*end_at, match.end() + 200])
    sentence = low[max(start, floor) : end]
    name = ctx.settings.company_name.strip().lower()
    return bool(_FIRST_PLURAL.search(sentence)) or bool(name and name in sentence)


def _age(years: int, more: str | None, ctx: Context) -> str | None:
    founded = ctx.settings.company_founded_year
    if not founded:
        if years <= 1:
            return None
        return f"{years} years cannot be known (company_founded_year is not set)"
    age = datetime.now(UTC).year - founded
    if years < age + 1 or (years == age + 1 and more not in ("over", "more than")):
        return None
    return f"{years} years contradicts company_founded_year={founded} (about {age} years old)"


def _names(text: str) -> list[str]:
    """The capitalised names of a list ("Nike, IKEA and the BBC" -> Nike, IKEA, BBC)."""
    found = (_NAME.search(part) for part in _LIST_SEPARATOR.split(text))
    return [m.group(0) for m in found if m is not None]


def _clients(names: list[str], ctx: Context) -> str | None:
    allowed = {c.lower() for c in split_list(ctx.settings.company_clients)}
    named = [n for n in (n.strip(" .,'") for n in names) if n and n.lower() not in _NOT_CLIENTS]
    unknown = [n for n in named if n.lower() not in allowed]
    if not named or not unknown:
        return None
    listed = "company_clients is not set" if not allowed else "not in company_clients"
    return f"client(s) {', '.join(unknown[:4])} cannot be confirmed ({listed})"


_ONE_OF_OUR_GATE = frozenset({"clients", "customers"})
_NOT_CLIENTS = frozenset({"we", "our", "the", "and", "i", "a", "an", "every", "all", "they"})


def _number(text: str) -> int:
    text = text.replace(",", "").strip()
    if text.isdigit():
        return int(text)
    if text in _WORDS:
        return _WORDS[text]
    tens, _, unit = text.replace("-", " ").partition(" ")
    return _WORDS.get(tens, 0) + _WORDS.get(unit, 0)
