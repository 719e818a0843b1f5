"""The literal openings every match of a pattern starts with, worked out from its parsed form.

`re` finds a pattern that opens with one literal by a fast substring search, but tries a pattern
that opens with an alternation ("(?:tested|tried|reviewed)") at every character of the text.
`leads(pattern)` gives the literal strings every match must start with (None when it cannot:
a character class, a wildcard, a repeat at the start, a flag), `signs(pattern)` the few signs it
opens with; `_leads` searches for them with str.find and tries the pattern only there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar

try:  # Python 3.11+: the parser is private but stable; older versions name it sre_parse.
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse as _sre_parse

_T = TypeVar("_T")


def per_pattern(work: Callable[[re.Pattern[str]], _T]) -> Callable[[re.Pattern[str]], _T]:
    """functools.cache for a function of one pattern, keyed by the pattern's identity: a
    re.Pattern hashes its whole compiled program on every lookup (~1.5 us for a long alternation
    such as the stock first names, asked for by every search of every draft). The pattern is held
    with its value, so its id is never reused while cached; an equal pattern compiled apart gets
    the same value, worked out again."""
    done: dict[int, tuple[re.Pattern[str], _T]] = {}

    @functools.wraps(work)
    def cached(pattern: re.Pattern[str]) -> _T:
        entry = done.get(id(pattern))
        if entry is None or entry[0] is not pattern:
            entry = done[id(pattern)] = (pattern, work(pattern))
        return entry[1]

    return cached


_C = _sre_parse  # constants (LITERAL, BRANCH, ...) live on the parser module
# Beyond these the literal searches would cost more than one regex scan.
_MAX_LEADS = 64
# Openings in capitals (names) are searched only when the draft's words leave few of them: a
# longer list then costs a set lookup per name, not a search.
_MAX_NAMED_LEADS = 256
_MIN_LEAD_CHARS = 2
# An opening this long is rare enough in prose: searching for longer ones would only multiply
# the searches ("when i tried", "when we tried", ... are all found from "when").
_ENOUGH_CHARS = 4
# A small character class at the start ("organi[sz]ation") is spelled out up to this many letters.
_MAX_CLASS = 4
_MAX_RARE_LEADS = 8

# One possible opening: the literal text, and whether the element ended there (the next element's
# text can be appended) or something non-literal follows (the opening is final).
_Opening = tuple[str, bool]


# None where an element (or a whole sequence) can start with something other than a literal:
# a plain return value, not an exception, because it is the normal answer for most patterns.


def _join(prefixes: set[_Opening], element: set[_Opening], limit: int) -> set[_Opening] | None:
    out: set[_Opening] = set()
    for text, open_ in prefixes:
        if not open_:
            out.add((text, False))
            continue
        for more, more_open in element:
            joined = text + more
            out.add((joined, more_open and len(joined) < _ENOUGH_CHARS))
    return None if len(out) > limit else out


def _sequence(items: Any, limit: int = _MAX_LEADS) -> set[_Opening] | None:
    prefixes: set[_Opening] | None = {("", True)}
    for op, av in items:
        assert prefixes is not None
        if all(not open_ for _, open_ in prefixes):
            break
        element = _element(op, av, limit)
        if element is None:
            if any(not text and open_ for text, open_ in prefixes):
                return None  # nothing literal before it: this sequence has no literal opening
            # What follows is not literal: the openings found so far are final.
            return {(text, False) for text, _ in prefixes}
        prefixes = _join(prefixes, element, limit)
        if prefixes is None:
            return None
    return prefixes


def _element(op: Any, av: Any, limit: int) -> set[_Opening] | None:
    if op is _C.LITERAL:
        return {(chr(av), True)}
    if op is _C.SUBPATTERN:
        _group, add_flags, del_flags, inner = av
        if add_flags or del_flags:
            return None
        return _sequence(inner, limit)
    if op is _C.BRANCH:
        out: set[_Opening] = set()
        for branch in av[1]:
            found = _sequence(branch, limit)
            if found is None:
                return None
            out |= found
        return out
    if op is _C.IN:
        chars = [chr(c) for kind, c in av if kind is _C.LITERAL]
        if len(chars) != len(av) or len(chars) > _MAX_CLASS:
            return None
        return {(c, True) for c in chars}
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
        low, high, inner = av
        if low == 0 and high == 1:
            found = _sequence(inner, limit)
            return None if found is None else {("", True)} | found
        return None
    if op in (_C.ASSERT, _C.ASSERT_NOT):
        return {("", True)}  # zero-width: the match itself checks it
    return None


@per_pattern
def leads(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The literal strings every match of `pattern` starts with, or None when there is no such
    short list (or one literal, which `re` already searches for fast by itself)."""
    kept = _openings(pattern, _MAX_LEADS)
    if kept is None or _many_capitals(kept):
        return None
    return kept


