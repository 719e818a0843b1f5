"""Critical: statistics and studies with nobody behind them.

A figure or a study needs a stated source (_sources.has_source: its paragraph, or the lead-in or
source line of its list or table); sources named without a link are _unlinked's warnings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator import _leads
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._sources import has_source
from agents.reviewers.validator._text import (
    anchored,
    anchored_matches,
    at_word_start,
    line_bounds,
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
    # not across a preposition: "20 percent for saving" is a budget share, not a saving
    r" ?(?:(?!(?:for|to|on|in|into|toward|towards|at|as|per) )[a-z-]{2,20} ){0,2}?"
    r"(?:increase|decrease|reduction|improvement|boost|rise|drop|growth"
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
        r" (?:between|from|since|in|over|within) (?:(?:19|20)\d\d(?![\d-])|the (?:last|past) )",
    ),
    (
        "doubled tripled quadrupled halved",
        r"(?:doubled|tripled|quadrupled|halved) (?:[\w-]{1,20} ){0,3}?(?:between|since|from|in"
        r"|over|within) (?:(?:19|20)\d\d(?![\d-])|the (?:last|past) )",
    ),
    (
        "half third quarter two-thirds three-quarters",
        rf"(?:half|a third|a quarter|two-thirds|three-quarters|one in (?:three|four|five|ten)) of "
        rf"{_POPULATION}",
    ),
    # "Of all" makes any plural a population: "half of all groundings", "a third of all sales".
    (
        "half third quarter two-thirds three-quarters fifth tenth",
        r"(?:half|a third|a quarter|two-thirds|two thirds|three-quarters|three quarters|a fifth"
        r"|a tenth) of all (?:[a-z-]{2,20} ){0,2}?[a-z-]{2,20}s(?![a-z])",
    ),
    # A share of whoever does something, whatever they are called: "used by nearly a third of
    # home bakers", "preferred by half of the walkers we know of" ("by" makes them agents).
    (
        "half third quarter two-thirds three-quarters fifth tenth",
        r"by (?:nearly |almost |about |around |roughly |over |more than |just over |just under )?"
        r"(?:half|a third|a quarter|two-thirds|two thirds|three-quarters|three quarters|a fifth"
        r"|a tenth) of (?:all |the )?(?:[a-z-]{2,20} ){0,3}?[a-z-]{2,20}s(?![a-z])",
    ),
)
_SHAPE_GATE = frozenset().union(*(gate for gate, _ in _SHAPES))
# "3 in 4 shoppers", "one out of five adults": found from " in " / " out of " followed by a
# number (a pattern starting with a literal runs at C speed; one starting with a number
# alternation would be tried at most positions), then the number before and the population after.
_RATIO_NEXT = re.compile(rf" (?:in|out of) (?=(?:every )?(?:\d|{_UNITS}|ten)(?![a-z]))")
_RATIO_BEFORE = re.compile(rf"(?:\d{{1,2}}|{_UNITS}|ten)$")
_RATIO_AFTER = re.compile(rf"(?:in|out of) (?:\d{{1,3}}|{_UNITS}|ten) {_POPULATION}")
# Whatever the population is called ("four in five starters", "six in ten keyboards"): a part of
# a whole, followed by a plural noun or "of", is a share. Units are not populations ("2 in 10
# minutes", "one in three of these steps"), and the part must be smaller than the whole
# ("2 in 1 laptops" is a product name).
_RATIO_ANY = re.compile(
    rf"(?:in|out of) (?:every )?(?P<whole>\d{{1,3}}|{_UNITS}|ten) "
    r"(?:[a-z-]{2,20} )?[a-z]{2,20}s(?![a-z])"
)
_COUNTS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_RATIO_UNITS = frozenset(
    (  # noqa: SIM905
        "seconds minutes hours days weeks months years decades steps parts pieces pages times"
        " sets reps rounds runs tries goes cases cups grams litres liters inches feet metres"
        " meters miles kilometres kilometers degrees pounds ounces"
    ).split()
)
_NUMBER_VALUES = {word: value for value, word in enumerate(_COUNTS)}


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_VALUES.get(word, -1)


def _ratios(low: str) -> Iterator[tuple[int, int]]:
    for next_ in _RATIO_NEXT.finditer(low):
        pos = next_.start()
        before = _RATIO_BEFORE.search(low, max(0, pos - 8), pos)
        if before is None or not at_word_start(low, before.start()):
            continue
        after = _RATIO_AFTER.match(low, pos + 1)
        if after is None:
            after = _RATIO_ANY.match(low, pos + 1)
            if after is None or low[after.start() : after.end()].rsplit(" ", 1)[-1] in _RATIO_UNITS:
                continue
            if not 0 < _count(before.group(0)) < _count(after.group("whole")):
                continue
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
        signs = _percent_signs(low)
        found += _percent_effects(low, signs)
        found += _hedged_shares(low, signs)
        if "|" in low:
            found += _table_figures(low)
    if ctx.has_any(_SHAPE_GATE):
        for m in phrase_matches(_SHAPES, low, ctx.words):
            # "used by a third of bakers": the figure starts after "by", so an imagined case
            # before it ("a language used by ...") is seen by _HYPOTHETICAL below
            start = m.start() + 3 if m.group(0).startswith("by ") else m.start()
            found.append((start, m.end()))
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
        if low.startswith("cut ", start) and _IMPERATIVE_BEFORE.search(
            low, max(0, start - 8), start
        ):
            continue  # "Cut the recipe by half if ...": an instruction, not a reported change
        kept.append((start, end))
    sourced = {low[start:end] for start, end in kept if has_source(ctx.prose, start)}
    for start, end in kept:
        figure = low[start:end]
        # A figure stated with its source once may be repeated without it ("so if a third of
        # developers already use it ..." in the conclusion).
        if figure not in sourced:
            yield Hit(start, end, f"statistic with no source: {ctx.prose[start:end]!r}")


# Where an imperative starts: the text's start, a sentence, a line or a list item.
_IMPERATIVE_BEFORE = re.compile(r"(?:^|[.!?:;] |\n[ \t]*(?:[-*+>] |\d{1,2}[.)] )?)$")


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
    r"(?:(?<![a-z])(?:an?|any|some) [a-z-]{2,20}(?: [a-z-]{2,20})? (?:[a-z]{2,20}(?:ed|en|wn)"
    r"|read|bought|sold|held|kept|taught) by "
    # "say" as in "say half of them leave", not a source's "analysts say" (vague_attribution's)
    r"|(?<![a-z])(?:if|even if|unless|suppose|imagine|(?<![a-z] )say|(?<=let's )say|whether)"
    r" (?:[\w'\u2019-]{1,20} ){0,5}?"
    r"(?:by |with |for |to )?)"
    r"(?:only |just |over |about |around |roughly |nearly |almost |as many as |as few as )?$"
)


# A hedged share of a population, whatever the population: "roughly 40 percent of new
# restaurants", "an estimated 70% of the world's data"; not an instruction ("put about 20% of
# your income into savings") and not a figure of speech ("about 90% of the time").
# Found from the sign (rare), like _percent_effects: the hedge and the number before it, the
# population after it.
_HEDGE_BEFORE = re.compile(
    r"(?<![a-z])(?:roughly|about|around|nearly|almost|approximately|an estimated|close to"
    r"|more than|over|upwards of|well over|just over|just under|fewer than|less than) "
    rf"(?:\d{{1,3}}(?:[.,]\d{{1,2}})?|{_NUMBER_WORD}) ?$"
)
_SHARE_AFTER = re.compile(
    r" of (?!(?:the |all )?(?:time|cases|your|my|it|them|this|that)(?![a-z]))"
    r"(?:[a-z'\u2019-]+ ){0,3}[a-z'\u2019-]{3,}"
)
_INSTRUCTION_BEFORE = re.compile(
    r"(?<![a-z])(?:put|spend|allocate|save|set aside|keep|aim for|target|leave|budget|reserve"
    r"|invest|devote|give|use|limit|cap|reduce|cut|increase|raise|add|remove|take|aim|set)"
    r"(?: [\w'\u2019-]{1,20}){0,3} $"
)
# Figures in a table: a percentage cell in a row that says whose share or what changed.
_ROW_SUBJECT = re.compile(
    rf"{_POPULATION}|(?<![a-z])(?:rate|rates|share|adoption|growth|churn|conversion|retention"
    r"|respondents|increase|decrease|decline|drop|rise|fall|change|penetration|usage|uptake"
    r"|prevalence|likelihood|chance|odds|risk)(?![a-z])"
)
# A cell holding a figure: "64%", "+12 percent", "about 1 in 4", "41% of staff", "3x".
_CELL_FIGURE = re.compile(
    r"\| *[*_]{0,2}(?:about |around |roughly |nearly |over |~|\+|-|\u2212)?"
    r"(?:\d{1,3}(?:[.,]\d{1,2})? ?(?:%|percent|per cent)|\d{1,2} in \d{1,3}"
    r"|\d{1,2}(?:\.\d)? ?(?:x|times))(?![\w])"
)


def _percent_signs(low: str) -> list[re.Match[str]]:
    """What `_PERCENT.finditer(low)` yields, found from its three literals by substring search
    (`re` tries the alternation at every character, ~35 us on 2,000 words, and two rules read
    them). Occurrences of the three cannot overlap, so their union, in order, is the scan's."""
    found: list[re.Match[str]] = []
    for literal in ("%", "percent", "per cent"):
        pos = low.find(literal)
        while pos != -1:
            match = _PERCENT.match(low, pos)
            if match is not None:
                found.append(match)
            pos = low.find(literal, pos + len(literal))
    found.sort(key=lambda match: match.start())
    return found


