"""_leads: alternations found from their literal openings must find exactly what `re` finds.

The rules' speed on drafts where they fire rests on it (bench/bench_validator.py), and a wrong
lead would silently drop findings, so the equivalence is checked on every pattern the rules use
that has leads, over the corpus and over adversarial texts; the bad inputs run under a timeout.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from agents.reviewers.validator import _lead_openings, _leads
from agents.reviewers.validator._text import at_word_start, lower_same_length

CORPUS = Path(__file__).resolve().parents[3] / "eval"
MIB = 1024 * 1024


def _rule_patterns() -> list[re.Pattern[str]]:
    """Every compiled pattern held at module level by the validator's rule modules."""
    import importlib

    found: dict[str, re.Pattern[str]] = {}
    for name in ("_experience", "_company", "_statistics", "_people", "_style", "_leaks"):
        module = importlib.import_module(f"agents.reviewers.validator.{name}")
        for value in vars(module).values():
            items = value if isinstance(value, tuple) else (value,)
            for item in items:
                for part in item if isinstance(item, tuple) else (item,):
                    pattern = getattr(part, "anchor", part)
                    if isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str):
                        found[pattern.pattern] = pattern
    return list(found.values())


PATTERNS = _rule_patterns()
LED = [p for p in PATTERNS if _lead_openings.leads(p) is not None]
# Patterns with literal openings, those left to `re` for their many capitals included: in a
# declared text, those are found from the few openings the draft's words leave.
OPENED = [
    p for p in PATTERNS if _lead_openings._openings(p, _lead_openings._MAX_NAMED_LEADS) is not None
]
# Patterns found from the few signs they open with (quotation marks): no leads, but signs.
SIGNED = [
    p for p in PATTERNS if _lead_openings.leads(p) is None and _lead_openings.signs(p) is not None
]


def _spans(matches: object) -> list[tuple[int, int]]:
    return [m.span() for m in matches]  # type: ignore[attr-defined]


def _texts() -> list[str]:
    texts = [p.read_text("utf-8") for p in sorted((CORPUS / "dev").glob("*.md"))]
    rng = random.Random(5)
    words = [
        "i",
        "we",
        "tested",
        "tried",
        "when",
        "after",
        "our",
        "team",
        "a",
        "the",
        "of",
        "mine",
        "told",
        "me",
        "last",
        "week",
    ]
    texts.append(" ".join(rng.choice(words) for _ in range(5000)))
    return [lower_same_length(t) for t in texts] + texts[:20]


def test_many_rule_patterns_have_leads() -> None:
    assert len(LED) >= 20  # the speed-up applies to the rules' slow alternations
    assert len(SIGNED) >= 2  # the dialogue and quotation patterns at least


@pytest.mark.timeout(120)
def test_patterns_opening_with_signs_match_as_finditer() -> None:
    """From their signs, found exactly as `re` finds them; with word_start, a match that does not
    start a word is dropped after it was found, as on the regex path."""
    quotes = '"a," he said. \u201cb,\u201d she said \'c\' \u2018d\u2019 x"y" """\n'
    for text in [*_texts(), quotes * 200, quotes.upper() * 50]:
        for pattern in SIGNED:
            assert _spans(_leads.finditer(pattern, text)) == _spans(pattern.finditer(text))
            expected = [m.span() for m in pattern.finditer(text) if at_word_start(text, m.start())]
            assert _spans(_leads.finditer(pattern, text, word_start=True)) == expected


@pytest.mark.parametrize(
    ("pattern", "signs"),
    [
        (r"[\"\u201c][^\"]{2,9}[\"\u201d]", ('"', "\u201c")),
        (r"\"x|\u2018y", ('"', "\u2018")),
        (r"[\"',] said", None),  # a comma is too common to try the pattern at each
        (r"[ab]x", None),  # letters: leads or `re`
        (r"\"?x", None),  # may open with anything
        (r"[^\"]x", None),
    ],
)
def test_signs_of_a_pattern(pattern: str, signs: tuple[str, ...] | None) -> None:
    assert _lead_openings.signs(re.compile(pattern)) == signs


@pytest.mark.timeout(120)
def test_same_matches_as_finditer_on_the_corpus() -> None:
    for text in _texts():
        for pattern in LED:
            assert _spans(_leads.finditer(pattern, text)) == _spans(pattern.finditer(text))
            expected = [m.span() for m in pattern.finditer(text) if at_word_start(text, m.start())]
            assert _spans(_leads.finditer(pattern, text, word_start=True)) == expected


