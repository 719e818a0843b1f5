"""What an injection hides behind, undone before matching (issue 12).

`normalize(text)` gives one lowercase view of a text in which the usual disguises are undone:
zero-width and bidi controls, variation selectors and tag characters removed; compatibility forms
(fullwidth, mathematical bold/italic letters, enclosed letters) folded by NFKC; accents stripped
from Latin letters (so "précédentes" matches like "precedentes"); Cyrillic and Greek look-alikes
folded to Latin inside words that mix scripts ("ign\u043ere" with a Cyrillic o) or that sit among
Latin words. Every character of the view knows
where it came from (`View.original`), and which ones were disguised (`View.disguised`): a phrase
found only through a disguise is hidden, and nobody hides an example.

`respaced(view)` rejoins letters written one at a time ("i g n o r e   a l l"), `unleet` reads
digits written for letters; encoded text is decoded by `_injection_decode`. All patterns are
linear in the input.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

# Removed outright: they render as nothing (or modify the previous character's look).
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)


# Look-alikes of Latin letters (Cyrillic, Greek, Armenian, Latin IPA and small capitals), as
# lower() leaves them: escapes, so that this file itself holds no confusable character.
_CONFUSABLES = str.maketrans(
    {
        "\u0430": "a", "\u0432": "b", "\u0435": "e", "\u0451": "e", "\u043a": "k", "\u043c": "m",
        "\u043d": "h", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0442": "t", "\u0443": "y",
        "\u0445": "x", "\u0455": "s", "\u0456": "i", "\u0457": "i", "\u0458": "j", "\u04bb": "h",
        "\u0501": "d", "\u051b": "q", "\u051d": "w", "\u04af": "y", "\u04cf": "l", "\u0261": "g",
        "\u03b1": "a", "\u03b2": "b", "\u03b3": "y", "\u03b5": "e", "\u03b7": "n", "\u03b9": "i",
        "\u03ba": "k", "\u03bd": "v", "\u03bf": "o", "\u03c1": "p", "\u03c4": "t", "\u03c5": "u",
        "\u03c7": "x", "\u03c9": "w", "\u03f2": "c", "\u03f3": "j", "\u0585": "o", "\u057d": "u",
        "\u0581": "g", "\u0251": "a", "\u0269": "i", "\u1d20": "v", "\u028f": "y",
    }
)  # fmt: skip
_CONFUSABLE_CHARS = frozenset(chr(c) for c in _CONFUSABLES)
_CONFUSABLE_RE = re.compile("[" + "".join(sorted(_CONFUSABLE_CHARS)) + "]")
# Digits and symbols written for letters ("1gn0r3 4ll pr3v10us 1nstruct10ns"): same length, so
# a view read through this table keeps every offset.
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
_WORD = re.compile(r"\w+")
_LATIN = re.compile(r"[a-z]")
_RUNS = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")
# Blocks whose NFKC folding to ASCII is a disguise, not typography (ligatures, ½ are not).
_DISGUISE_BLOCKS = ((0xFF00, 0xFFEF), (0x1D400, 0x1D7FF), (0x2460, 0x24FF), (0x1F100, 0x1F1FF))


def _accent_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in (*range(0xC0, 0x250), *range(0x1E00, 0x1F00), 0x451, 0x401):
        decomposition = unicodedata.decomposition(chr(code)).split()
        if decomposition and not decomposition[0].startswith("<"):
            base = chr(int(decomposition[0], 16))
            if base.isalpha():
                table[code] = base.lower()
    return table


_ACCENTS = _accent_table()
# Typographic quotes read as ASCII ones (patterns write "you're", verdicts '"approved"').
_ACCENTS.update({0x2018: "'", 0x2019: "'", 0x02BC: "'", 0x201C: '"', 0x201D: '"'})


@dataclass(frozen=True)
class View:
    """A normalised, lowercase view of a text; `origin[i]` is the source offset of `text[i]`
    (None: the identity), `disguised` the view positions where a disguise was undone."""

    text: str
    origin: array[int] | None = None
    disguised: frozenset[int] = frozenset()

    def original(self, pos: int) -> int:
        if self.origin is None:
            return pos
        if pos >= len(self.origin):
            return (self.origin[-1] + 1) if self.origin else 0
        return self.origin[pos]

    def original_end(self, end: int) -> int:
        return self.original(end - 1) + 1 if end > 0 else 0

    def is_disguised(self, start: int, end: int) -> bool:
        return bool(self.disguised) and any(i in self.disguised for i in range(start, end))


def normalize(text: str) -> View:
    if text.isascii():
        return View(text.lower())
    fast = _same_length_view(text)
    if fast is not None:
        return fast
    chars: list[str] = []
    origin = array("i")
    disguised: set[int] = set()
    for run in _RUNS.finditer(text):
        start, piece = run.start(), run.group(0)
        if piece.isascii():
            chars.extend(piece.lower())
            origin.extend(range(start, start + len(piece)))
            continue
        for offset, ch in enumerate(piece):
            if _INVISIBLE.match(ch):
                disguised.add(len(chars))  # the character after the removed one
                continue
            if unicodedata.category(ch) == "Mn":
                continue  # a combining accent (or "zalgo" stacks): the base letter stays
            folded = (
                unicodedata.normalize("NFKC", ch) if not ch.isalpha() or ord(ch) > 0x24F else ch
            )
            if folded != ch and _in_disguise_block(ord(ch)):
                disguised.update(range(len(chars), len(chars) + len(folded)))
            for out in folded:
                low = out.lower()[:1] or out
                chars.append(_ACCENTS.get(ord(low), low))
                origin.append(start + offset)
    view_text = "".join(chars)
    view_text, folded_at = _fold_confusables(view_text)
    disguised.update(folded_at)
    return View(view_text, origin, frozenset(disguised))


_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _same_length_view(text: str) -> View | None:
    """The usual non-ASCII draft (accents, other scripts, typographic quotes; nothing to remove
    or fold by NFKC) maps one character to one: the view is made by C-level lower() and
    translate(), offsets are the text's. None when the character-by-character path is needed."""
    if _INVISIBLE.search(text) or _COMBINING.search(text):
        return None
    if not unicodedata.is_normalized("NFKC", text):
        return None
    low = text.lower()
    if len(low) != len(text):
        return None  # a letter whose lowercase is two characters (the Turkish dotted I)
    view_text, folded = _fold_confusables(low.translate(_ACCENTS))
    return View(view_text, None, frozenset(folded))


