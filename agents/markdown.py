"""What a reader of a markdown draft does not see as prose: code and HTML comments.

The one definition the validator (its prose view and its injection rule), the link extraction
(citations, URLs, vision) and the fact-check share, so they agree about what is code: a tutorial's
`curl http://localhost:8080` is neither a dead link, a claim to check nor a rule's finding.

- Fenced blocks, CommonMark-style: a fence opens on a line of its own with up to 3 spaces then
  ``` or ~~~ (3 or more); it closes only with the same character, at least as many of them and
  nothing after; an unclosed fence runs to the end of the document.
- Outside fences, scanning left to right, whichever starts first wins (as in CommonMark, where
  code spans and HTML bind equally tight): an inline code span (a run of 1 to 3 backticks closed
  by a run of exactly as many in the same paragraph, at most `MAX_INLINE_CODE` characters later;
  backtick runs of other lengths inside are code too; a span may wrap onto the next line, as a
  writer's editor wraps long lines, but a blank line or a line that opens another block, a
  heading, a list item, a quote or a table row, ends the paragraph), or an HTML comment (`<!--`
  to `-->`, or to the end when unclosed). So `` `<!--` `` is code, not a comment hiding the
  rest of the draft, and a backtick in a comment opens no code span.

Masking blanks those ranges with spaces, newlines kept: offsets into the result are offsets into
the input (the span contract of agents/base.py) and line-based rules still see line boundaries.
Every scan is linear in the input (drafts are untrusted and may be megabytes of adversarial text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Fence", "Hidden", "find_fences", "hidden_ranges", "mask_code_and_comments"]

# An inline span longer than this is taken for two stray backticks, not code: a lone backtick
# must not hide a whole paragraph of prose from the rules.
MAX_INLINE_CODE = 500

_RUN = {"`": re.compile("`+"), "~": re.compile("~+")}
_BACKTICKS = re.compile(r"`+")
# A closing run of exactly n backticks (not part of a longer run).
_CLOSING = {n: re.compile(rf"(?<!`)`{{{n}}}(?!`)") for n in (1, 2, 3)}


@dataclass(frozen=True)
class Fence:
    start: int
    end: int  # exclusive, before the closing line's newline; len(content) when never closed
    closed: bool


@dataclass
class Hidden:
    """[start, end) ranges: `code` (fenced blocks and inline code spans, in document order) and
    `comments` (HTML comments outside code, in document order; one may span fences)."""

    code: list[tuple[int, int]] = field(default_factory=list)
    comments: list[tuple[int, int]] = field(default_factory=list)


def find_fences(content: str) -> list[Fence]:
    """Fenced code blocks (see the module docstring)."""
    fences: list[Fence] = []
    opening: tuple[int, int, str] | None = None
    for mark in _fence_marks(content):
        _, marker_end, marker = mark
        if opening is None:
            opening = mark
            continue
        open_marker = opening[2]
        if marker[0] == open_marker[0] and len(marker) >= len(open_marker):
            line_end = content.find("\n", marker_end)
            end = line_end if line_end != -1 else len(content)
            if content[marker_end:end].strip():
                continue  # a closing fence has nothing but spaces after it
            fences.append(Fence(opening[0], end, True))
            opening = None
    if opening is not None:
        fences.append(Fence(opening[0], len(content), False))
    return fences


def _fence_marks(content: str) -> list[tuple[int, int, str]]:
    """(line start, marker end, marker) of every line that opens with up to 3 spaces and then 3
    or more backticks or tildes, in order: what `^ {0,3}(`{3,}|~{3,})` finds in MULTILINE mode,
    from substring searches (a `^` pattern is tried at every character of the draft)."""
    marks: list[tuple[int, int, str]] = []
    for three in ("```", "~~~"):
        pos = content.find(three)
        while pos != -1:
            line_start = content.rfind("\n", 0, pos) + 1
            if pos - line_start <= 3 and content.startswith(" " * (pos - line_start), line_start):
                run = _RUN[three[0]].match(content, pos)
                assert run is not None
                marks.append((line_start, run.end(), run.group()))
            line_end = content.find("\n", pos)
            if line_end == -1:
                break
            pos = content.find(three, line_end)
    marks.sort()
    return marks