def _hedged_shares(low: str, signs: list[re.Match[str]]) -> Iterator[tuple[int, int]]:
    for sign in signs:
        hedge = _HEDGE_BEFORE.search(low, max(0, sign.start() - 40), sign.start())
        share = _SHARE_AFTER.match(low, sign.end()) if hedge is not None else None
        if hedge is None or share is None:
            continue
        if not _INSTRUCTION_BEFORE.search(low, max(0, hedge.start() - 40), hedge.start()):
            yield hedge.start(), share.end()


def _table_figures(low: str) -> Iterator[tuple[int, int]]:
    """Figure cells of a table whose row or header says whose share or what changed."""
    for match in _CELL_FIGURE.finditer(low):
        row_start, row_end = line_bounds(low, match.start())
        if not low[row_start:row_end].lstrip().startswith("|"):
            continue
        table_start = low.rfind("\n\n", max(0, row_start - 4000), row_start)
        header_end = low.find("\n", table_start + 2 if table_start != -1 else 0)
        header = low[max(0, table_start + 2) : header_end] if header_end != -1 else ""
        if _ROW_SUBJECT.search(low, row_start, row_end) or _ROW_SUBJECT.search(header):
            yield match.start() + 1, match.end()


def _percent_effects(low: str, signs: list[re.Match[str]]) -> Iterator[tuple[int, int]]:
    for sign in signs:
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
    (
        "industry",
        r"industry (?:data|research|reports?|figures|experts|analysts|surveys?|estimates|insiders)",
    ),
    # Sources nobody can look up, and what they are made to find, a few words apart: "surveys of
    # independent workers keep finding", "researchers have consistently shown", "data shows".
    (
        "data research studies surveys polls statistics reports analysts experts economists"
        " scientists researchers estimates",
        r"(?:data|research|studies|surveys|polls|statistics|reports|analysts|experts|economists"
        r"|scientists|researchers|estimates)"
        r" (?:(?:of|from|among|on|in|across|into) (?:[a-z'-]{1,20} ){1,4}?)?"
        r"(?:(?:keep|keeps|kept|consistently|repeatedly|regularly|routinely|generally|typically"
        r"|now|also|all|often|widely|have|has|have been|had) ){0,2}"
        r"(?:show|shows|showed|shown|showing|suggest|suggests|suggested|suggesting|find|finds|found"
        r"|finding|indicate|indicates|indicated|indicating|reveal|reveals|revealed|revealing"
        r"|estimate|estimated|estimates|estimating|say|says|said|predict|predicts|agree|confirm"
        r"|confirms|confirmed|report|reported|reporting|put|puts|reckon|believe|think)(?![a-z])",
    ),
    # Estimates with no author: "by trade estimates", "going by most estimates".
    (
        "estimates",
        r"(?:by|on|from|according to) (?:some |most |many |rough |recent |conservative |official"
        r" |trade |market |expert |popular |common )?estimates(?![a-z])",
    ),
    (
        "estimated reported said claimed thought believed",
        r"it (?:is|has been|was) (?:widely |commonly |often |generally )?(?:estimated|reported"
        r"|said|claimed|thought|believed) that",
    ),
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
# A whole profession made a source: "nutritionists believe", "retail analysts say", "farmers
# reckon". Found from the verb (a literal), the plural person noun right before it checked after.
_PROFESSION_SAYS = (
    anchored(
        "say believe reckon estimate suggest agree warn calculate report think claim predict",
        r"(?:say|believe|reckon|estimate|suggest|agree|warn|calculate|report|think|claim|predict)"
        r"(?![a-z])",
        before=r"(?<![a-z])(?!others )[a-z-]{2,20}(?:ists|ians|ers|ors|ics|experts|ians) ",
        window=30,
        ends="s_",
    ),
)
# "A recent Gartner report found": found from "report found" (the noun and the verb), the
# article and the capitalised name before it checked after (an opening of "a", "the" or "one"
# would be tried at every article of the draft).
_REPORT_VERB = re.compile(
    r"(?:report|study|survey|analysis|poll|paper|whitepaper|index) (?:found|finds|shows|showed"
    r"|says|said|estimates|estimated|predicts|revealed|reveals|suggests)"
)
_REPORT_NAMED_BEFORE = re.compile(
    r"(?:[Aa]n?|[Tt]he|[Oo]ne) (?:recent |new |latest |annual |\d{4} )?[A-Z][\w&-]{1,30}"
    r"(?: [A-Z][\w&-]{1,30})? $"
)


