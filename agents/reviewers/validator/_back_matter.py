"""The end of a draft after its last sentence (part of `_truncation`): back matter that is not
prose, and markup the draft leaves open at its end."""

from __future__ import annotations

import re

# Only the end of a draft is judged; bounded so a 2 MB paragraph costs the same as a short one.
_TAIL = 3000

# Lines that follow an article's last sentence without being prose: a signature ("- Olly,
# FreeAgent CTO"), an italic byline ("*Team: Ioan, Josh*"), reference-style link definitions,
# spacer entities and empty HTML. The ending is judged above them.
BACK_MATTER = re.compile(
    r"(?:&nbsp;|&#160;|<br\s*/?>|<hr\s*/?>|<p>\s*</p>|\s)+"
    r"|\[[^\]\n]{1,200}\]:[ \t]*\S{1,2000}(?:[ \t]+[\"'(][^\n]{0,300})?"
    r"|(?:[\u2013\u2014]|--)[ \t]*[A-Z][\w.'\u2019 -]{0,60}(?:,[ \t]*[^\n]{1,80})?"
    r"|>[ \t]*(?:[\u2013\u2014]|--)[ \t]*[^\n]{1,80}"  # a blockquote's attribution line
    r"|-{3,}|\*{3,}|_{3,}"  # the rule that separates the back matter
    r"|[*_]{1,2}(?i:team|posted by|written by|by|authors?|photos?|images?|cover|thanks to"
    r"|with thanks|credits?|edited by|originally published)\b[^\n]{0,200}[*_]{1,2}"
    # document metadata: "**Last updated:** 2026-05-08", "**Owner:** Matt"
    r"|\*\*(?i:last updated|updated|date|published|owner|decision owner|authors?|status"
    r"|reviewed by|reviewers?|version|tags|category|maintainers?):?\*\*:?[ \t]*[^\n]{1,80}"
)
_MAX_BACK_MATTER_LINES = 20


def without_back_matter(text: str) -> str:
    """`text` without its trailing back-matter lines (at most a few; never all of it)."""
    for _ in range(_MAX_BACK_MATTER_LINES):
        cut = text.rfind("\n")
        if cut <= 0:
            return text
        line = text[cut + 1 :].strip()
        if len(line) > 2500 or not BACK_MATTER.fullmatch(line):
            return text
        text = text[:cut].rstrip()
    return text


EMOTICONS = (":)", ":-)", ";)", ";-)", ":D", ":P", ":-D", "<3", "^_^", "\\o/")
# A block-level HTML element opened and never closed: the draft stopped inside it.
_BLOCK_TAGS = ("div", "details", "table", "ul", "ol", "blockquote", "section", "figure", "aside")
_OPEN_BLOCK = re.compile(r"<(div|details|table|ul|ol|blockquote|section|figure|aside)(?=[\s>])")


def unclosed_block(prose: str) -> str | None:
    """The block element the draft leaves open at its end (one opened after the last close)."""
    low = prose.lower()
    for tag in _BLOCK_TAGS:
        opened = low.rfind("<" + tag)
        if opened == -1:
            continue
        closes = low.count("</" + tag)
        opens = len([m for m in _OPEN_BLOCK.finditer(low) if m.group(1) == tag])
        if opens > closes and low.rfind("</" + tag) < opened:
            return tag
    return None


def unbalanced(text: str, last_start: int) -> str | None:
    """An inline code span or bold text opened in the last paragraph and never closed. The whole
    paragraph is counted: hard-wrapped prose may open a span on one line and close it on the
    next."""
    brk = text.rfind("\n\n", 0, last_start)
    para = text[max(brk + 2 if brk != -1 else 0, len(text) - _TAIL) :]
    if "```" in para or "~~~" in para:
        return None
    if para.count("`") % 2 == 1:
        return "ends inside an inline code span"
    if para.count("**") % 2 == 1:
        return "ends inside bold text"
    return None
