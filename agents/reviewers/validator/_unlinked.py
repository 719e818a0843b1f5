"""Warnings: sources named but not linked ("as highlighted in this Medium article", "according
to Gartner"). The name may be real, so these warn (the first asks for a person) instead of
rejecting; figures with nobody behind them are _statistics'."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._sources import has_source
from agents.reviewers.validator._text import (
    line_start_matches,
    phrase_matches,
    phrases,
    word_matches,
)
from schemas.records import Severity

FAMILY = "unsourced_stats"


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
