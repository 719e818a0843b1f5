"""Content that is not an article: empty, oversized, binary junk, HTML instead of markdown."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._text import word_matches
from schemas.records import Severity

FAMILY = "shape"


@rule("empty_content", Severity.CRITICAL, FAMILY, "No content (empty or whitespace only).")
def empty_content(ctx: Context) -> Iterator[Hit]:
    if not ctx.content.strip():
        yield Hit(0, len(ctx.content), "content is empty")


@rule(
    "oversized_content",
    Severity.CRITICAL,
    FAMILY,
    "Content longer than content_validator_max_chars (only that much is scanned).",
)
def oversized_content(ctx: Context) -> Iterator[Hit]:
    if ctx.truncated_from is not None:
        limit = len(ctx.content)
        yield Hit(
            max(0, limit - 1),
            limit,
            f"content is {ctx.truncated_from:,} characters (limit {limit:,}); "
            "only the first part was checked",
        )


# C0 controls other than tab/newline/carriage return, DEL, and the replacement character that
# decoding junk bytes produces.
_JUNK = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")
# The same characters one by one: 31 substring searches (C speed, a few microseconds on a
# 2,000-word draft) are much cheaper than one character-class scan, which `re` runs per character.
_JUNK_CHARS = tuple(map(chr, [*range(0, 9), 11, 12, *range(14, 32), 127, 0xFFFD]))


@rule(
    "binary_content",
    Severity.CRITICAL,
    FAMILY,
    "Binary junk: control characters or undecodable bytes in the text.",
)
def binary_content(ctx: Context) -> Iterator[Hit]:
    if not any(char in ctx.content for char in _JUNK_CHARS):
        return
    first = _JUNK.search(ctx.content)
    if first is None:
        return
    # Counting stops early: the verdict only needs "more than a few".
    count = 0
    for _ in _JUNK.finditer(ctx.content):
        count += 1
        if count > 20:
            break
    if count > 20 or count * 100 > len(ctx.content):
        yield Hit(first.start(), first.end(), "binary or undecodable data in the content")


_HTML_TAG = re.compile(
    r"<(?:p|div|span|br|h[1-6]|ul|ol|li|table|tr|td|th|section|article|strong|em|b|i|a|img|"
    r"body|html|head|meta|style|blockquote|figure)\b[^<>\n]{0,300}>",
    re.IGNORECASE,
)


@rule(
    "html_markup",
    Severity.WARNING,
    FAMILY,
    "The content is HTML rather than markdown.",
)
def html_markup(ctx: Context) -> Iterator[Hit]:
    first = None
    count = 0
    for match in _HTML_TAG.finditer(ctx.prose):
        first = first or match
        count += 1
        if count >= 10:
            break
    if first is not None and count >= 10:
        yield Hit(first.start(), first.end(), "content is HTML, expected markdown")


# (literal the text must contain, pattern): the pattern runs only when the literal is there.
_UNSAFE_HTML = (
    ("<", re.compile(r"<(?:script|iframe|object|embed|form)(?![a-z])")),
    ("=", re.compile(r"on(?:load|error|click|mouseover) ?=")),
    ("javascript:", re.compile(r"javascript:")),
)


@rule(
    "unsafe_html",
    Severity.CRITICAL,
    FAMILY,
    "Executable HTML in prose (<script>, <iframe>, on*= handlers, javascript: URLs).",
)
def unsafe_html(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    found = sorted(
        (m.start(), m.end())
        for literal, pattern in _UNSAFE_HTML
        if literal in low
        for m in word_matches(pattern, low)
    )
    for start, end in found:
        yield Hit(start, end, f"executable HTML {ctx.prose[start:end]!r}")