@pytest.mark.parametrize(
    ("pattern", "leads"),
    [
        (r"(?:tested|tried)(?![a-z])", ("teste", "tried")),
        (r"(?<![a-z])(?:when|after) i", ("afte", "when")),
        (r"(?:[Aa]n?|[Tt]he) report", ("A re", "An r", "The ", "a re", "an r", "the ")),
        (r"last (?:week|month)", None),  # one literal opening: `re` already searches for it
        (r"[A-Z][a-z]+ said", None),  # a class at the start: no literal opening
        (r"(?:Sarah|John) Smith", ("John", "Sara")),  # `re` tries a class at every character
        (r"(?:19|20)\d\d study", ("19", "20")),
        (r", (?:one|two) of", None),  # one sign first: `re` searches for it by itself
        ("(?:" + "|".join(f"N{i}x" for i in range(9)) + ") y", None),  # many capitals: `re`
        (r"(?:a|b)x", ("ax", "bx")),
        (r"(?:a|b)\w", None),  # openings too short to search for
        (r"(?i)(?:tested|tried)", None),  # flags change what a literal matches
        (r"\b(?:tested|tried)", None),  # a boundary first: not literal
    ],
)
def test_leads_of_a_pattern(pattern: str, leads: tuple[str, ...] | None) -> None:
    assert _lead_openings.leads(re.compile(pattern)) == leads


def _gated_texts() -> list[str]:
    """Texts whose word starts hide inside word_set's words: after a hyphen, an apostrophe, an
    underscore, a control character, code masked by the prose view, or in capitals."""
    rng = random.Random(9)
    parts = [
        "co-tested", "re'tried", "x\u2019told", "a_tested", "\x01tested", "`code`tested",
        "<!-- c -->when we tried", "TESTED", "When I Tested", "our-team", "we've tested",
        "said,", "told him: \"", "my-colleague", "tests", "testing", "the", " ", "\n", ".",
    ]  # fmt: skip
    texts = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 400))) for _ in range(60)]
    return texts + [p.read_text("utf-8") for p in sorted((CORPUS / "dev").glob("*.md"))[:40]]


@pytest.mark.timeout(120)
def test_known_words_skip_only_openings_the_text_cannot_have() -> None:
    """With the draft's words declared (as the validator's Context does), word-start searches
    skip the openings of absent words: the matches stay exactly those without the declaration,
    on the raw text, its lowercase and its prose view."""
    from agents.markdown import mask_code_and_comments
    from agents.reviewers.validator._text import word_set

    for raw in _gated_texts():
        prose = mask_code_and_comments(raw)
        low, content_low = lower_same_length(prose), lower_same_length(raw)
        texts = (raw, prose, low, content_low)
        expected = {
            (i, p.pattern): _spans(_leads.finditer(p, t, word_start=True))
            for i, t in enumerate(texts)
            for p in OPENED
        }
        _leads.known_words(texts, word_set(content_low))
        try:
            for i, text in enumerate(texts):
                for p in OPENED:
                    found = _spans(_leads.finditer(p, text, word_start=True))
                    assert found == expected[i, p.pattern], (p.pattern, text[:200])
        finally:
            _leads.known_words((), frozenset())


def test_many_capitals_are_searched_only_when_the_words_leave_few() -> None:
    """A pattern opening with many names is left to `re` unless the draft's words are declared
    and hold few of them; either way it finds what `re` finds."""
    names = "Sarah John Jane Emily Emma Michael David Jessica Jennifer Mark Lisa".split()  # noqa: SIM905
    pattern = re.compile("(?:" + "|".join(names) + ") [A-Z][a-z]+")
    assert _lead_openings.leads(pattern) is None
    text = "then Sarah Smith met John Doe; Johnny Cash and Sarahs. " * 20
    expected = [m.span() for m in pattern.finditer(text) if at_word_start(text, m.start())]
    _leads.known_words((text,), frozenset(lower_same_length(text).replace(";", " ").split()))
    try:
        plan = _leads._capitals_plan(pattern, text)
        assert plan is not None
        assert _spans(_leads.finditer(pattern, text, word_start=True)) == expected
        everyone = " ".join(f"{n} Smith" for n in names)
        _leads.known_words((everyone,), frozenset(lower_same_length(everyone).split()))
        assert _leads._capitals_plan(pattern, everyone) is None  # all present: `re` scans
    finally:
        _leads.known_words((), frozenset())


def test_known_words_do_skip_absent_openings() -> None:
    """The declaration is used: an opening of a word the draft lacks is not searched."""
    pattern = re.compile(r"(?:tested|tried|reviewed) it")
    text = "we tried it and liked it " * 400
    _leads.known_words((text,), frozenset(text.split()))
    try:
        assert _leads._present_leads(pattern, text) == ("trie",)
        assert _leads._present_leads(pattern, text + " ") == _lead_openings.leads(
            pattern
        )  # not declared
    finally:
        _leads.known_words((), frozenset())


def test_leads_that_open_with_one_word_are_found_from_one_search() -> None:
    """Leads sharing their first word and the sign after it are searched once, as that opening;
    a lead alone keeps its own search."""
    pattern = re.compile(r"(?:our |we also|we had|we've|we\u2019s)x")
    plan = _leads._plan(pattern)
    assert plan is not None
    assert [(s.needle, s.group) for s in plan] == [
        ("our ", None),
        ("we ", ("we a", "we h")),
        ("we'v", None),
        ("we\u2019s", None),
    ]


