"""Critical: articles that do not end: cut mid-sentence, at a heading, in an unclosed fence, or
followed by a JSON envelope.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from agents.reviewers.validator import _back_matter
from agents.reviewers.validator._core import Context, Hit, rule
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


@dataclass(frozen=True)
class _Ending:
    """What the end of the article looks like: a finding for broken_ending (certain) or for
    possibly_truncated (a person should look), with the span it is about."""

    start: int
    end: int
    message: str
    certain: bool


@rule(
    "broken_ending",
    Severity.CRITICAL,
    FAMILY,
    "Content cut off: mid-sentence, mid-word, in a link, URL or HTML tag, at a heading, before an "
    "appended Sources list, or ending in a JSON envelope.",
)
def broken_ending(ctx: Context) -> Iterator[Hit]:
    ending = _ending(ctx)
    if ending is not None and ending.certain:
        yield Hit(ending.start, ending.end, ending.message)


@rule(
    "possibly_truncated",
    Severity.WARNING,
    FAMILY,
    "The last list item or table row lacks the punctuation its siblings have: maybe cut, maybe "
    "style; a person should look.",
    human_review=True,
)
def possibly_truncated(ctx: Context) -> Iterator[Hit]:
    ending = _ending(ctx)
    if ending is not None and not ending.certain:
        yield Hit(ending.start, ending.end, ending.message)


# broken_ending and possibly_truncated judge the same ending: the last Context's verdict is kept
# (compared by identity, so a concurrent validation in another thread only recomputes).
_LAST: tuple[Context | None, _Ending | None] = (None, None)


def _ending(ctx: Context) -> _Ending | None:
    global _LAST
    cached_ctx, cached = _LAST
    if cached_ctx is ctx:
        return cached
    ending = _judge_ending(ctx)
    _LAST = (ctx, ending)
    return ending


def _judge_ending(ctx: Context) -> _Ending | None:
    text = _back_matter.without_back_matter(ctx.content.rstrip())
    if not text or ctx.truncated_from is not None:
        return None
    if any(not f.closed for f in ctx.fences):
        return None  # unclosed_code_fence reports it
    if ctx.fences and ctx.fences[-1].end >= len(text):
        return None  # ends with a closed code block
    tail_start = max(0, len(text) - 20_000)
    envelope = _last_envelope(ctx, text, tail_start)
    if envelope is not None:
        return _Ending(envelope, len(text), "trailing JSON envelope after the article", True)
    if "<" in ctx.prose[tail_start:]:
        tag = _back_matter.unclosed_block(ctx.prose[: len(text)])
        if tag is not None:
            start = ctx.lower.rfind("<" + tag, 0, len(text))
            return _Ending(start, len(text), f"ends inside an unclosed <{tag}> element", True)
    lines = _last_lines(text)
    if not lines:
        return None
    start, last = lines[-1]
    if _ENVELOPE_CLOSE.match(last):
        return _Ending(start, len(text), f"ends in a JSON envelope terminator {last!r}", True)
    body = _peel_sources(lines)
    if body is not lines:
        if not body:
            return None
        start, last = body[-1]
        why = _judge(last, body)
        if why is not None:
            message, certain = why
            where = "before the appended Sources list or footnotes"
            return _Ending(start, start + len(last), f"{message} {where}", certain)
        return None
    lines = _join_continuations(text, lines)
    start, last = lines[-1]
    unbalanced = _back_matter.unbalanced(text, start)
    if unbalanced is not None:
        return _Ending(max(start, len(text) - 80), len(text), unbalanced, True)
    why = _judge(last, lines)
    if why is None:
        return None
    message, certain = why
    return _Ending(max(start, len(text) - 80), len(text), message, certain)


def _join_continuations(text: str, lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A list item wrapped onto indented lines is one item: its last line is judged with it."""
    i = len(lines) - 1
    while i > 0 and text[lines[i][0] - 1] in " \t" and not _ITEM.match(lines[i][1]):
        i -= 1
    if i == len(lines) - 1 or not _ITEM.match(lines[i][1]):
        return lines
    joined = " ".join(line for _, line in lines[i:])
    return [*lines[:i], (lines[i][0], joined[-_LINE_TAIL:])]


def _last_envelope(ctx: Context, text: str, tail_start: int) -> int | None:
    """Start of a trailing JSON object with envelope keys ("title", "content", ...). Searched in
    prose, so a JSON example inside a closed code fence is not an envelope."""
    if not text.rstrip("`").rstrip().endswith("}"):
        return None
    starts = [m.start() for m in _ENVELOPE_KEY.finditer(ctx.prose, tail_start, len(text))]
    return starts[-1] if starts else None