def _named_reports(text: str) -> Iterator[tuple[int, int]]:
    # from the nouns' openings: `re` would try the alternation at every character (~100 us)
    for match in _leads.finditer(_REPORT_VERB, text):
        before = _REPORT_NAMED_BEFORE.search(text, max(0, match.start() - 80), match.start())
        if before is not None and at_word_start(text, before.start()):
            yield before.start(), match.end()


_REPORT_GATE = frozenset({"report", "study", "survey", "analysis", "poll", "paper", "whitepaper"})
# A figure or a multiple ("triples", "tenfold"): what a vague source is made to put a size on.
_FIGURE = re.compile(
    rf"\d|%|percent|per cent|(?<![a-z])(?:{_NUMBER_WORD}|half|a third|a quarter|two-thirds"
    r"|three-quarters|twice|(?:doubl|tripl|quadrupl)(?:e|es|ed|ing)|halved|halves|[a-z]+fold"
    r"|hundreds?|thousands?|millions?|billions?)(?![a-z])"
)
# A quantifier is a size too, in the attribution's own clause ("by industry estimates, worn
# leads are behind most shocks"), not in a clause the writer adds ("..., but most heads ...").
_QUANTIFIER = re.compile(
    r"(?<![a-z])(?:the (?:vast )?majority|nearly all|almost all|virtually all"
    r"|(?<!the )(?<! at )most"
    r"(?= [a-z]))(?![a-z])"
)
_CLAUSE_END = re.compile(r"[;:]| but | although | though | while ")
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
        found += _named_reports(text)
    found += anchored_matches(_PROFESSION_SAYS, low, ctx.words)
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
        if not _FIGURE.search(low, sentence_start, stop) and not _sized_clause(low, end, stop):
            continue
        if not has_source(text, start):
            yield Hit(start, end, f"figure attributed to nobody: {text[start:end]!r}")


def _sized_clause(low: str, end: int, stop: int) -> bool:
    clause_end = _CLAUSE_END.search(low, end, stop)
    return _QUANTIFIER.search(low, end, clause_end.start() if clause_end else stop) is not None
