"""Text helpers the rules share: words, phrases, paragraphs, invisible characters.

The "prose" view the rules scan (code and HTML comments blanked, same offsets) is made by
agents.markdown, the one definition of code that the links and the fact-check use too.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from agents.reviewers.validator import _leads

PARAGRAPH_BREAK = "\n\n"


def lower_same_length(text: str) -> str:
    """text.lower() with offsets preserved: U+0130 (I with dot above) is the only character whose
    lowercase is two characters long."""
    low = text.lower()
    if len(low) != len(text):
        low = text.replace("\u0130", "i").lower()
    return low


# ASCII punctuation except what belongs to words: apostrophe, hyphen, underscore ("let's",
# "co-founder", "im_start").
_PUNCT_TO_SPACE = str.maketrans(dict.fromkeys('!"#$%&()*+,./:;<=>?@[\\]^`{|}~', " "))
_NOT_WORD = re.compile(r"[^\w'\u2019-]+")


def word_set(lower: str) -> frozenset[str]:
    """The distinct words of lowercased text. Rules use it as a gate: a pattern whose key word is
    absent is not run at all, which is what keeps a clean 2,000-word draft under a millisecond."""
    if lower.isascii():
        # str.translate has a fast path for ASCII text; the regex split is the general case.
        return frozenset(lower.translate(_PUNCT_TO_SPACE).split())
    return frozenset(_NOT_WORD.split(lower))


def at_word_start(text: str, pos: int) -> bool:
    """True when `pos` starts a word. Rules check this in Python instead of starting patterns with
    \\b: `re` finds a pattern that starts with a literal with a fast substring search, while a
    leading \\b makes it try the whole pattern at every position (20-100x slower)."""
    if pos == 0:
        return True
    before = text[pos - 1]
    return not (before.isalnum() or before == "_")


def word_matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """pattern.finditer(text), keeping matches that start at a word start (an alternation of
    literal openings is found from them: _leads)."""
    return _leads.finditer(pattern, text, word_start=True)


Phrases = tuple[tuple[frozenset[str], "re.Pattern[str]"], ...]


def phrases(*pairs: tuple[str, str]) -> Phrases:
    """(gate words, pattern) pairs, the gate a space-separated list of words: the pattern runs
    only when one of them is among the draft's words (a set lookup, no scan of the text)."""
    return tuple((frozenset(gate.split()), re.compile(pattern)) for gate, pattern in pairs)


def phrase_matches(pairs: Phrases, text: str, words: frozenset[str]) -> Iterator[re.Match[str]]:
    """Word-start matches of every pair whose gate is open. Many small gated patterns are far
    cheaper than one big alternation, which `re` has to try at every position."""
    for gate, pattern in pairs:
        if not words.isdisjoint(gate):
            yield from word_matches(pattern, text)


@dataclass(frozen=True)
class Anchored:
    """A phrase found from its rare part: `anchor` (which should start with a literal) is searched
    when a gate word is present (and one of the `also` words, when set); when `before` is set it
    must match at the end of the `window` characters before the anchor (it should end with `$`),
    and the hit starts where it matched."""

    gate: frozenset[str]
    anchor: re.Pattern[str]
    before: re.Pattern[str] | None = None
    window: int = 80
    # Literal endings the text before the anchor must have for `before` to be tried at all (a
    # C-speed check that skips most anchors; `before` is searched across the whole window).
    ends: tuple[str, ...] = ()
    also: frozenset[str] = frozenset()


def anchored(
    gate: str,
    anchor: str,
    before: str | None = None,
    window: int = 80,
    ends: str = "",
    also: str = "",
) -> Anchored:
    return Anchored(
        frozenset(gate.split()),
        re.compile(anchor),
        re.compile(before + "$") if before is not None else None,
        window,
        tuple(end.replace("_", " ") for end in ends.split()),
        frozenset(also.split()),
    )


def anchored_matches(
    phrases_: tuple[Anchored, ...], text: str, words: frozenset[str]
) -> Iterator[tuple[int, int]]:
    """(start, end) of every anchored phrase whose gate is open, in no particular order."""
    for phrase in phrases_:
        if words.isdisjoint(phrase.gate) or (phrase.also and words.isdisjoint(phrase.also)):
            continue
        for match in word_matches(phrase.anchor, text):
            start = match.start()
            if phrase.before is not None:
                if phrase.ends and not text.endswith(phrase.ends, max(0, start - 16), start):
                    continue
                before = phrase.before.search(text, max(0, start - phrase.window), start)
                if before is None or not at_word_start(text, before.start()):
                    continue
                start = before.start()
            yield start, match.end()


def line_start_matches(pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of matches of `pattern` at the start of a line. The pattern must begin with
    a newline: it runs on "\\n" + text, so `re` can jump from newline to newline (a `^` in
    MULTILINE mode makes it try every position); offsets are into `text`."""
    for match in pattern.finditer("\n" + text):
        yield match.start(), match.end() - 1


def paragraph_bounds(text: str, pos: int) -> tuple[int, int]:
    """The [start, end) of the paragraph (blank-line separated block) containing `pos`."""
    start = text.rfind(PARAGRAPH_BREAK, 0, pos)
    end = text.find(PARAGRAPH_BREAK, pos)
    return (0 if start == -1 else start + 2, len(text) if end == -1 else end)


def line_bounds(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end == -1 else end


# Zero-width and invisible format characters used to hide words from naive matching.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]"
)


@dataclass(frozen=True)
class Visible:
    """Text with invisible characters removed, and the way back to original offsets."""

    text: str
    # For each removed character i (in order): its position in the stripped text, r_i - i.
    _removed_at: tuple[int, ...] = ()

    def original(self, pos: int) -> int:
        return pos + bisect.bisect_right(self._removed_at, pos)


def strip_invisible(text: str) -> Visible:
    """Remove invisible characters (zero-width spaces, soft hyphens, bidi controls) so that
    "ig\u200bnore previous instructions" matches like the plain phrase."""
    removed = [m.start() for m in _INVISIBLE.finditer(text)]
    if not removed:
        return Visible(text)
    return Visible(_INVISIBLE.sub("", text), tuple(r - i for i, r in enumerate(removed)))


# A sentence ends at . ! or ? before whitespace (or the end), or at a line break.
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


def sentence_span(low: str, start: int, end: int, reach: int = 300) -> tuple[int, int]:
    """(begin, stop) of the sentence around low[start:end], looking at most `reach` characters
    either side (a bound, so a text without full stops costs no more than a window)."""
    floor = max(0, start - reach)
    begin = floor
    for m in _SENTENCE_END.finditer(low, floor, start):
        begin = m.end()
    stop = _SENTENCE_END.search(low, end, min(len(low), end + reach))
    return begin, stop.end() if stop is not None else min(len(low), end + reach)