# The closing line of a JSON wrapper a writer returned around the article: `}`, `]`, `"}`.
_ENVELOPE_CLOSE = re.compile(r"^[\"']?[\]}]{1,3}[,;]?$")
_SOURCES_HEADING = re.compile(
    r"^(?:#{1,6}[ \t]*|\*\*)?(?:sources?|references?|further reading|citations?|bibliography"
    r"|notes|links|read more|related reading)(?:\*\*)?[ \t]*:?(?:\*\*)?$",
    re.IGNORECASE,
)
_ITEM = re.compile(r"^(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)$")
_HEADING = re.compile(r"^#{1,6}(?:\s|$)")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
# No optional "!" in front: a pattern starting with a literal "[" lets `re` jump between brackets.
_OPEN_LINK_URL = re.compile(r"\[[^\]\n]{0,500}\]\([^)\s]{0,2000}$")
_OPEN_LINK_TEXT = re.compile(r"\[[^\]\n]{0,500}$")
# A link's URL opened on this line, its text on a line above (a wrapped link).
_OPEN_URL = re.compile(r"\]\([^)\s]{0,2000}$")
_OPEN_TAG = re.compile(r"<[a-zA-Z!/][^<>\n]{0,2000}$")
_LINK_END = re.compile(r"(?:\]\([^)\s]{0,2000}\)|https?://\S{0,2000}|\]|>)$")
_MAX_TAIL_LINES = 60


# Only the end of a line decides how it ends; judging a bounded tail keeps every end-anchored
# search linear on a 2 MB line (an unbounded one tries each of its positions).
_LINE_TAIL = 3000


def _last_lines(text: str) -> list[tuple[int, str]]:
    """(offset, stripped line tail) of the last non-empty lines, oldest first: the trailing
    block of list items, table rows or sources, and the line above it."""
    found: list[tuple[int, str]] = []
    end = len(text)
    while end > 0 and len(found) < _MAX_TAIL_LINES:
        start = text.rfind("\n", 0, end) + 1
        line_start = max(start, end - _LINE_TAIL)
        line = text[line_start:end]
        stripped = line.strip()
        if stripped:
            found.append((line_start + len(line) - len(line.lstrip()), stripped))
            # Only a trailing block (list, table, sources) needs the lines above it: the first
            # line of prose (or a heading) ends the walk.
            if not (
                _ITEM.match(stripped)
                or stripped.startswith("[^")
                or line[:1] in (" ", "\t")
                or stripped.startswith("|")
                or _is_bare_link(stripped)
                or _SOURCES_HEADING.match(stripped)
            ):
                break
        end = start - 1
    found.reverse()
    return found