def hidden_ranges(content: str, fences: list[Fence] | None = None) -> Hidden:
    """Where code and HTML comments are in `content` (`fences` as `find_fences` gives them)."""
    todo = list(find_fences(content) if fences is None else fences)
    todo.reverse()  # a stack: the next fence last
    hidden = Hidden()
    openings = _Openings(content)
    pos = 0
    while True:
        stop = todo[-1].start if todo else len(content)
        match = openings.next(pos, stop)
        if match is None:
            if not todo:
                return hidden
            fence = todo.pop()
            hidden.code.append((fence.start, fence.end))
            pos = fence.end
        elif match.group(0) == "<!--":
            # A comment ends at the next `-->` outside fences (one shown in a code block closes
            # nothing), or at the end; the fences it spans stay code.
            start = match.start()
            close = content.find("-->", start + 4)
            while todo and close != -1 and todo[-1].start <= close:
                fence = todo.pop()
                hidden.code.append((fence.start, fence.end))
                if close < fence.end:
                    close = content.find("-->", fence.end)
            pos = len(content) if close == -1 else close + 3
            while todo and todo[-1].start < pos:  # only when unclosed: the rest is comment
                fence = todo.pop()
                hidden.code.append((fence.start, fence.end))
            hidden.comments.append((start, pos))
        else:
            pos = _inline_code(content, match.start(), match.end(), stop, hidden)


class _Openings:
    """The first "<!--" or backtick run in [pos, stop): what a search for the alternation
    `<!--|`+` finds, from substring searches (an alternation of two openings is tried at every
    character, about ten times slower on a long draft). The next comment's position is kept
    until the scan passes it, so a draft of many backticks and no comment stays linear."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.comment = -2  # not looked for yet; -1: none after the last look

    def next(self, pos: int, stop: int) -> re.Match[str] | None:
        content = self.content
        if self.comment != -1 and self.comment < pos:
            self.comment = content.find("<!--", pos)
        comment = self.comment if self.comment != -1 and self.comment + 4 <= stop else -1
        tick = content.find("`", pos, comment if comment != -1 else stop)
        if tick != -1:
            return _BACKTICKS.match(content, tick, stop)
        return _COMMENT_OPEN.match(content, comment, stop) if comment != -1 else None


_COMMENT_OPEN = re.compile("<!--")


def _inline_code(content: str, start: int, pos: int, stop: int, hidden: Hidden) -> int:
    """Record the code span opened by the backtick run at [start, pos) if it closes; returns
    where scanning goes on."""
    run = pos - start
    if run > 3:
        return pos  # not a code span opener (as both earlier maskers had it)
    limit = min(stop, pos + MAX_INLINE_CODE + run)
    closing = _CLOSING[run].search(content, pos, limit)
    # endpos hides what follows `limit`: a run cut there may be part of a longer one.
    if closing is None or content.startswith("`", closing.end()):
        return pos
    # (endpos past the closing run: `$` would match a newline right before it)
    if "\n" in content[pos : closing.start()] and _PARAGRAPH_END.search(
        content, pos, closing.end()
    ):
        return pos  # the paragraph ended before the closing run
    hidden.code.append((start, closing.end()))
    return closing.end()


# A newline before a line that ends the paragraph a code span is in: a blank line, or one
# opening another block (a heading, a quote, a table row, a list item). Looked for only between
# an opening run and its closing one, so a wrapped span costs its own length.
_PARAGRAPH_END = re.compile(r"\n[ \t]*(?:\n|$|#{1,6}(?:[ \t]|$)|>|\||[-*+][ \t]|\d{1,9}[.)][ \t])")


def mask_code_and_comments(content: str, fences: list[Fence] | None = None) -> str:
    """`content` with code and HTML comments blanked (same length, newlines kept)."""
    if "`" not in content and "~~~" not in content and "<!--" not in content:
        return content
    hidden = hidden_ranges(content, fences)
    ranges = _merged(hidden.code + hidden.comments)
    if not ranges:
        return content
    parts: list[str] = []
    last = 0
    for start, end in ranges:
        parts.append(content[last:start])
        parts.append(_blank(content[start:end]))
        last = end
    parts.append(content[last:])
    return "".join(parts)


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, overlaps joined (a comment may span fences)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _blank(text: str) -> str:
    """Spaces for every character but newlines."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(line) for line in text.split("\n"))
