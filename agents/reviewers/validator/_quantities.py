"""Critical: a quantitative claim about the world with no source near it (the concept behind
`_statistics`' figure shapes), in the forms those shapes miss.

- shares written as words, of a population: "half of all outages", "roughly two thirds of
  small shops", "a quarter of all support tickets";
- multiples about a population: "remote teams ship twice as fast", "three times more likely";
- an effect sized in percent: "improves conversion by as much as 7%";
- the average member of a population: "the average developer loses 4.2 hours a week";
- returns per unit: "$36 for every dollar spent";
- research invoked for a quantity or comparison without naming it: "studies show most defects
  ...", "according to recent research data, ... more cost-effective".

A source is a link or citation near the claim (`_sources.has_source`). Figures about the draft's
own material ("a third of the examples below", "in our example, 40% ...") and imagined cases
("if half of your users ...") are not claims about the world.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._sources import has_source
from agents.reviewers.validator._statistics import _HYPOTHETICAL, FAMILY
from agents.reviewers.validator._text import phrase_matches, phrases, sentence_span
from schemas.records import Severity

_POPULATION = (
    r"(?:people|users|shoppers|consumers|customers|buyers|developers|engineers|programmers"
    r"|companies|businesses|firms|teams|startups|organi[sz]ations|enterprises|employees|workers"
    r"|adults|americans|europeans|respondents|marketers|managers|leaders|executives|ceos"
    r"|outages|incidents|breaches|attacks|tickets|projects|deployments|bugs|defects|sites"
    r"|websites|apps|visitors|readers|students|patients|doctors|shops|stores|retailers"
    r"|restaurants|households|homes|drivers|smartphones|emails|carts|searches|clicks|jobs)"
)
_WORD_SHARE = (
    r"(?:half|a third|one third|two thirds|two-thirds|a quarter|one quarter|three quarters"
    r"|three-quarters|a fifth|one fifth|two fifths|a tenth|the majority|a majority|most)"
)
_A = "['\u2019]"
_MULT = r"(?:twice|three times|four times|five times|ten times|\d+(?:\.\d+)? ?(?:x|times))"
_CLAIMS = phrases(
    (
        "half third thirds quarter quarters fifth fifths tenth majority",
        rf"{_WORD_SHARE} of (?:all |the world{_A}s |today{_A}s )?(?:[a-z-]+ ){{0,2}}?"
        rf"{_POPULATION}(?![a-z])",
    ),
    (
        "fallen fell dropped risen rose grown grew declined increased decreased shrunk shrank",
        r"(?:fallen|fell|dropped|risen|rose|grown|grew|declined|increased|decreased|shrunk"
        r"|shrank) by (?:half|a third|a quarter|two thirds|two-thirds|[a-z]+ percent)(?![a-z])",
    ),
    (
        "spend spends lose loses waste wastes",
        r"(?:spend|spends|lose|loses|waste|wastes) (?:almost |nearly |about |roughly |over |more"
        r" than |up to )?(?:half|a third|a quarter|two thirds|\d[\d.]*%|\d[\d.]* percent)"
        r" (?:of )?(?:their|its|his|her) (?:time|day|week|working|budget|revenue|income)",
    ),
    (
        "most",
        rf"(?:most|nearly all|almost all|virtually all) (?:[a-z-]+ )?{_POPULATION}"
        r" (?:leave|abandon|prefer|use|expect|say|want|never|check|read|ignore|skip|buy|trust"
        r"|choose|visit|give up|bounce|close|quit|stop)(?![a-z])"
        r"(?=[^.\n]{0,120}?(?:\d|(?<![a-z])(?:two|three|four|five|ten|half|twice)(?![a-z])))",
    ),
    (
        "twice times",
        rf"{_POPULATION} (?:[a-z-]+ ){{0,3}}?{_MULT} (?:as (?:fast|likely|often|many|much|long"
        r"|productive|quickly)|more (?:likely|often|productive|efficient)|faster|slower|higher"
        r"|lower|better|longer)(?![a-z])",
    ),
    (
        "improves improve increases increase boosts boost reduces reduce cuts cut lifts lift"
        " raises raise lowers lower",
        r"(?:improves?|increases?|boosts?|reduces?|cuts?|lifts?|raises?|lowers?)(?: [a-z-]+){1,3}"
        r" by (?:as much as |up to |over |nearly |about |roughly |almost |around |more than )?"
        r"\d[\d.,]*(?:%| percent)",
    ),
    (
        "average typical",
        r"the (?:average|typical) (?:[a-z-]+ ){1,2}?(?:spends|loses|wastes|earns|makes|receives"
        r"|gets|sees|checks|sends|writes|reads|visits|switches|uses|has) (?:about |around |roughly"
        r" |nearly |over |more than |up to )?\d[\d.,]*",
    ),
    (
        "dollar dollars pound pounds euro euros",
        r"[$\u20ac\u00a3]\d[\d.,]* (?:for|per|on|in return for) (?:every|each) (?:dollar|pound"
        r"|euro|\$1|\u00a31|\u20ac1)",
    ),
    (
        "studies research surveys data statistics according",
        r"(?:studies|research|surveys|data|statistics|recent research|recent studies|industry"
        r" research) (?:show|shows|suggest|suggests|indicate|indicates|confirm|confirms|has shown"
        r"|have shown|prove|proves|reveal|reveals)(?![a-z])"
        r"|according to (?:recent |new |the latest |industry |market )?(?:research(?: data)?"
        r"|studies|surveys|data|statistics|experts|analysts|reports)(?![a-z])",
    ),
)
# What a vague research claim must carry to be a quantitative claim.
_QUANTITY = re.compile(
    r"\d|(?<![a-z])(?:most|majority|minority|more|less|fewer|faster|slower|higher|lower|better"
    r"|worse|half|twice|double|doubled|triple|tripled|times|percent|cheaper|likely|[a-z]+er than"
    r")(?![a-z])"
)
_OWN_MATERIAL = re.compile(
    r"(?<![a-z])(?:if|even if|unless|suppose|imagine|say|whether|our example|this example|the"
    r" example|below|above|this post|this guide|in our test|in this test|our benchmark)(?![a-z])"
)
# "get 55% more visitors": found from the sign (rare; each pattern opens with a literal), the
# digits before it checked after.
_MORE_THAN = tuple(
    re.compile(sign + r" (?:more|fewer|less|higher|lower)(?![a-z])") for sign in ("%", " percent")
)
_MORE_WORDS = frozenset(("more", "fewer", "less", "higher", "lower"))
_DIGITS_BEFORE = re.compile(r"(?<![\w.])\d[\d.,]*$")


@rule(
    "unsourced_quantity",
    Severity.CRITICAL,
    FAMILY,
    'A quantitative claim about the world with no source: shares in words ("half of all '
    'outages"), multiples, effects in percent, "the average X", returns per dollar, and '
    '"studies show" a quantity or comparison.',
)
def unsourced_quantity(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    last = -1
    found = list(phrase_matches(_CLAIMS, low, ctx.words))
    if ("%" in low or "percent" in ctx.words) and not ctx.words.isdisjoint(_MORE_WORDS):
        found += (m for pattern in _MORE_THAN for m in pattern.finditer(low))
    for match in sorted(found, key=lambda m: m.start()):
        start, end = match.start(), match.end()
        if match.re in _MORE_THAN:
            digits = _DIGITS_BEFORE.search(low, max(0, start - 12), start)
            if digits is None:
                continue
            start = digits.start()
        if start < last:
            continue
        begin, stop = sentence_span(low, start, end)
        if _OWN_MATERIAL.search(low, begin, stop) is not None:
            continue
        if _HYPOTHETICAL.search(low[max(begin, start - 80) : start]) is not None:
            continue  # "a framework adopted by half of all teams can still be a poor fit"
        research = match.group(0).startswith(
            ("studies", "research", "surveys", "data", "stat", "recent", "industry", "according")
        )
        if research and _QUANTITY.search(low, begin, stop) is None:
            continue
        if has_source(ctx.prose, start):
            continue
        last = stop
        yield Hit(start, end, f"quantity with no source: {ctx.prose[start:end]!r}")
