"""Warnings: citation artifacts, unlinked citations, leaked internal paths, code density."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import paragraph_has_source
from schemas.records import Severity

FAMILY = "citations"

_ARTIFACT = re.compile(
    # [12] or [1, 2] that is neither a link text, a reference definition nor a footnote.
    r"(?<![\]\w])\[\d{1,3}(?: ?[,\u2013-] ?\d{1,3}){0,5}\](?![(\[:])"
    # (Smith, 2023), (Smith et al., 2023), (Smith and Jones 2021)
    r"|\([A-Z][A-Za-z'\u2019-]{1,30}"
    r"(?: et al\.| and [A-Z][A-Za-z'\u2019-]{1,30}| & [A-Z][A-Za-z'\u2019-]{1,30})?"
    r",? (?:19|20)\d\d[a-z]?(?:, p\. ?\d{1,4})?\)"
    # Chat-UI citation markers
    r"|【[^】\n]{0,100}】|:contentReference\[oaicite:\d{1,4}\](?:\{[^}\n]{0,100}\})?"
    r"|\bturn\d{1,3}(?:search|news|view|fetch)\d{1,3}\b|\[citation needed\]"
)


@rule(
    "citation_artifact",
    Severity.WARNING,
    FAMILY,
    "Academic or chat-UI citation markers ([12], (Smith, 2023), 【source】).",
)
def citation_artifact(ctx: Context) -> Iterator[Hit]:
    for match in _ARTIFACT.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), f"citation artifact {match.group(0)[:40]!r}")


_UNLINKED = re.compile(
    r"\b(?i:according to) (?:the )?(?:[A-Z][\w&.'\u2019-]{1,30} ){0,3}[A-Z][\w&.'\u2019-]{1,30}"
    r"|\((?i:source|via|sources)\s?:\s?[^)\n]{1,80}\)"
    r"|^ {0,3}(?:\*\*)?(?i:sources?|references?)(?:\*\*)? ?:(?:\*\*)?[ \t]+\S[^\n]{0,300}$",
    re.MULTILINE,
)


@rule(
    "unlinked_citation",
    Severity.WARNING,
    FAMILY,
    'A named source with no link ("according to Gartner", "(Source: Statista)").',
)
def unlinked_citation(ctx: Context) -> Iterator[Hit]:
    for match in _UNLINKED.finditer(ctx.prose):
        if not paragraph_has_source(ctx.prose, match.start()):
            yield Hit(match.start(), match.end(), f"unlinked citation {match.group(0)[:60]!r}")


_INTERNAL_PATH = re.compile(
    r"(?<![\w/])(?:/home/[a-z_][\w.-]{0,31}/|/Users/[\w.-]{1,40}/|/root/|/mnt/data/|/workspace/"
    r"|/tmp/[\w.-]{1,60}|/var/(?:www|lib|log)/)"
    r"|\b[A-Za-z]:\\(?:Users|Windows|Program Files|inetpub)\\"
    r"|\bfile:///"
    r"|\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0)(?::\d{2,5})?(?:/[\w./-]{0,100})?"
    r"|\b[\w-]{1,60}\.(?:internal|corp|intranet)\b"
)


@rule(
    "internal_path",
    Severity.WARNING,
    FAMILY,
    "Internal paths or hosts leaked into prose (/home/user/, C:\\Users\\, localhost:8000).",
)
def internal_path(ctx: Context) -> Iterator[Hit]:
    for match in _INTERNAL_PATH.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), f"internal path {match.group(0)[:60]!r}")


@rule(
    "code_density",
    Severity.WARNING,
    FAMILY,
    "More of the article in fenced code than content_validator_max_code_ratio allows.",
)
def code_density(ctx: Context) -> Iterator[Hit]:
    total = len(ctx.content.strip())
    if total < 500 or not ctx.fences:
        return
    code = sum(f.end - f.start for f in ctx.fences)
    ratio = code / total
    limit = ctx.settings.content_validator_max_code_ratio
    if ratio > limit:
        first = ctx.fences[0]
        yield Hit(
            first.start, first.start + 3, f"{ratio:.0%} of the content is code (> {limit:.0%})"
        )
