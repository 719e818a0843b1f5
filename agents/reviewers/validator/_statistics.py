"""Critical: statistics and studies with nobody behind them; warnings: sources named but not linked.

A figure or a study needs a source in its paragraph (a link, a footnote reference); a named source
("according to Gartner") without a link is a warning, since the name may be real.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._sources import has_source
from agents.reviewers.validator._text import (
    at_word_start,
    line_start_matches,
    phrase_matches,
    phrases,
    word_matches,
)
from schemas.records import Severity

FAMILY = "unsourced_stats"
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
    # "2024 study by": the study word sits between spaces, so it is one of the draft's words;
    # "according to a study's ..." may not be, so that pattern is gated on its own opening.
    patterns = [_STUDY_BY_YEAR] if ctx.has_any(_STUDY_WORDS) else []
    if "according to " in low:
        patterns.append(_ACCORDING_TO_STUDY)
    for pattern in patterns:
        for match in word_matches(pattern, low):
            if not has_source(ctx.prose, match.start()):
                yield Hit(match.start(), match.end(), "study cited without a source link")


_TENS = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_UNITS = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_TEENS = r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
_NUMBER_WORD = rf"(?:{_TENS}(?:[- ]{_UNITS})?|{_TEENS}|{_UNITS}|a hundred|one hundred)"
# Found from the "%" (or "percent") backwards and forwards: the sign is rare, so this is fast.
_NUMBER_BEFORE = re.compile(
    rf"(?:(?<![\d.,])\d{{1,3}}(?:[.,]\d{{1,2}})?|(?<![a-z]){_NUMBER_WORD}) ?$"
)
# Who a figure is about ("62 percent of shoppers", "3 in 4 developers", "a third of adults").
_POPULATION = (
    r"(?:all |the |new |current |active |us |uk |online |professional |small |large )?"
    r"(?:[a-z-]{2,20} ){0,2}?(?:users|companies|businesses|people|respondents|developers|customers"
    r"|marketers|organi[sz]ations|consumers|adults|teams|enterprises|shoppers|visitors|workers"
    r"|employees|buyers|readers|students|patients|drivers|households|americans|europeans|teens"
    r"|children|parents|managers|engineers|leaders|executives|ceos|founders|startups|websites"
    r"|sites|apps|applications|projects|sales|traffic|visits|revenue|searches|emails|jobs|cars"
    r"|homes|firms|retailers|brands|smokers|runners|gamers|viewers|subscribers|internet users"
    r"|professionals|microplastics)(?![a-z])"
)
# The effect may follow a word or two naming what changed ("a 40% performance boost", "a 30%
# cost reduction").
_EFFECT_AFTER = re.compile(
    r" ?(?:[a-z-]{2,20} ){0,2}?(?:increase|decrease|reduction|improvement|boost|rise|drop|growth"
    r"|decline|jump|gain|lift"
    r"|saving|savings|faster|slower|cheaper|higher|lower|fewer|better|smaller|larger|uplift"
    r"|more likely|less likely|more often|less often|higher conversion"
    rf"|of {_POPULATION})(?![a-z])"
)
_VERB_BY_BEFORE = re.compile(
    r"(?<![a-z])(?:increase|improve|boost|reduce|cut|grow|raise|lower|drop|fall|fell|rose|rise"
    r"|grew|jump|climb|slash|shrank|shrink|decline|lift)(?:s|d|ed)? "
    r"(?:[\w-]{1,20} ){0,3}?by (?:up to |over |nearly |almost |about |around |roughly |some )?"
    rf"(?:\d{{1,3}}(?:[.,]\d{{1,2}})?|{_NUMBER_WORD}) ?$"
)
# A reported change with no "by": "sales grew 40% last year", "churn fell 12 percent".
_PAST_VERB_BEFORE = re.compile(
    r"(?<![a-z])(?:grew|rose|fell|dropped|increased|decreased|jumped|climbed|declined|surged"
    r"|plunged|plummeted|soared|shrank|improved|spiked|slid|tumbled) "
    r"(?:(?:up to|over|nearly|almost|about|around|roughly|some|more than|less than) )?"
    rf"(?:\d{{1,3}}(?:[.,]\d{{1,2}})?|{_NUMBER_WORD}) ?$"
)
_PERCENT = re.compile(r"%|percent(?![a-z])|per cent(?![a-z])")
# Figures without a percent sign: fractions and multiples of something, ratios of a population.
_SHAPES = phrases(
    (
        "half third quarter two-thirds three-quarters times",
        r"(?:fell|dropped|rose|grew|declined|increased|decreased|shrank|jumped|climbed|plunged"
        r"|cut|cuts|reduced|reduces|lowers|lowered|raises|raised|lowering|cutting)"
        r" (?:[\w-]{1,20} ){0,4}?by (?:half|a half|a third|a quarter|two-thirds|three-quarters"
        r"|(?:two|three|four|five|ten|\d{1,3}) times)(?![a-z])",
    ),
    # The present or bare form needs a period to be a reported change ("saw bounce rates drop by
    # a third between 2022 and 2024"); without one it is an instruction ("reduce it by half").
    (
        "half third quarter two-thirds three-quarters",
        r"(?:drop|drops|fall|falls|rise|rises|grow|grows|decline|declines|increase|increases"
        r"|decrease|decreases|shrink|shrinks|jump|jumps|climb|climbs|plunge|plunges)"
        r" (?:[\w-]{1,20} ){0,4}?by (?:half|a half|a third|a quarter|two-thirds|three-quarters)"
        r" (?:between|from|since|in|over|within) (?:(?:19|20)\d\d|the (?:last|past) )",
    ),
    (
        "doubled tripled quadrupled halved",
        r"(?:doubled|tripled|quadrupled|halved) (?:[\w-]{1,20} ){0,3}?(?:between|since|from|in"
        r"|over|within) (?:(?:19|20)\d\d|the (?:last|past) )",
    ),
    (
        "half third quarter two-thirds three-quarters",
        rf"(?:half|a third|a quarter|two-thirds|three-quarters|one in (?:three|four|five|ten)) of "
        rf"{_POPULATION}",
    ),
)
_SHAPE_GATE = frozenset().union(*(gate for gate, _ in _SHAPES))
# "3 in 4 shoppers", "one out of five adults": found from " in " / " out of " (str.find, C speed;
# a pattern starting with a number alternation would be tried at most positions), then the
# number before and the number and population after.
# "3 in 4 shoppers", "one out of five adults": found from " in " / " out of " followed by a
# number (a pattern starting with a literal runs at C speed; one starting with a number
# alternation would be tried at most positions), then the number before and the population after.
_RATIO_NEXT = re.compile(rf" (?:in|out of) (?=(?:\d|{_UNITS}|ten)(?![a-z]))")
_RATIO_BEFORE = re.compile(rf"(?:\d{{1,2}}|{_UNITS}|ten)$")
_RATIO_AFTER = re.compile(rf"(?:in|out of) (?:\d{{1,3}}|{_UNITS}|ten) {_POPULATION}")


def _ratios(low: str) -> Iterator[tuple[int, int]]:
    for next_ in _RATIO_NEXT.finditer(low):
        pos = next_.start()
        before = _RATIO_BEFORE.search(low, max(0, pos - 8), pos)
        if before is None or not at_word_start(low, before.start()):
            continue
        after = _RATIO_AFTER.match(low, pos + 1)
        if after is not None:
            yield before.start(), after.end()


@rule(
    "unsourced_statistic",
    Severity.CRITICAL,
    FAMILY,
    'A figure with no source in its paragraph ("a 47% increase", "roughly 62 percent of '
    'shoppers", "fell by half between 2021 and 2023", "3 in 4 developers").',
)
def unsourced_statistic(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    found: list[tuple[int, int]] = []
    if "%" in low or "cent" in ctx.words or "percent" in ctx.words:
        found += _percent_effects(low)
    if ctx.has_any(_SHAPE_GATE):
        found += [(m.start(), m.end()) for m in phrase_matches(_SHAPES, low, ctx.words)]
    found += _ratios(low)
    last_end = -1
    kept: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if start < last_end:
            continue
        last_end = end
        if _CLAIMED.search(low, max(0, start - 40), start):
            continue
        if _HYPOTHETICAL.search(low, max(0, start - 60), start):
            continue
        kept.append((start, end))
    sourced = {low[start:end] for start, end in kept if has_source(ctx.prose, start)}
    for start, end in kept:
        figure = low[start:end]
        # A figure stated with its source once may be repeated without it ("so if a third of
        # developers already use it ..." in the conclusion).
        if figure not in sourced:
            yield Hit(start, end, f"statistic with no source: {ctx.prose[start:end]!r}")


# A figure the sentence itself calls someone's claim ("the page claims a 30 percent saving",
# "the vendor advertises up to 40% faster builds") is reported, not asserted by the writer: the
# writer is discussing the claim (usually to doubt it). Asserted figures ("a 47% increase") and
# figures pinned on a vague source (vague_attribution) are unaffected; "boasts" and "promises"
# are not claim verbs here, since model prose uses them for "has" ("the chip boasts a 40% boost").
_CLAIMED = re.compile(
    r"(?<![a-z])(?:claim|claims|claimed|claiming|advertise|advertises|advertised|advertising"
    r"|tout|touts|touted|touting"
    r"|allege|alleges|alleged|alleging|purport|purports|purported|purporting)"
    r"(?: to (?:deliver|give|offer|bring|provide|achieve|cut \w+ by|save \w+))?"
    r" (?:(?:an?|the|up to|over|nearly|almost|about|around|roughly|some|as much as) ){0,2}$"
)


# A figure that only qualifies an imagined case is not a statistic: "a language used by a third
# of developers can still be the wrong tool", "even if half of your users never scroll".
_HYPOTHETICAL = re.compile(
    r"(?:(?<![a-z])(?:an?|any|some) [a-z-]{2,20}(?: [a-z-]{2,20})? (?:used|adopted|liked|loved"
    r"|preferred|chosen|read|visited|installed|downloaded|bought|trusted|ignored) by "
    r"|(?<![a-z])(?:if|even if|unless|suppose|imagine|say|whether) (?:[\w'\u2019-]{1,20} ){0,5}?"
    r"(?:by |with |for |to )?)"
    r"(?:only |just |over |about |around |roughly |nearly |almost |as many as |as few as )?$"
)


def _percent_effects(low: str) -> Iterator[tuple[int, int]]:
    for sign in _PERCENT.finditer(low):
        left = low[max(0, sign.start() - 120) : sign.start()]
        number = _NUMBER_BEFORE.search(left[-30:])
        if number is None:
            continue
        start = sign.start() - (len(left[-30:]) - number.start())
        effect = _EFFECT_AFTER.match(low, sign.end(), sign.end() + 80)
        verb = None if effect else _VERB_BY_BEFORE.search(left) or _PAST_VERB_BEFORE.search(left)
        if effect is None and verb is None:
            continue
        if verb is not None:
            start = sign.start() - (len(left) - verb.start())
        yield start, effect.end() if effect is not None else sign.end()


# Figures pinned on nobody: a vague source and a figure in the same sentence.
_VAGUE_SOURCES = phrases(
    ("industry", r"industry (?:data|research|reports?|figures|experts|analysts|surveys?)"),
    (
        "data research studies surveys statistics reports analysts experts economists scientists"
        " researchers",
        r"(?:data|research|studies|surveys|statistics|reports|analysts|experts|economists"
        r"|scientists|researchers) (?:show|shows|showed|suggest|suggests|find|found|indicate"
        r"|indicates|reveal|reveals|estimate|estimated|estimates|say|said|predict|agree|confirm)"
        r"(?![a-z])",
    ),
    ("estimated", r"it (?:is|has been) estimated that"),
    (
        "according",
        r"according to (?:our|recent|industry|internal|market|some|many|new|the latest)"
        r" (?:own )?(?:analysis|data|research|estimates|figures|numbers|surveys?|studies"
        r"|reports?|experts|analysts|findings|calculations)(?![a-z])",
    ),
    (
        "our",
        r"our (?:own )?(?:analysis|data|research|findings|numbers) (?:shows?|suggests?|finds?)",
    ),
)
_NAMED_REPORT = re.compile(
    r"(?:[Aa]n?|[Tt]he|[Oo]ne) (?:recent |new |latest |annual |\d{4} )?[A-Z][\w&-]{1,30}"
    r"(?: [A-Z][\w&-]{1,30})? (?:report|study|survey|analysis|poll|paper|whitepaper|index)"
    r" (?:found|finds|shows|showed|says|said|estimates|estimated|predicts|revealed|reveals"
    r"|suggests)"
)
_REPORT_GATE = frozenset({"report", "study", "survey", "analysis", "poll", "paper", "whitepaper"})
_FIGURE = re.compile(
    rf"\d|%|percent|per cent|(?<![a-z])(?:{_NUMBER_WORD}|half|a third|a quarter|two-thirds"
    r"|three-quarters|twice|double|triple|hundreds?|thousands?|millions?|billions?)(?![a-z])"
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


@rule(
    "vague_attribution",
    Severity.CRITICAL,
    FAMILY,
    'A figure pinned on nobody ("industry data shows 3 in 4", "experts estimate a third", '
    '"according to our analysis, twice as often", "a recent Gartner report found 70 percent").',
)
def vague_attribution(ctx: Context) -> Iterator[Hit]:
    low, text = ctx.lower, ctx.prose
    found = [(m.start(), m.end()) for m in phrase_matches(_VAGUE_SOURCES, low, ctx.words)]
    if ctx.has_any(_REPORT_GATE):
        found += [(m.start(), m.end()) for m in word_matches(_NAMED_REPORT, text)]
    last_end = -1
    for start, end in sorted(found):
        if start < last_end:
            continue  # "industry data shows" is one attribution, not two
        last_end = end
        # The sentence around the attribution, bounded so a text without full stops costs the
        # same per match.
        sentence_end = _SENTENCE_END.search(low, end, end + 400)
        stop = sentence_end.start() if sentence_end is not None else min(len(low), end + 400)
        floor = max(0, start - 400)
        sentence_start = max(low.rfind(". ", floor, start), low.rfind("\n", floor, start), floor)
        if not _FIGURE.search(low, sentence_start, stop):
            continue
        if not has_source(text, start):
            yield Hit(start, end, f"figure attributed to nobody: {text[start:end]!r}")


# A document pointed at but not linked: "as highlighted in this Medium article".
_POINTED_SOURCE = phrases(
    (
        "highlighted noted reported described shown explained mentioned discussed covered outlined",
        r"as (?:highlighted|noted|reported|described|shown|explained|mentioned|discussed|covered"
        r"|outlined) (?:in|by) (?:this|that|a|an|one|the) (?:recent |great |excellent )?"
        r"(?:[\w-]{1,20} ){0,2}?(?:article|post|blog post|paper|study|report|thread|video|talk"
        r"|book|documentation|docs|guide|survey|piece|write-up|newsletter)(?![a-z])",
    ),
    ("medium", r"(?:this|a|that) (?:recent )?medium (?:article|post)(?![a-z])"),
)


@rule(
    "unlinked_source",
    Severity.WARNING,
    FAMILY,
    'A document pointed at but not linked ("as highlighted in this Medium article"): it may exist; '
    "a person should check.",
    human_review=True,
)
def unlinked_source(ctx: Context) -> Iterator[Hit]:
    last_end = -1
    for match in sorted(
        phrase_matches(_POINTED_SOURCE, ctx.lower, ctx.words), key=lambda m: m.start()
    ):
        if match.start() < last_end:
            continue
        last_end = match.end()
        if not has_source(ctx.prose, match.start()):
            text = ctx.prose[match.start() : match.end()]
            yield Hit(match.start(), match.end(), f"source named but not linked: {text!r}")


_ACCORDING_TO = re.compile(r"according to ")
_NAMED_SOURCE = re.compile(r"(?:the )?(?:[A-Z][\w&.'\u2019-]{1,30} ){0,3}[A-Z][\w&.'\u2019-]{1,30}")
_SOURCE_IN_PARENS = re.compile(r"\((?:source|via|sources)\s?:\s?[^)\n]{1,80}\)")
_SOURCE_LINE = re.compile(
    r"\n {0,3}(?:\*\*)?(?:sources?|references?)(?:\*\*)? ?:(?:\*\*)?[ \t]+\S[^\n]{0,300}"
    r"(?=\n|\Z)"
)
_SOURCE_WORDS = frozenset({"source", "sources", "via", "reference", "references"})


@rule(
    "unlinked_citation",
    Severity.WARNING,
    FAMILY,
    'A named source with no link ("according to Gartner", "(Source: Statista)").',
)
def unlinked_citation(ctx: Context) -> Iterator[Hit]:
    found: list[tuple[int, int]] = []
    matches = word_matches(_ACCORDING_TO, ctx.lower) if "according" in ctx.words else ()
    for match in matches:
        # The source's name is capitalised: match it in the original text.
        name = _NAMED_SOURCE.match(ctx.prose, match.end(), match.end() + 160)
        if name is not None:
            found.append((match.start(), name.end()))
    if ctx.has_any(_SOURCE_WORDS):
        found += [(m.start(), m.end()) for m in _SOURCE_IN_PARENS.finditer(ctx.lower)]
        found += line_start_matches(_SOURCE_LINE, ctx.lower)
    for start, end in sorted(found):
        if not has_source(ctx.prose, start):
            yield Hit(start, end, f"unlinked citation {ctx.prose[start:end][:60]!r}")