def test_declared_texts_are_searched_once_per_opening() -> None:
    """Two patterns that open with "we " share one search of a declared text, and find what
    `re` finds; on an undeclared text nothing is remembered."""
    first = re.compile(r"we(?:'ve| have| also| had) (?:built|shipped)")
    second = re.compile(r"we(?: hold| also hold|'ve got) (?:an? )?iso")
    text = "so we have built it, and we also hold an iso badge; we've got a shipped. " * 2
    _leads.known_words((text,), None)
    try:
        for pattern in (first, second):
            found = _spans(_leads.finditer(pattern, text, word_start=True))
            assert found == _spans(pattern.finditer(text))
        entry = _leads._KNOWN.entry
        # "we have", "we also", "we had", "we hold" from one search; "we've" has its own
        assert [key for key in entry.found if key[1].startswith("we ")] == [(0, "we ", True)]
        remembered = len(entry.found)
        list(_leads.finditer(first, text + " ", word_start=True))
        assert len(entry.found) == remembered
    finally:
        _leads.known_words((), frozenset())


@pytest.mark.timeout(60)
def test_pattern_work_is_remembered_by_identity() -> None:
    """per_pattern works a pattern out once, whatever its length, and an equal pattern compiled
    apart (a different object) gets the same answer, worked out for it."""
    calls: list[re.Pattern[str]] = []

    @_lead_openings.per_pattern
    def size(pattern: re.Pattern[str]) -> int:
        calls.append(pattern)
        return len(pattern.pattern)

    one = re.compile("(?:" + "|".join(f"name{i}" for i in range(300)) + ") x")
    twin = re.compile(one.pattern + "(?:)")  # equal meaning, another object
    assert size(one) == size(one) == len(one.pattern)
    assert size(twin) == len(twin.pattern)
    assert calls == [one, twin]


def test_a_text_declared_twice_is_its_first_slot() -> None:
    """The prose of a draft without code is the draft itself: declared twice, it is found at its
    first place, and an equal text that is another object is not declared."""
    text = "we have built it. " * 3
    _leads.known_words((text, "other", text), None)
    try:
        entry = _leads._KNOWN.entry
        assert entry.slot(text) == 0
        assert entry.slot("other") == 1
        assert entry.slot("".join(list(text))) == -1
    finally:
        _leads.known_words((), frozenset())


def test_an_opening_too_common_to_check_falls_back_to_each_lead() -> None:
    """Past _CHECKS_PER_LEAD occurrences per lead, each lead is searched: same matches."""
    pattern = re.compile(r"we(?: have| also|'ve) (?:built|shipped)")
    assert (_leads._plan(pattern) or ())[0].needle == "we "
    text = "we " * 50 + "we have built it; we also shipped it. we " * 3
    for declared in ((text,), ()):
        _leads.known_words(declared, None)
        try:
            found = _spans(_leads.finditer(pattern, text, word_start=True))
            assert found == _spans(pattern.finditer(text))
        finally:
            _leads.known_words((), frozenset())


def test_later_match_inside_an_earlier_one_is_skipped_like_finditer() -> None:
    pattern = re.compile(r"(?:ab|bc)c?")
    for text in ("abc bc", "abcbc", "xbcab", ""):
        assert _spans(_leads.finditer(pattern, text)) == _spans(pattern.finditer(text))


BAD = {
    "empty": "",
    "whitespace": " \t\n" * 100_000,
    "NUL": "tested\x00tried\x00" * 50_000,
    "lone surrogates": "tri\ud800ed \udfff tested " * 20_000,
    "binary-looking": bytes(random.Random(3).randrange(256) for _ in range(200_000)).decode(
        "latin-1"
    ),
    "2 MiB of one lead": "test" * (MIB // 2),
    "2 MiB of one char": "t" * (2 * MIB),
    "nested brackets": "[" * 100_000 + "tested" + "]" * 100_000,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_inputs(name: str) -> None:
    text = BAD[name]
    for pattern in LED + SIGNED:
        assert _spans(_leads.finditer(pattern, text)) == _spans(pattern.finditer(text))


def test_sentence_span_finds_the_sentence_around_a_hit_within_its_reach() -> None:
    from agents.reviewers.validator._text import sentence_span

    low = "first one. the hit is here, mid sentence! next one\nline two"
    start = low.index("hit")
    begin, stop = sentence_span(low, start, start + 3)
    assert low[begin:stop] == " the hit is here, mid sentence!"
    # no sentence end within reach: the window's edges, never the whole text
    long = "x" * 1000 + "hit" + "y" * 1000
    begin, stop = sentence_span(long, 1000, 1003, reach=240)
    assert (begin, stop) == (760, 1243)
    # a line break ends a sentence too; the end of the text closes the last one
    begin, stop = sentence_span(low, low.index("line"), low.index("line") + 4)
    assert low[begin:stop] == "line two"
