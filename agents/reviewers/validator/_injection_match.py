"""How a phrase of the injection rule is written and found (the engine behind
`_injection_phrases`; its tables are data for it).

A `Phrase` has a `kind` (what the instruction tries), a pattern written for the
`_injection_text.normalize` view (lowercase, accents stripped, look-alikes folded) and `gates`:
words one of which must be among the text's words for the pattern to run at all, which keeps a
clean draft's scan to a few set lookups. A `Phrasebook` indexes phrases by gate word and finds
them in windows around their gate words, from their literal openings (`_leads`). Patterns have
bounded repetitions only (drafts are untrusted and may be megabytes of adversarial text).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from agents.reviewers.validator._lead_openings import leads


@dataclass(frozen=True)
class Phrase:
    kind: str
    language: str
    pattern: re.Pattern[str]
    gates: frozenset[str]  # words: one must be among the text's words
    also: tuple[frozenset[str], ...] = ()  # further word groups, each must meet the text's words
    subs: tuple[str, ...] = ()  # substrings instead of words (scripts without spaces)
    # An imperative: only at the start of a sentence, a line, a comment or a parenthesis.
    imperative: bool = False

    def may_match(self, text: str, words: frozenset[str]) -> bool:
        if self.subs:
            return any(sub in text for sub in self.subs)
        return not words.isdisjoint(self.gates) and all(
            not words.isdisjoint(group) for group in self.also
        )


def phrase(
    kind: str,
    language: str,
    gates: str,
    pattern: str,
    *also: str,
    subs: str = "",
    imperative: bool = False,
) -> Phrase:
    return Phrase(
        kind,
        language,
        re.compile(pattern),
        frozenset(gates.split()),
        tuple(frozenset(group.split()) for group in also),
        tuple(subs.split("|")) if subs else (),
        imperative,
    )


_LEAD = re.compile(r"(?:(?:please|kindly|now|just|simply|so|and|then),?\s+){0,2}$")
_SENTENCE_END = ".!?:;>\n(*-\"'\u201c["


def _starts_sentence(text: str, start: int) -> bool:
    before = text[max(0, start - 40) : start]
    lead = _LEAD.search(before)
    head = before[: lead.start()] if lead else before
    head = head.rstrip(" \t")
    return not head or head[-1] in _SENTENCE_END or head.endswith("<!--")


# ASCII punctuation except what belongs to words (apostrophe, hyphen, underscore), as in
# agents.reviewers.validator._text.word_set, whose words are these for an ASCII text.
_PUNCTUATION = '!"#$%&()*+,./:;<=>?@[\\]^`{|}~'
_PUNCT_TO_SPACE = str.maketrans(dict.fromkeys(_PUNCTUATION, " "))
_PUNCT_BYTES = bytes.maketrans(_PUNCTUATION.encode(), b" " * len(_PUNCTUATION))


def words_of(text: str) -> frozenset[str]:
    """The distinct ASCII words of a normalised view: the gates' vocabulary (every gate word is
    ASCII once accents are stripped; other scripts gate on substrings). A non-ASCII character
    separates words; bytes.translate does that in one C pass (a regex split costs 4x)."""
    if text.isascii():
        return frozenset(text.translate(_PUNCT_TO_SPACE).split())
    ascii_only = text.encode("ascii", "replace").translate(_PUNCT_BYTES)
    return frozenset(ascii_only.decode("ascii").split())


_MAX_LEADS = 32
# A phrase is matched in windows around its gate words only: most patterns open with
# alternations `re` cannot skip through quickly, and a draft is mostly other words.
_BEFORE, _AFTER = 200, 320


@functools.cache
def _word_re(anchor: str) -> re.Pattern[str]:
    """The anchor not followed by a letter or digit: `re` finds its literal opening at C speed
    (a str.find loop stops at every "ai" inside "again" and "main" in Python)."""
    return re.compile(re.escape(anchor) + r"(?![^\W_])")


def _spots(text: str, anchor: str, whole_word: bool, cache: dict[str, list[int]]) -> list[int]:
    """Where an anchor occurs (as a whole word unless `whole_word` is False), at most 2000,
    computed once per text for all the phrases that share it."""
    key = anchor if whole_word else "\0" + anchor
    found = cache.get(key)
    if found is None:
        found = []
        if whole_word:
            for match in _word_re(anchor).finditer(text):
                pos = match.start()
                if pos == 0 or not text[pos - 1].isalnum():
                    found.append(pos)
                    if len(found) >= 2000:
                        break
        else:
            pos = text.find(anchor)
            while pos != -1 and len(found) < 2000:
                found.append(pos)
                pos = text.find(anchor, pos + len(anchor))
        cache[key] = found
    return found


def _matches(
    phrase: Phrase,
    text: str,
    words: frozenset[str],
    cache: dict[str, list[int]] | None = None,
) -> Iterator[re.Match[str]]:
    cache = {} if cache is None else cache
    anchors = phrase.subs or tuple(phrase.gates & words)
    spots: list[int] = []
    for anchor in anchors:
        # a whole word (substring anchors of other scripts need no boundary)
        spots.extend(_spots(text, anchor, not phrase.subs, cache))
    if len(spots) > 200:  # a word on every line: one pass is cheaper than many windows
        yield from phrase.pattern.finditer(text)
        return
    spots.sort()
    windows: list[list[int]] = []
    for pos in spots:
        lo, hi = max(0, pos - _BEFORE), min(len(text), pos + _AFTER)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    seen: set[tuple[int, int]] = set()
    starts = leads(phrase.pattern)
    if starts is not None and len(starts) > _MAX_LEADS:
        starts = None  # many openings: searching each in every window costs more than the scan
    for lo, hi in windows:
        found = (
            phrase.pattern.finditer(text, lo, hi)
            if starts is None
            else _lead_matches(phrase.pattern, starts, text, lo, hi)
        )
        for match in found:
            if match.span() not in seen:
                seen.add(match.span())
                yield match


def _lead_matches(
    pattern: re.Pattern[str], starts: tuple[str, ...], text: str, lo: int, hi: int
) -> Iterator[re.Match[str]]:
    """The pattern's matches in text[lo:hi] that start a word, tried only where one of its
    literal openings (`_lead_openings`) occur: a window scanned by `finditer` costs a regex attempt
    at each of its ~500 characters, most patterns open with an alternation `re` cannot skip
    through. Matches inside a word are dropped by `phrases_in` anyway."""
    positions: list[int] = []
    for lead in starts:
        pos = text.find(lead, lo, hi)
        while pos != -1:
            if pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_"):
                positions.append(pos)
            pos = text.find(lead, pos + 1, hi)
    last_end = lo
    for pos in sorted(positions):
        if pos < last_end:
            continue
        match = pattern.match(text, pos, hi)
        if match is not None:
            last_end = max(match.end(), pos + 1)
            yield match


class Phrasebook:
    """Phrases indexed by gate word: which ones a text's words open is one set intersection."""

    def __init__(self, phrases: Sequence[Phrase]) -> None:
        self.phrases = tuple(phrases)
        # Which phrases each gate word opens (a draft's words meet this index once, in C).
        self._by_gate: dict[str, list[int]] = {}
        for index, phrase in enumerate(self.phrases):
            for gate in phrase.gates:
                self._by_gate.setdefault(gate, []).append(index)
        self.gate_words = frozenset(self._by_gate)
        self._by_substring = tuple(i for i, phrase in enumerate(self.phrases) if phrase.subs)

    def find(self, text: str, words: frozenset[str] | None = None) -> list[tuple[int, int, Phrase]]:
        """Every phrase match in a normalised view, (start, end, phrase), ordered, overlaps kept
        (the caller merges them). A match must start a word (patterns start with literals, so
        `re` can jump between candidates; a leading lookbehind would make it try every
        position)."""
        words = words_of(text) if words is None else words
        candidates = {i for word in words & self.gate_words for i in self._by_gate[word]}
        if not text.isascii() or "<<<" in text:
            candidates.update(self._by_substring)
        found: list[tuple[int, int, Phrase]] = []
        cache: dict[str, list[int]] = {}
        for index in sorted(candidates):
            phrase = self.phrases[index]
            if not phrase.may_match(text, words):
                continue
            for match in _matches(phrase, text, words, cache):
                start = match.start()
                while start < match.end() and text[start] in " \n\t([>.!?:;-<":
                    start += 1  # the context the pattern needed before it is not the phrase
                if start and text[start - 1].isalnum() and not phrase.subs:
                    continue
                if phrase.imperative and not _starts_sentence(text, start):
                    continue
                if match.end() > start:
                    found.append((start, match.end(), phrase))
        found.sort(key=lambda item: (item[0], -item[1]))
        return found
