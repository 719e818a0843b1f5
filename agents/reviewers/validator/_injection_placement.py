"""Where a phrase sits in a draft, which decides what it is (issue 12's injection rule; the
concept split out of `_injection` in issue 11).

- `Layout`: what a reader does not see: code and HTML comments (as every reviewer sees them,
  agents.markdown), link titles, image alt texts and text styled invisible. Nobody hides an
  example for the reader: a phrase found there is an attempt.
- `quoted`, `in_table_row`: shown text (quotation marks, a blockquote, a table row), which in an
  article about prompt injection presents a payload rather than saying it.
- `presents`: the sentence around a phrase presents it ("such as", "for example", "attackers
  write").

Every look is bounded (a one-line 2 MiB draft full of phrases must stay linear).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from agents.markdown import Fence, hidden_ranges

# Markers of a sentence that presents a phrase rather than saying it.
_PRESENTS = re.compile(
    r"such as|\blike\b|e\.g\.|for example|for instance|example|payloads?|attack|attacker|"
    r"the phrase|the sentence|the line|the string|the words|says|said|reads|writes|wrote|typed|"
    r"look(?:s)? like|variation|jailbreak|injection|known as|classic|famous|common|tells? the "
    r"model|instructs? the model|try|tries|tried"
)
_QUOTES = (('"', '"'), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"), ("'", "'"))
# A link's title: `[text](url "title")`, `[id]: url "title"`, `title="..."` (matched at a
# position found with str.find, so a draft without them pays three substring searches).
_AFTER_LINK = re.compile(
    r"\s*<?[^\s)>]{0,2000}>?\s+(\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|\([^)\n]{1,500}\))\s*\)"
)
_AFTER_DEFINITION = re.compile(r"\s*\S{1,2000}\s+(\"[^\"\n]{1,500}\"|'[^'\n]{1,500}')")
_AFTER_ATTRIBUTE = re.compile(r"\s*=\s*(\"[^\"]{1,500}\"|'[^']{1,500}')")
_HIDDEN_HTML = re.compile(
    r"<(\w{1,10})\b[^<>]{0,400}?(?:style\s*=\s*[\"'][^\"']{0,300}?(?:display\s*:\s*none|"
    r"visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0+)?\s*[;\"']|color\s*:\s*"
    r"(?:#fff(?:fff)?|white|transparent)\b)|\shidden\b|aria-hidden\s*=\s*[\"']true)[^<>]{0,400}>"
    r"(.{0,4000}?)</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
# A JSON object shaped like a reviewer's verdict: bounded, one nesting level at most.


@dataclass
class Layout:
    """Where things are in a markdown draft: code, real HTML comments, hidden text."""

    code: list[tuple[int, int]] = field(default_factory=list)
    comments: list[tuple[int, int]] = field(default_factory=list)
    hidden: list[tuple[int, int, str]] = field(default_factory=list)

    @classmethod
    def of(cls, content: str, fences: Sequence[Fence] | None = None) -> Layout:
        # Code and comments as every reviewer sees them (agents.markdown): a comment shown in
        # code is an example, not hidden text.
        hidden = hidden_ranges(content, None if fences is None else list(fences))
        layout = cls(code=hidden.code, comments=hidden.comments)
        for start, end in _link_titles(content):
            if not layout.in_code(start, end):
                layout.hidden.append((start, end, "in a link title"))
        for start, end in _alt_texts(content):
            if not layout.in_code(start, end):
                layout.hidden.append((start, end, "in an image's alt text"))
        if "<" in content:
            for match in _HIDDEN_HTML.finditer(content):
                if not layout.in_code(match.start(), match.end()):
                    layout.hidden.append((match.start(2), match.end(2), "in text styled invisible"))
        layout.hidden.sort()
        return layout

    def in_code(self, start: int, end: int) -> bool:
        return _inside(self.code, start, end)

    def hidden_by(self, start: int, end: int) -> str:
        if _inside(self.comments, start, end):
            return "in an HTML comment"
        # The ranges are sorted by start; the ones that may hold `start` begin at or before it
        # (a few back: an alt text inside a styled span; not every range, per phrase found).
        index = bisect.bisect_right(self.hidden, (start, 1 << 62, "")) - 1
        for lo, hi, why in reversed(self.hidden[max(0, index - 7) : index + 1]):
            if lo <= start < hi:
                return why
        return ""


def _link_titles(content: str) -> Iterator[tuple[int, int]]:
    for marker, pattern in (
        ("](", _AFTER_LINK),
        ("]:", _AFTER_DEFINITION),
        ("title", _AFTER_ATTRIBUTE),
    ):
        pos = content.find(marker)
        while pos != -1:
            match = pattern.match(content, pos + len(marker))
            if match:
                yield match.start(1), match.end(1)
            pos = content.find(marker, pos + len(marker))


def _alt_texts(content: str) -> Iterator[tuple[int, int]]:
    """[start, end) of image alt texts, `![alt](...)` and `alt="..."`: a reader sees the image,
    the vision reviewer's prompt sees the words."""
    pos = content.find("![")
    while pos != -1:
        close = content.find("]", pos + 2, pos + 2 + 1000)
        if close != -1 and content.startswith("(", close + 1):
            yield pos + 2, close
        pos = content.find("![", pos + 2)
    pos = content.find("alt")
    while pos != -1:
        match = _AFTER_ATTRIBUTE.match(content, pos + 3)
        if match and (pos == 0 or not content[pos - 1].isalnum()):
            yield match.start(1), match.end(1)
        pos = content.find("alt", pos + 3)


