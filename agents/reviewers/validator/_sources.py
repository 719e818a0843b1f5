"""Whether a claim has a stated source: a link, a footnote or a reference near it.

A claim's source is looked for in its own paragraph (blank-line separated block) first, then in
the places writers put one for a list, a table or a heading: the lead-in paragraph that
introduces the block ("According to the [2024 survey](...):"), a "Source:" line right under it,
and, for a heading, the paragraph under it. A link may be inline (`[text](url)`, a bare URL,
`<a href>`), reference-style (`[text][label]` or `[label]`, with a `[label]: url` definition), a
footnote (`[^1]`) or a numbered citation (`[3]`) when the draft has a sources list with links.
"""

from __future__ import annotations

import functools
import re

from agents.reviewers.validator._text import PARAGRAPH_BREAK, paragraph_bounds

_LINK_OR_URL = re.compile(r"https?://|\]\(|<a\s", re.IGNORECASE)
# Bound every look so one 5 MB "paragraph" cannot make each claim scan the whole text.
_REACH = 2000
# A footnote reference ("[^1]"), not a footnote's own definition ("[^1]: ..."), which is no
# source for what it says.
_FOOTNOTE_CITE = re.compile(r"\[\^[^\]\n]{1,40}\](?!:)")
_NUMBERED_CITE = re.compile(r"\[\d{1,3}(?:[,\u2013-] ?\d{1,3}){0,5}\](?![(:])")
_DEFINITION = re.compile(r"\n {0,3}\[([^\]\n^]{1,100})\]: ?<?\S")
_SOURCES_HEADING = re.compile(
    r"\n {0,3}(?:#{1,6} {1,4}|\*\*)(?:references|sources|notes|bibliography|works cited"
    r"|further reading|citations)\b",
    re.IGNORECASE,
)
# A line under a block that names its source: "Source: ...", "*Data: ...*", "(Sources: ...)".
_SOURCE_LINE = re.compile(
    r"[ \t>]*[*_(]{0,3}(?:sources?|data|figures|via|credit)[*_]{0,2} ?:", re.IGNORECASE
)


def has_source(text: str, pos: int) -> bool:
    """True when the claim at `pos` has a stated source (see the module docstring)."""
    start, end = paragraph_bounds(text, pos)
    if _links(text, max(start, pos - _REACH), min(end, pos + _REACH)):
        return True
    if start > 0 and _sourced_by_lead_in(text, start, end):
        return True
    if end < len(text):
        after_start, after_end = _next_paragraph(text, end)
        after_end = min(after_end, after_start + _REACH)
        names_source = _SOURCE_LINE.match(text, after_start) or _FIGURE_FROM.match(
            text[after_start : after_start + 120].lower()
        )
        if names_source and _links(text, after_start, after_end):
            return True
        heading = text[start : start + 7].lstrip(" ").startswith("#")
        if heading and _links(text, after_start, after_end):
            return True
    return False


def _sourced_by_lead_in(text: str, start: int, end: int) -> bool:
    """The paragraphs before a claim source it when they introduce it: a list or a table is
    sourced by the paragraph right before it, a paragraph ending in ":" sources what follows,
    and a paragraph that refers back to a source ("the survey", "that report", "respondents")
    is sourced by a link in one of the two paragraphs before it, within its section."""
    block = text[start : start + 4].lstrip(" ")
    is_block = block[:1] in ("|", "-", "*", "+", ">") or block[:1].isdigit()
    refers_back = _REFERS_BACK.search(text[start : min(end, start + _REACH)].lower()) is not None
    pos = start
    for _ in range(2 if refers_back else 1):
        if pos <= 0:
            return False
        before_start, before_end = paragraph_bounds(text, max(0, pos - len(PARAGRAPH_BREAK) - 1))
        before_start = max(before_start, before_end - _REACH)
        lead_in = text[before_start:before_end].rstrip()
        if lead_in.lstrip(" ").startswith("#"):
            return False  # a heading starts the section: nothing above it introduces the claim
        if (is_block or refers_back or lead_in.endswith(":")) and _links(
            text, before_start, before_end
        ):
            return True
        pos = before_start
    return False


# A paragraph that says where the figure before it comes from: "That figure comes from the
# [2024 survey](...)", "These numbers are from ...".
_FIGURE_FROM = re.compile(
    r"[ \t>]*(?:that|this|the|these|those|both|all) (?:[a-z-]{2,20} )?(?:figures?|numbers?"
    r"|statistics?|stats?|estimates?|shares?|data|findings?|percentages?|results?)"
    r" (?:comes?|came|is|are|was|were|all come|both come) (?:straight |directly )?from(?![a-z])"
)
# A claim that points back to a source named just before it.
_REFERS_BACK = re.compile(
    r"(?<![a-z])(?:(?:the|that|this|the same|its|their) (?:[a-z-]{2,20} )?(?:survey|study|report"
    r"|poll|paper|census|dataset|data set|index|analysis|research|findings|results)"
    r"|respondents|(?:in|according to) (?:it|them))(?![a-z])"
)


def _next_paragraph(text: str, end: int) -> tuple[int, int]:
    start = end
    while start < len(text) and text[start] in "\n \t":
        start += 1
    return paragraph_bounds(text, start)[0], paragraph_bounds(text, start)[1]


def _links(text: str, start: int, end: int) -> bool:
    chunk = text[start:end]
    if _LINK_OR_URL.search(chunk) or ("[^" in chunk and _FOOTNOTE_CITE.search(chunk)):
        return True
    if "[" not in chunk:
        return False
    labels, listed = _references(text)
    if labels:
        # "[text][label]", "[label][]" and "[label]" all point at a "[label]: url" definition.
        low = chunk.lower()
        if any(f"[{label}]" in low for label in labels):
            return True
    return listed and _NUMBERED_CITE.search(chunk) is not None


@functools.lru_cache(maxsize=8)
def _references(text: str) -> tuple[frozenset[str], bool]:
    """The reference-link labels the draft defines, and whether it has a sources list with links
    (so "[3]" points somewhere). Cached: every claim of a draft asks about the same text."""
    labels = frozenset(m.group(1).lower() for m in _DEFINITION.finditer("\n" + text))
    heading = _SOURCES_HEADING.search("\n" + text)
    listed = heading is not None and _LINK_OR_URL.search(text, heading.end() - 1) is not None
    return labels, listed
