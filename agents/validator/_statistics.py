"""Critical: statistics and studies with nobody behind them; warnings: sources named but not linked.

A figure or a study needs a source in its paragraph (a link, a footnote reference); a named source
("according to Gartner") without a link is a warning, since the name may be real.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import paragraph_has_source, word_matches
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
    if not any(word in low for word in _STUDY_WORDS):
        return
    for pattern in (_STUDY_BY_YEAR, _ACCORDING_TO_STUDY):
        for match in word_matches(pattern, low):
            if not paragraph_has_source(ctx.prose, match.start()):
                yield Hit(match.start(), match.end(), "study cited without a source link")


# Found from the "%" (or "percent") backwards and forwards: the sign is rare, so this is fast.
_NUMBER_BEFORE = re.compile(r"(?<![\d.,])\d{1,3}(?:[.,]\d{1,2})? ?$")
_EFFECT_AFTER = re.compile(
    r" ?(?:increase|decrease|reduction|improvement|boost|rise|drop|growth|decline|jump|"
    r"faster|slower|uplift|higher conversion|more likely|less likely|"
    r"of (?:users|companies|businesses|people|respondents|developers|customers|marketers|"
    r"organi[sz]ations|consumers|adults|teams|enterprises|shoppers))(?![a-z])"
)
_VERB_BY_BEFORE = re.compile(
    r"(?<![a-z])(?:increase|improve|boost|reduce|cut|grow|raise|lower)(?:s|d|ed)? "
    r"(?:[\w-]{1,20} ){0,3}?by (?:up to |over |nearly |almost |about )?\d{1,3}(?:[.,]\d{1,2})? ?$"
)
_PERCENT = re.compile(r"%|percent(?![a-z])|per cent(?![a-z])")


@rule(
    "unsourced_statistic",
    Severity.CRITICAL,
    FAMILY,
    'A percentage effect with no source in its paragraph ("a 47% increase").',
)
def unsourced_statistic(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    if "%" not in low and "cent" not in low:
        return
    for sign in _PERCENT.finditer(low):
        left = low[max(0, sign.start() - 120) : sign.start()]
        number = _NUMBER_BEFORE.search(left[-10:])
        if number is None:
            continue
        start = sign.start() - (len(left[-10:]) - number.start())
        effect = _EFFECT_AFTER.match(low, sign.end(), sign.end() + 60)
        verb = None if effect else _VERB_BY_BEFORE.search(left)
        if effect is None and verb is None:
            continue
        if verb is not None:
            start = sign.start() - (len(left) - verb.start())
        end = effect.end() if effect is not None else sign.end()
        if not paragraph_has_source(ctx.prose, sign.start()):
            yield Hit(start, end, "statistic with no source")


_ACCORDING_TO = re.compile(r"according to ")
_NAMED_SOURCE = re.compile(r"(?:the )?(?:[A-Z][\w&.'\u2019-]{1,30} ){0,3}[A-Z][\w&.'\u2019-]{1,30}")
_SOURCE_IN_PARENS = re.compile(r"\((?:source|via|sources)\s?:\s?[^)\n]{1,80}\)")
_SOURCE_LINE = re.compile(
    r"^ {0,3}(?:\*\*)?(?:sources?|references?)(?:\*\*)? ?:(?:\*\*)?[ \t]+\S[^\n]{0,300}$",
    re.MULTILINE,
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
        found += [(m.start(), m.end()) for m in _SOURCE_LINE.finditer(ctx.lower)]
    for start, end in sorted(found):
        if not paragraph_has_source(ctx.prose, start):
            yield Hit(start, end, f"unlinked citation {ctx.prose[start:end][:60]!r}")