def _peel_sources(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines above the back matter at the end: a trailing Sources/References block (a
    sources heading followed only by list items or bare links) and footnote definitions that
    end cleanly, in any order, so a cut in the prose above them is still seen. Anything else is
    returned unchanged (the same list object)."""
    end = len(lines)
    while end > 0:
        i = end
        while i > 0 and _is_done_footnote(lines[i - 1][1]):
            i -= 1
        if i < end:
            end = i
            continue
        while i > 0 and (_ITEM.match(lines[i - 1][1]) or _is_bare_link(lines[i - 1][1])):
            i -= 1
        if 0 < i < end and _SOURCES_HEADING.match(lines[i - 1][1]):
            end = i - 1
            continue
        break
    return lines if end == len(lines) else lines[:end]


# A footnote definition: "[^1]: The ratio varies ...", "[^note]: HMRC, https://...".
_FOOTNOTE = re.compile(r"\[\^[^\]\n]{1,40}\]:")


def _is_done_footnote(line: str) -> bool:
    """A footnote definition that itself ends (a cut one is judged as the last line)."""
    if not _FOOTNOTE.match(line):
        return False
    return _ends_with_link(line) or _finished(_core(line))


def _is_bare_link(line: str) -> bool:
    return line.startswith(("<http", "http", "[", "[^")) and _ends_with_link(line)


def _ends_with_link(line: str) -> bool:
    """The line ends with a link, a URL, a closed bracket or tag (checked cheaply first)."""
    if not line or (line[-1] not in ")]>" and "http" not in line):
        return False
    return bool(_LINK_END.search(line))


def _judge(line: str, lines: list[tuple[int, str]]) -> tuple[str, bool] | None:
    """Why this last line looks cut (message, certain), or None when it ends cleanly."""
    if _HEADING.match(line):
        return "ends at a heading with no section body", True
    if _RULE.match(line) or (len(line) < 2500 and _back_matter.BACK_MATTER.fullmatch(line)):
        return None
    if line.endswith(_back_matter.EMOTICONS):
        return None
    if "[" in line:
        if _OPEN_LINK_URL.search(line):
            return "ends inside a link's URL", True
        if _OPEN_LINK_TEXT.search(line):
            return "ends inside a link's text", True
    if "<" in line and _OPEN_TAG.search(line):
        return "ends inside an HTML tag", True
    if "](" in line and _OPEN_URL.search(line):
        return "ends inside a link's URL", True
    item = _ITEM.match(line)
    if item is not None:
        return _judge_sibling(
            item.group(1), [m.group(1) for _, other in lines if (m := _ITEM.match(other))]
        )
    if line.startswith("|"):
        if line.endswith("|"):
            return None
        rows = [other for _, other in lines if other.startswith("|")]
        return _judge_sibling(line, rows, row=True)
    if line.startswith(("<", "![")) or _ends_with_link(line):
        return None
    core = _core(line.lstrip("> \t"))
    if not core:
        return None
    if core[-1] in ":;,":
        return f"ends on {core[-1]!r}: what follows is missing", True
    if _finished(core):
        return None
    return "ends mid-sentence (truncated?)", True


def _judge_sibling(item: str, siblings: list[str], *, row: bool = False) -> tuple[str, bool] | None:
    """A list item (or table row) without final punctuation is fine when its siblings have none
    either; it is cut when it stops on a word no sentence ends with; otherwise it may be either."""
    what = "table row" if row else "list item"
    core = _core(item.rstrip("| \t") if row else item)
    if not core or _ends_with_link(core) or _ends_with_link(item.strip()):
        return None
    if not row and _finished(core):
        return None
    # A cut item is a phrase stopped short; a one- or two-word item ("- Go", "- c") is a label.
    if core[-1] == "," or (len(core.split()) >= 3 and _fragment(core)):
        return f"last {what} stops mid-sentence", True
    if not row and len(core.split()) >= 3 and _ends_on_count(core):
        return f"last {what} stops on a count with nothing counted", False
    others = siblings[:-1]
    if row:
        ended = sum(s.endswith("|") for s in others)
    else:
        ended = sum(_finished(_core(s)) for s in others)
    if row and len(others) >= 2 and ended == len(others):
        # A table's rows share one delimiter style (written by hand or generated); a last row
        # alone without the closing pipe every other row has was cut, whatever its last word.
        return f"last table row lacks the closing '|' all {ended} rows above have", True
    if len(others) >= 2 and ended * 3 >= len(others) * 2:
        kind = "end with '|'" if row else "end with punctuation"
        return (
            f"last {what} lacks the ending its siblings have ({ended}/{len(others)} {kind})",
            False,
        )
    return None


def _core(line: str) -> str:
    """The line without trailing (and leading) emphasis, quotes and brackets."""
    return line.strip().strip("*_~`").rstrip(_CLOSERS).rstrip()


def _finished(core: str) -> bool:
    if not core:
        return True
    last = core[-1]
    return last in _TERMINAL or unicodedata.category(last) in ("So", "Sk", "Pe", "Pf")


# Words a sentence (or a list item) does not end on: the text stopped in the middle of a phrase.
_DANGLING = frozenset(
    {
        *("the", "a", "an", "and", "or", "but", "nor", "of", "to", "at", "by", "for", "from"),
        *("with", "into", "onto", "than", "that", "which", "who", "whom", "whose", "when"),
        *("where", "while", "if", "as", "because", "so", "then", "is", "are", "was", "were"),
        *("be", "been", "being", "will", "would", "can", "could", "should", "shall", "may"),
        *("might", "must", "has", "have", "had", "does", "did", "not", "its", "their", "our"),
        *("your", "my", "his", "her", "this", "these", "those", "such", "very", "each", "every"),
        *("some", "any", "both", "either", "neither", "also", "just", "even", "until", "unless"),
        *("since", "via", "per", "whether", "although", "though", "whereas", "like", "more"),
    }
)
# Two-letter words that do end sentences; any other one- or two-letter lowercase tail is a word
# cut in half ("the wrong shape for th").
_SHORT_WORDS = frozenset(
    {
        *("a", "i", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it"),
        *("me", "my", "no", "of", "on", "or", "ok", "so", "to", "up", "us", "we", "am", "ox"),
        *("pm", "tv", "pc", "ai", "id", "ui", "ux", "os", "hi"),
    }
)
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z'\u2019-]*)\W*$")


# A count that opens a phrase waits for what it counts: after a comma or a determiner ("a
# bladder, two" may have stopped before "litres"; "about three"). A verb's or a preposition's
# object ends an item ("serves two", "a table for two").
_COUNTS = frozenset(
    {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "several"}
)
_COUNT_OPENERS = frozenset({"the", "these", "those", "your", "our", "my", "about", "around"})
_COUNT_OPENERS |= {"roughly", "another", "at", "least", "and", "or"}


def _ends_on_count(core: str) -> bool:
    """The item stops on a count that opens a phrase (see `_COUNTS`): cut before its noun, or a
    list's terse style ("Spare screwgates, three"): a person should look."""
    match = _LAST_WORD.search(core)
    if match is None or match.group(1).lower() not in _COUNTS:
        return False
    before = core[: match.start()].rstrip()
    return before.endswith(",") or before.rpartition(" ")[2].lower() in _COUNT_OPENERS


def _fragment(core: str) -> bool:
    match = _LAST_WORD.search(core)
    if match is None:
        return False
    word = match.group(1)
    low = word.lower()
    if low in _DANGLING:
        return True
    return len(word) <= 2 and word.islower() and low not in _SHORT_WORDS