@functools.cache
def _openings(pattern: re.Pattern[str], limit: int) -> tuple[str, ...] | None:
    """leads() before the rule about capitals, with at most `limit` openings."""
    if pattern.flags & (re.IGNORECASE | re.VERBOSE | re.MULTILINE | re.DOTALL) or not isinstance(
        pattern.pattern, str
    ):
        return None
    try:
        openings = _sequence(_sre_parse.parse(pattern.pattern, pattern.flags), limit)
    except (re.error, TypeError, ValueError):
        return None
    if openings is None:
        return None
    texts = {text for text, _ in openings}
    if len(texts) < 2 or min(len(t) for t in texts) < _MIN_LEAD_CHARS:
        return None
    first, last = min(texts), max(texts)
    shared = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), None)
    if (len(first) if shared is None else shared) >= _MIN_LEAD_CHARS + 1:
        return None  # "last (?:week|month)": `re` searches for "last " by itself
    # A lead that another lead starts with is covered by the shorter one's search.
    return tuple(sorted(t for t in texts if not any(t != s and t.startswith(s) for s in texts)))


def _many_capitals(kept: tuple[str, ...]) -> bool:
    # Capitals, digits and signs are rarer in prose than small letters, but `re` still tries
    # a class of them at every character ("(?:19|20)\d\d": ~30 times two searches): only
    # many of them, or ones that share their first sign (`re` searches for a literal opening
    # at C speed), are left to `re` (unless the draft's words leave few: `_capitals_plan`).
    return not any(t[0].islower() for t in kept) and (
        len(kept) > _MAX_RARE_LEADS or len({t[0] for t in kept}) == 1
    )


# Signs common enough in prose that trying the pattern at each costs more than one regex scan.
_COMMON_SIGNS = frozenset(".,")
_MAX_SIGNS = 4


def _first_chars(items: Any) -> set[str] | None:
    """The characters the parsed sequence `items` must open with (None when it may open with
    anything else: a class with ranges, a repeat, an assertion, a flag)."""
    if not items:
        return None
    op, av = items[0]
    if op is _C.LITERAL:
        return {chr(av)}
    if op is _C.IN:
        if not all(kind is _C.LITERAL for kind, _ in av):
            return None
        return {chr(c) for _, c in av}
    if op is _C.BRANCH:
        out: set[str] = set()
        for branch in av[1]:
            found = _first_chars(branch)
            if found is None:
                return None
            out |= found
        return out
    if op is _C.SUBPATTERN:
        _group, add_flags, del_flags, inner = av
        return None if add_flags or del_flags else _first_chars(inner)
    return None


@per_pattern
def signs(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The few signs (quotation marks, brackets, symbols) every match of `pattern` opens with, or
    None. `re` tries a pattern that opens with a class ("[\"\u201c]") at every character; a
    substring search per sign skips to them at C speed."""
    if pattern.flags & (re.IGNORECASE | re.VERBOSE | re.MULTILINE | re.DOTALL) or not isinstance(
        pattern.pattern, str
    ):
        return None
    try:
        chars = _first_chars(list(_sre_parse.parse(pattern.pattern, pattern.flags)))
    except (re.error, TypeError, ValueError):
        return None
    if (
        not chars
        or len(chars) == 1  # one literal opening: `re` searches for it at C speed
        or len(chars) > _MAX_SIGNS
        or any(c.isalnum() or c.isspace() or c in _COMMON_SIGNS for c in chars)
    ):
        return None
    return tuple(sorted(chars))