def _in_disguise_block(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _DISGUISE_BLOCKS)


def _fold_confusables(text: str) -> tuple[str, set[int]]:
    """Latin look-alikes folded inside words that mix them with Latin letters, and in words
    made only of look-alikes when a neighbouring word is Latin. Only the words holding a
    look-alike are visited (found from the look-alikes themselves), so a Russian paragraph in an
    English draft costs its own words, not the draft's."""
    if not _CONFUSABLE_RE.search(text):
        return text, set()
    chars = list(text)
    folded: set[int] = set()
    covered = 0  # the end of the last word visited
    for hit in _CONFUSABLE_RE.finditer(text):
        if hit.start() < covered:
            continue
        word = _WORD.match(text, _word_start(text, hit.start()))
        if word is None:
            continue
        covered = word.end()
        value = word.group(0)
        if not _LATIN.search(value):
            other = any(not ch.isascii() and ch not in _CONFUSABLE_CHARS for ch in value)
            if other or not _latin_neighbour(text, word.start(), word.end()):
                continue
        for i, ch in enumerate(value):
            if ch in _CONFUSABLE_CHARS:
                chars[word.start() + i] = ch.translate(_CONFUSABLES)
                folded.add(word.start() + i)
    return "".join(chars), folded


_WORD_BEFORE = re.compile(r"(\w+)\W{0,40}$")


def _word_start(text: str, pos: int) -> int:
    while pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_"):
        pos -= 1
    return pos


def _latin_neighbour(text: str, start: int, end: int) -> bool:
    """The word right before or right after [start, end) has a Latin letter."""
    before = _WORD_BEFORE.search(text, max(0, start - 80), start)
    after = _WORD.search(text, end, end + 80)
    return any(m is not None and _LATIN.search(m.group(m.lastindex or 0)) for m in (before, after))


def unleet(view: View, words: frozenset[str], wanted: frozenset[str]) -> View | None:
    """The view with digits read as the letters they stand for, when that turns one of the
    text's words into one of `wanted` (the phrases' gate words); else None. The gate is one
    translate over the distinct words, so prose with ordinary numbers pays a few microseconds."""
    folded = frozenset(" ".join(words).translate(_LEET).split())
    if (folded - words).isdisjoint(wanted):
        return None
    return View(view.text.translate(_LEET), view.origin, view.disguised)


# --- letters written one at a time ----------------------------------------------------------

_SPACED = re.compile(r"(?<![a-z0-9])[a-z](?:[ .\-_*|/·•]{1,3}[a-z]){5,400}(?![a-z0-9])")
_SINGLE_LETTERS = frozenset("bcdefghjklmnopqrstuvwxyz")


def may_be_spaced(text: str, words: frozenset[str]) -> bool:
    """A cheap gate: letters written one at a time leave single-letter words (ordinary prose has
    "a" and "i" only) or, joined by "-" or "_", a letter between two of them ("i-g-n-o-r-e"),
    found by looking at each hyphen and underscore rather than at every word."""
    if len(words & _SINGLE_LETTERS) >= 3:
        return True
    for joiner in "-_":
        pos = text.find(joiner, 1)
        while pos != -1:
            if text[pos + 2 : pos + 3] == joiner and text[pos + 1 : pos + 2].isalpha():
                return True
            pos = text.find(joiner, pos + 1)
    return False


_SEPARATOR = re.compile(r"[^a-z]+")
_SEPARATOR_KEPT = re.compile(r"([^a-z]+)")


def respaced(view: View) -> Iterator[tuple[int, int, str]]:
    """(start, end, rejoined) for runs of single letters in the view: the shortest separator
    joins letters, a longer or different one separates words."""
    for match in _SPACED.finditer(view.text):
        run = match.group(0)
        separators = _SEPARATOR.findall(run)
        if not separators:
            continue
        letter_gap = min(separators, key=len)
        pieces = _SEPARATOR_KEPT.split(run)  # letter, separator, letter, ...
        out: list[str] = []
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                out.append(piece)
            elif piece != letter_gap:
                out.append(" ")
        rejoined = "".join(out)
        # "a b c" initials or a list of single letters is no word; a rejoined run is.
        if max((len(w) for w in rejoined.split()), default=0) >= 4:
            yield match.start(), match.end(), " ".join(rejoined.split())