def _inside(ranges: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    index = bisect.bisect_right(ranges, (start, 1 << 62)) - 1
    return index >= 0 and ranges[index][0] <= start < ranges[index][1]


# How far around a phrase its line is read: a draft of one 2 MiB line with a phrase every few
# words would otherwise be read whole for each of them (quadratic).
_LINE_REACH = 2000


def _line(text: str, start: int, end: int) -> tuple[int, int, bool]:
    """[lo, hi) of the line holding text[start:end], at most `_LINE_REACH` characters each way,
    and whether lo is the line's real start."""
    lo_bound = max(0, start - _LINE_REACH)
    newline = text.rfind("\n", lo_bound, start)
    lo = newline + 1 if newline != -1 else lo_bound
    hi_bound = min(len(text), end + _LINE_REACH)
    newline = text.find("\n", end, hi_bound)
    hi = newline if newline != -1 else hi_bound
    return lo, hi, _at_line_start(text, lo)


def _at_line_start(text: str, lo: int) -> bool:
    return lo == 0 or text[lo - 1] == "\n"


def quoted(text: str, start: int, end: int) -> bool:
    line_start, line_end, real_start = _line(text, start, end)
    if real_start and text[line_start:start].lstrip().startswith(">"):
        return True  # a blockquote
    before, after = text[line_start:start], text[end:line_end]
    for opening, closing in _QUOTES:
        if opening == closing:
            if before.count(opening) % 2 == 1 and opening in after:
                if opening == "'" and not _apostrophe_quote(before):
                    continue
                return True
        elif before.rfind(opening) > before.rfind(closing) and closing in after:
            return True
    return False


def in_table_row(text: str, start: int) -> bool:
    line_start, line_end, real_start = _line(text, start, start)
    if not real_start or (line_end < len(text) and text[line_end] != "\n"):
        return False  # a line longer than the reach is no table row
    line = text[line_start:line_end].strip()
    return line.startswith("|") and line.endswith("|") and line.count("|") >= 3


def _apostrophe_quote(before: str) -> bool:
    """A single quote opens a quotation, not an apostrophe (it's, don't), when it follows a
    space or an opening bracket."""
    index = before.rfind("'")
    return index == 0 or before[index - 1] in " ([:"


def presents(text: str, start: int, end: int) -> bool:
    """The sentence around the phrase presents it (an example marker), as a lowercase window."""
    reach = max(0, start - 300)
    lo = max(text.rfind(". ", reach, start), text.rfind("\n", reach, start), reach)
    hi_candidates = [i for i in (text.find(". ", end, end + 300), text.find("\n", end, end + 300))]
    hi = min([i for i in hi_candidates if i != -1] + [end + 300, len(text)])
    window = (text[lo:start] + " " + text[end:hi]).lower()
    return bool(_PRESENTS.search(window))
