"""Finding the matches of an alternation from its literal openings, at C speed.

`re` tries a pattern that opens with an alternation ("(?:tested|tried|reviewed)") at every
character of the text, which on a 2,000-word draft costs about as much as thirty literal searches.
`_lead_openings.leads(pattern)` works out the literal strings every match must start with;
`finditer` then looks for each of them with str.find and tries the pattern only where one occurs.
It yields exactly what `pattern.finditer(text)` yields: the same matches, in the same order,
skipping those that start inside an earlier one.

Each search of a lead reads the whole draft (~3-15 us on 2,000 words), and most leads do not
occur in a given draft. `known_words` tells `finditer` the draft's texts (the validator's Context
does, once per draft), and on a long draft their words: a word-start lead whose word is not among
them is not searched at all. Searches in declared texts are made once per draft, however many
patterns share them, and leads that open with the same word and sign ("we has", "we hav",
"we also", ...: one pattern of the company rules has 40) are found from one search of that opening
("we "), each occurrence then checked with str.startswith.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator
from typing import NamedTuple

from agents.reviewers.validator._lead_openings import (
    _MAX_NAMED_LEADS,
    _MAX_RARE_LEADS,
    _many_capitals,
    _openings,
    leads,
    per_pattern,
    signs,
)


class _Known:
    """The texts of one draft, the positions found in them so far, and (when given) their words,
    as word_set gives them (lowercase, split at spaces and most punctuation); from the words, when
    first asked: every run of letters and digits they hold (a word start may follow a hyphen or an
    apostrophe inside a word) and its first 4 characters."""

    def __init__(self, texts: tuple[str, ...], words: frozenset[str] | None) -> None:
        self.texts = texts  # held, so that an identity match is never a reused id
        self.words = words
        self._pieces: frozenset[str] | None = None
        self._heads: frozenset[str] | None = None
        # (index of the text, needle, word starts only) -> where the needle occurs
        self.found: dict[tuple[int, str, bool], tuple[int, ...]] = {}
        self.counts: dict[tuple[int, str], int] = {}
        # _capitals_plan, by id(pattern) as per_pattern (the pattern held with its plan)
        self.plans: dict[int, tuple[re.Pattern[str], tuple[_Search, ...] | None]] = {}
        # Which declared text a text is, by id (the first when one is declared twice).
        self._slots = {id(known): i for i, known in reversed(list(enumerate(texts)))}

    def slot(self, text: str) -> int:
        """The index of `text` among the declared texts (by identity), or -1."""
        return self._slots.get(id(text), -1)  # the texts are held: an id found is that text

    def covers(self, text: str) -> bool:
        return self.words is not None and self.slot(text) >= 0

    def pieces(self) -> tuple[frozenset[str], frozenset[str]]:
        if self._pieces is None or self._heads is None:
            words = self.words or frozenset()
            mixed = " ".join(word for word in words if not word.isalnum())
            self._pieces = words | frozenset(_ALNUM_RUN.findall(mixed))
            self._heads = frozenset({piece[:_HEAD] for piece in self._pieces})
        return self._pieces, self._heads


_ALNUM_RUN = re.compile(r"[^\W_]+")
_HEAD = 4
_KNOWN = threading.local()


def known_words(texts: tuple[str, ...], words: frozenset[str] | None) -> None:
    """Declare, for this thread, the texts of the draft being checked: searches in them are
    remembered until the next call. With `words`, also that every word of `texts` (lowercased) is
    among them, the output of `_text.word_set` on a text that holds them all at the same offsets
    (code masked with spaces is fine: what ends a masked range ends a word there too). Texts are
    compared by identity; the last call replaces the one before."""
    _KNOWN.entry = _Known(texts, words)


@functools.cache
def _gated(starts: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """(lead, how, key) for each lead: how is "word" when the lead's first run of letters and
    digits is a whole word (it is followed by another character in the lead: the word must be
    among the pieces), "head" when the run is 4 or more characters long and may go on (its first
    4 must be among the heads), "" when the lead cannot be checked (it opens with a sign, is not
    ASCII, or opens with a short run that may go on)."""
    out = []
    for lead in starts:
        low = lead.lower()
        run = _ALNUM_RUN.match(low)
        if not low.isascii() or run is None or run.start() != 0:
            out.append((lead, "", ""))
        elif run.end() < len(low):
            out.append((lead, "word", run.group()))
        elif run.end() >= _HEAD:
            out.append((lead, "head", run.group()[:_HEAD]))
        else:
            out.append((lead, "", ""))
    return tuple(out)


class _Search(NamedTuple):
    """One substring search of a pattern's plan: `needle`, and, when it is an opening shared by
    several leads, the leads an occurrence must start with; `members` are the leads it stands
    for with their gates (_gated)."""

    needle: str
    group: tuple[str, ...] | None
    members: tuple[tuple[str, str, str], ...]


@per_pattern
def _plan(pattern: re.Pattern[str]) -> tuple[_Search, ...] | None:
    """The substring searches that find every lead of `pattern` (None when it has no leads)."""
    starts = leads(pattern)
    return None if starts is None else _searches(starts)


@functools.cache
def _searches(starts: tuple[str, ...]) -> tuple[_Search, ...]:
    """One search per opening that two or more leads share (their first word and the sign after
    it: "we has", "we've" -> "we ", "we'"), one per lead for the others."""
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for member in _gated(starts):
        lead = member[0]
        run = _ALNUM_RUN.match(lead)
        opening = lead[: run.end() + 1] if run is not None and run.end() < len(lead) else lead
        groups.setdefault(opening, []).append(member)
    return tuple(
        _Search(opening, tuple(m[0] for m in members), tuple(members))
        if len(members) > 1
        else _Search(members[0][0], None, tuple(members))
        for opening, members in groups.items()
    )


def _capitals_plan(pattern: re.Pattern[str], text: str) -> tuple[_Search, ...] | None:
    """For a word-start search in a declared text, the searches of a pattern that opens with
    many capitals ("(?:Sarah|John|...) Smith", left to `re` by leads()) for the names the
    draft's words hold, when they are at most _MAX_RARE_LEADS: a few substring searches instead
    of a regex scan. Worked out once per draft and pattern."""
    known: _Known | None = getattr(_KNOWN, "entry", None)
    if known is None or not known.covers(text):
        return None
    entry = known.plans.get(id(pattern))
    if entry is not None and entry[0] is pattern:
        return entry[1]
    kept = _openings(pattern, _MAX_NAMED_LEADS)
    plan: tuple[_Search, ...] | None = None
    if kept is not None and _many_capitals(kept):
        pieces, heads = known.pieces()
        plan = tuple(
            search
            for search in _searches(kept)
            if any(_may_occur(m, pieces, heads) for m in search.members)
        )
        if sum(len(search.members) for search in plan) > _MAX_RARE_LEADS:
            plan = None
    known.plans[id(pattern)] = (pattern, plan)
    return plan


def _may_occur(member: tuple[str, str, str], pieces: frozenset[str], heads: frozenset[str]) -> bool:
    """Whether a lead may start a word of the declared texts (see _gated)."""
    _, how, key = member
    return not how or (key in pieces if how == "word" else key in heads)


def _present_leads(pattern: re.Pattern[str], text: str) -> tuple[str, ...] | None:
    """The leads worth searching in `text` for word-start matches (all of them when its words
    are not known)."""
    plan = _plan(pattern)
    if plan is None:
        return None
    known: _Known | None = getattr(_KNOWN, "entry", None)
    if known is None or not known.covers(text):
        return leads(pattern)
    pieces, heads = known.pieces()
    return tuple(m[0] for search in plan for m in search.members if _may_occur(m, pieces, heads))


def finditer(
    pattern: re.Pattern[str], text: str, *, word_start: bool = False
) -> Iterator[re.Match[str]]:
    """What pattern.finditer(text) yields, trying the pattern only where a lead occurs. With
    `word_start`, only matches that start a word (`_text.word_matches` keeps no others; a match
    inside a word then never hides a later one, as it would in finditer)."""
    plan = _plan(pattern)
    if plan is None and word_start:
        plan = _capitals_plan(pattern, text)
    if plan is not None:
        yield from _tried_at(pattern, text, plan, word_start)
        return
    chars = _sign_plan(pattern)
    # From signs, as from a regex scan: a match that does not start a word is dropped after it
    # was found (and hides what starts inside it, as in finditer).
    found = pattern.finditer(text) if chars is None else _tried_at(pattern, text, chars, False)
    for match in found:
        if not word_start or _starts_word(text, match.start()):
            yield match


@per_pattern
def _sign_plan(pattern: re.Pattern[str]) -> tuple[_Search, ...] | None:
    chars = signs(pattern)
    return None if chars is None else tuple(_Search(c, None, ((c, "", ""),)) for c in chars)


def _tried_at(
    pattern: re.Pattern[str], text: str, plan: tuple[_Search, ...], word_start: bool
) -> Iterator[re.Match[str]]:
    """pattern.match at each occurrence of a lead of the plan (at a word start, with
    `word_start`, skipping leads whose word the declared text lacks), in order, skipping those
    inside an earlier match."""
    known: _Known | None = getattr(_KNOWN, "entry", None)
    slot = -1 if known is None else known.slot(text)
    gate = word_start and known is not None and slot >= 0 and known.words is not None
    pieces, heads = known.pieces() if gate and known is not None else (frozenset(), frozenset())
    found: set[int] = set()
    for search in plan:
        members = search.members
        if gate and not any(_may_occur(m, pieces, heads) for m in members):
            continue
        if search.group is None:
            found.update(_occurrences(text, search.needle, word_start, known, slot))
        elif _count(text, search.needle, known, slot) <= _CHECKS_PER_LEAD * len(members):
            at = _occurrences(text, search.needle, word_start, known, slot)
            found.update(pos for pos in at if text.startswith(search.group, pos))
        else:  # an opening this common costs more to check than to search each lead
            for member in members:
                if not gate or _may_occur(member, pieces, heads):
                    found.update(_occurrences(text, member[0], word_start, known, slot))
    last_end = 0
    for pos in sorted(found):
        if pos < last_end:
            continue
        found_here = pattern.match(text, pos)
        if found_here is not None:
            last_end = max(found_here.end(), pos + 1)
            yield found_here


# Finding and checking an occurrence of a shared opening in Python (~0.4 us) against searching
# the whole draft for a lead in C (~0.5-3 us on 2,000 words): past this many occurrences per
# lead, each lead is searched ("at " occurs ~60 times in 2,000 words, "we " in most drafts less).
_CHECKS_PER_LEAD = 4


def _count(text: str, needle: str, known: _Known | None, slot: int) -> int:
    """text.count(needle), remembered for the draft like _occurrences."""
    if known is None or slot < 0:
        return text.count(needle)
    key = (slot, needle)
    counted = known.counts.get(key)
    if counted is None:
        counted = known.counts[key] = text.count(needle)
    return counted


def _occurrences(
    text: str, needle: str, word_start: bool, known: _Known | None, slot: int
) -> tuple[int, ...]:
    """Where `needle` occurs in `text` (only at word starts, with `word_start`); remembered for
    the draft when `text` is one of its declared texts (slot >= 0)."""
    if known is not None and slot >= 0:
        cached = known.found.get((slot, needle, word_start))
        if cached is not None:
            return cached
    out: list[int] = []
    pos = text.find(needle)
    while pos != -1:
        if not word_start or _starts_word(text, pos):
            out.append(pos)
        pos = text.find(needle, pos + 1)
    result = tuple(out)
    if known is not None and slot >= 0:
        known.found[(slot, needle, word_start)] = result
    return result


def _starts_word(text: str, pos: int) -> bool:
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_")
