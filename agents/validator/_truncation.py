"""Critical: articles that do not end: cut mid-sentence, at a heading, in an unclosed fence, or
followed by a JSON envelope.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from schemas.records import Severity

FAMILY = "truncation"


@rule(
    "unclosed_code_fence",
    Severity.CRITICAL,
    FAMILY,
    "A code fence that never closes (the rest of the article would render as code).",
)
def unclosed_code_fence(ctx: Context) -> Iterator[Hit]:
    for fence in ctx.fences:
        if not fence.closed:
            end = ctx.content.find("\n", fence.start)
            yield Hit(fence.start, end if end != -1 else fence.end, "code fence never closes")


# A JSON object at the very end whose keys look like an API/agent envelope.
_ENVELOPE_KEY = re.compile(
    r'\{\s{0,20}"(?:title|content|body|article|markdown|meta_description|seo_title|slug|tags|'
    r'excerpt|status|score|approved|response|output)"\s{0,5}:'
)
# Sentence-final punctuation across scripts (Latin, CJK, Arabic, Devanagari, Ethiopic, Armenian).
_TERMINAL = frozenset(
    ".!?\u2026:;\u3002\uff01\uff1f\uff61\u061f\u0964\u0965\u1362\u0589\u203d\u2047\u2048\u2049\u061b"
)
_CLOSERS = "\"'\u201d\u2019\u00bb)]*_`>~ "


@rule(
    "broken_ending",
    Severity.CRITICAL,
    FAMILY,
    "Content cut off mid-sentence or at a heading, or ending in a JSON envelope.",
)
def broken_ending(ctx: Context) -> Iterator[Hit]:
    text = ctx.content.rstrip()
    if not text or ctx.truncated_from is not None:
        return
    if any(not f.closed for f in ctx.fences):
        return  # unclosed_code_fence reports it
    tail_start = max(0, len(text) - 20_000)
    envelope = _last_envelope(ctx, text, tail_start)
    if envelope is not None:
        yield Hit(envelope, len(text), "trailing JSON envelope after the article")
        return
    line_start = text.rfind("\n", 0, len(text)) + 1
    line = text[line_start:]
    stripped = line.strip()
    if re.match(r"#{1,6}(?:\s|$)", stripped):
        yield Hit(line_start, len(text), "ends at a heading with no section body")
        return
    if ctx.fences and ctx.fences[-1].end >= len(text):
        return  # ends with a closed code block
    if _is_structural(stripped):
        return
    core = stripped.rstrip(_CLOSERS)
    if not core:
        return
    last = core[-1]
    if last in _TERMINAL or unicodedata.category(last) in ("So", "Sk", "Pe", "Pf"):
        return
    yield Hit(max(line_start, len(text) - 80), len(text), "ends mid-sentence (truncated?)")


def _last_envelope(ctx: Context, text: str, tail_start: int) -> int | None:
    """Start of a trailing JSON object with envelope keys ("title", "content", ...). Searched in
    prose, so a JSON example inside a closed code fence is not an envelope."""
    if not text.rstrip("`").rstrip().endswith("}"):
        return None
    starts = [m.start() for m in _ENVELOPE_KEY.finditer(ctx.prose, tail_start, len(text))]
    return starts[-1] if starts else None


_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)])\s")
_LINK_END = re.compile(r"(?:\]\([^)\s]{0,2000}\)|https?://\S{0,2000}|\])$")


def _is_structural(line: str) -> bool:
    """Lines that legitimately end without punctuation: list items, tables, rules, links,
    images, HTML."""
    if _LIST_ITEM.match(line) or line.startswith(("|", "<", "![", "[", "---", "***", "___")):
        return True
    last_token = line.rsplit(None, 1)[-1][-2100:]
    return bool(_LINK_END.search(last_token))
