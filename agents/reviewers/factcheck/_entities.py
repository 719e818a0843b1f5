"""Recognising what a sentence is about and which values it states, for claims and snippets alike.

A *mention* is a product a model is likely to get wrong after its training cutoff: GPUs and CPUs
("GeForce RTX 5090", "Ryzen 9 9950X"), models ("Llama 3.1", "Claude Opus 4"), software versions
("PostgreSQL 18"). Each gets a normalised `key`, so "GeForce RTX 5090" and "RTX5090" are one
subject and "RTX 5090 Ti" is another. A *quantity* is a value with a dimension (memory in GB,
power in W, release date, ...). `associate` gives each quantity to the nearest mention of a kind
that can have it, so "32GB, up from 24GB on the RTX 4090" gives the 24GB to the 4090.

The same code reads the draft's claims and the search snippets: a claim and its evidence are
compared in the same terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

HARDWARE, MODEL, SOFTWARE, NAMED = "hardware", "model", "software", "named"

# Which dimensions a kind of subject can have: a software version does not have gigabytes.
_DIMENSIONS = {
    HARDWARE: frozenset(
        {
            "memory",
            "bandwidth",
            "frequency",
            "power",
            "cores",
            "cuda_cores",
            "threads",
            "price",
            "date",
        }
    ),
    MODEL: frozenset({"params", "context", "date", "price"}),
    SOFTWARE: frozenset({"date"}),
    NAMED: frozenset({"date"}),
}


@dataclass(frozen=True, slots=True)
class Mention:
    key: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Quantity:
    dimension: str
    value: float  # in the dimension's unit (GB, GB/s, GHz, W, count, USD, billions; date: YYYYMM)
    start: int
    end: int
    text: str

    def agrees(self, other: Quantity) -> bool:
        if self.dimension != other.dimension:
            return False
        if self.dimension == "date":
            year_a, month_a = divmod(int(self.value), 100)
            year_b, month_b = divmod(int(other.value), 100)
            return year_a == year_b and (month_a == 0 or month_b == 0 or month_a == month_b)
        big = max(abs(self.value), abs(other.value))
        return big == 0 or abs(self.value - other.value) <= 0.02 * big


def _key(*parts: str | None) -> str:
    return " ".join(p.lower() for p in parts if p)


_SOFTWARE_ALIASES: dict[str, str] = {"postgres": "postgresql", "nodejs": "node.js"}
# Billions of parameters per unit letter.
_SCALE: dict[str, float] = {"b": 1.0, "m": 0.001, "t": 1000.0}

_MentionRule = tuple[re.Pattern[str], str, Callable[[re.Match[str]], str]]
_I = re.IGNORECASE

_MENTION_RULES: tuple[_MentionRule, ...] = (
    # Patterns start at the distinctive token ("RTX 5090", not "NVIDIA GeForce RTX 5090"): an
    # optional vendor prefix would make the engine try it at every word of the draft.
    # NVIDIA consumer GPUs: RTX 5090, RTX 4070 Ti Super, GTX 1080
    (
        re.compile(r"\b(rtx|gtx)\s?-?(\d{3,4})(\s?ti)?(\s?super)?\b", _I),
        HARDWARE,
        lambda m: _key(m[1], m[2], "ti" if m[3] else None, "super" if m[4] else None),
    ),
    # Data-centre accelerators: H100, H200, B200, GB200, A100, L40S, MI300X
    (
        re.compile(r"\b(GB|GH|[ABHL])(\d{2,3})([A-Z]?)\b"),
        HARDWARE,
        lambda m: _key(m[1] + m[2] + m[3]),
    ),
    (
        re.compile(r"\bMI(\d{3}[A-Z]?)\b", _I),
        HARDWARE,
        lambda m: _key("mi" + m[1]),
    ),
    # AMD: Radeon RX 9070 XT, Ryzen 9 9950X3D, Threadripper PRO 7995WX, EPYC 9654
    (
        re.compile(r"\brx\s?(\d{3,4})(\s?xtx|\s?xt|\s?gre)?\b", _I),
        HARDWARE,
        lambda m: _key("rx", m[1], (m[2] or "").strip() or None),
    ),
    (
        re.compile(r"\bryzen\s+(?:ai\s+)?(?:[3579]\s+)?(?:pro\s+)?(\d{3,4}[a-z0-9]{0,4})\b", _I),
        HARDWARE,
        lambda m: _key("ryzen", m[1]),
    ),
    (
        re.compile(r"\bthreadripper\s+(?:pro\s+)?(\d{4}[a-z0-9]{0,3})\b", _I),
        HARDWARE,
        lambda m: _key("threadripper", m[1]),
    ),
    (re.compile(r"\bepyc\s+(\d{4}[a-z0-9]{0,3})\b", _I), HARDWARE, lambda m: _key("epyc", m[1])),
    # Intel: Core i9-14900K, Core Ultra 9 285K, Arc B580
    (
        re.compile(r"\bcore\s+(ultra\s+)?(?:i?[3579]\s?-?\s?)?(\d{3,5}[a-z]{0,2})\b", _I),
        HARDWARE,
        lambda m: _key("core", "ultra" if m[1] else None, m[2]),
    ),
    (re.compile(r"\barc\s+([ab]\d{3})\b", _I), HARDWARE, lambda m: _key("arc", m[1])),
    # Apple silicon: "Apple M4", "M4 Max", "M3 Ultra chip"
    (
        re.compile(
            r"\b(?:apple\s+(m[1-9])(?:\s+(pro|max|ultra))?|(m[1-9])\s+(pro|max|ultra))\b", _I
        ),
        HARDWARE,
        lambda m: _key(m[1] or m[3], m[2] or m[4]),
    ),
    (
        re.compile(r"\bsnapdragon\s+(x\s+(?:elite|plus)|8\s+(?:gen\s+\d|elite)|\d{3})\b", _I),
        HARDWARE,
        lambda m: _key("snapdragon", " ".join(m[1].split())),
    ),
    (re.compile(r"\btpu\s?v(\d+[a-z]{0,2})\b", _I), HARDWARE, lambda m: _key("tpu v" + m[1])),
    # Models
    (
        re.compile(r"\bgpt-?(\d(?:\.\d)?[a-z]?)(?:[- ](mini|turbo|nano|pro))?\b", _I),
        MODEL,
        lambda m: _key("gpt-" + m[1], m[2]),
    ),
    (
        re.compile(
            r"\b(llama|gemma|qwen|phi|grok|falcon|olmo)\s?-?(\d(?:\.\d)?)(?=\b|[a-z:-])", _I
        ),
        MODEL,
        lambda m: _key(m[1], m[2]),
    ),
    (
        re.compile(
            r"\bclaude\s+(?:(\d(?:\.\d)?)\s+)?(opus|sonnet|haiku)(?:\s+(\d(?:\.\d)?))?\b", _I
        ),
        MODEL,
        lambda m: _key("claude", m[2], m[1] or m[3]),
    ),
    (
        re.compile(r"\bgemini\s+(\d(?:\.\d)?)(?:\s+(pro|flash|ultra|nano))?\b", _I),
        MODEL,
        lambda m: _key("gemini", m[1], m[2]),
    ),
    (
        re.compile(r"\bmistral\s+(large|medium|small|nemo)(?:\s+(\d))?\b", _I),
        MODEL,
        lambda m: _key("mistral", m[1], m[2]),
    ),
    (
        re.compile(r"\bdeepseek[- ]?(v\d(?:\.\d)?|r\d)\b", _I),
        MODEL,
        lambda m: _key("deepseek", m[1]),
    ),
    # Software versions
    (
        re.compile(
            r"\b(python|postgresql|postgres|mysql|mariadb|java|jdk|node\.?js|kafka|kubernetes|"
            r"ubuntu|debian|fedora|linux|windows|macos|ios|android|chrome|firefox|rust|typescript|"
            r"react|angular|django|rails|php|swift|kotlin|redis|mongodb|elasticsearch|docker|"
            r"terraform|gcc|llvm|pytorch|tensorflow|cuda)\s+v?(\d{1,4}(?:\.\d{1,4}){0,2})\b",
            _I,
        ),
        SOFTWARE,
        lambda m: _key(_SOFTWARE_ALIASES.get(m[1].lower(), m[1]), m[2]),
    ),
)


def _triggers(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The lowercase words a rule's every match starts with (`\\bryzen...` -> ryzen;
    `\\b(llama|gemma|...)` -> each), or None when the pattern does not start with words."""
    head = re.match(r"\\b(?:\(((?:[a-z]+(?:\\\.\?[a-z]+)?\|?)+)\)|([a-z]+))", pattern.pattern)
    if head is None:
        return None
    words = (head[1] or head[2]).split("|")
    return tuple(re.match(r"[a-z]+", w)[0] for w in words)  # type: ignore[index]


# A rule only runs when its leading word occurs in the text (a substring test in C): most drafts
# name no GPU at all, and a regex pass per rule is what extraction costs.
_RULE_TRIGGERS = tuple(_triggers(pattern) for pattern, _kind, _key_of in _MENTION_RULES)


def find_mentions(text: str) -> list[Mention]:
    """Product mentions in `text`, in order, overlaps resolved in favour of the earlier, longer."""
    lower = text.lower()
    found: list[Mention] = []
    for (pattern, kind, key), triggers in zip(_MENTION_RULES, _RULE_TRIGGERS, strict=True):
        if triggers is not None and not any(t in lower for t in triggers):
            continue
        for match in pattern.finditer(text):
            found.append(Mention(key(match), kind, match.start(), match.end()))
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    result: list[Mention] = []
    for mention in found:
        if result and mention.start < result[-1].end:
            continue
        result.append(mention)
    return result


# --- quantities --------------------------------------------------------------------------------
_NUM = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for m in names
}
_MEMORY_UNITS = {"tb": 1000.0, "tib": 1000.0, "gb": 1.0, "gib": 1.0, "mb": 0.001, "mib": 0.001}
_QUANTITY_RULES: tuple[
    tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[str, float]]], ...
] = (
    (
        re.compile(_NUM + r"\s?(tb|gb)\s?/\s?s\b", _I),
        lambda m: ("bandwidth", _num(m[1]) * (1000.0 if m[2].lower() == "tb" else 1.0)),
    ),
    (
        re.compile(_NUM + r"\s?(tib|gib|mib|tb|gb|mb)\b(?!\s?/)", _I),
        lambda m: ("memory", _num(m[1]) * _MEMORY_UNITS[m[2].lower()]),
    ),
    (
        re.compile(_NUM + r"\s?(ghz|mhz)\b", _I),
        lambda m: ("frequency", _num(m[1]) / (1000.0 if m[2].lower() == "mhz" else 1.0)),
    ),
    (
        re.compile(_NUM + r"\s?(kw|w|watts?)\b", _I),
        lambda m: ("power", _num(m[1]) * (1000.0 if m[2].lower() == "kw" else 1.0)),
    ),
    (
        re.compile(_NUM + r"[\s-]?(cuda\s+cores?|cores?|threads?)\b", _I),
        lambda m: (
            "cuda_cores"
            if m[2].lower().startswith("cuda")
            else "threads"
            if m[2].lower().startswith("thread")
            else "cores",
            _num(m[1]),
        ),
    ),
    (
        re.compile(_NUM + r"\s?(billion|b|million|m|trillion|t)\s+(?:parameters?|params?)\b", _I),
        lambda m: ("params", _num(m[1]) * _SCALE[m[2].lower()[0]]),
    ),
    (
        re.compile(_NUM + r"\s?k[\s-]?(?:tokens?|context)\b", _I),
        lambda m: ("context", _num(m[1])),
    ),
    (
        re.compile(
            r"\$\s?" + _NUM + r"(?![\d,.]?\d)(?!\s?(?:billion|million|trillion|bn|[bmkt])\b)", _I
        ),
        lambda m: ("price", _num(m[1])),
    ),
)
# A model's size written after its name: "Llama 3.1 405B", "gemma3:27b", "Qwen3-30B".
_SIZE_AFTER = re.compile(r"(?:[\s:-]|-?[a-z]{1,8}[\s:-])?" + r"(\d+(?:\.\d+)?)\s?([bm])\b", _I)
_VALUE_START = re.compile(r"\$|(?<![\d.,])\d")
# Dates are found from their year (few, and fast to scan for), then read backwards: "March 2025",
# "January 30, 2025", "in 2025".
_YEAR = re.compile(r"(?=[12])\b((?:19|20)\d{2})\b")
_BEFORE_YEAR = re.compile(
    r"(?:\b(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?\s+"
    r"(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?|\b(?:in|on|since|during|of)\s+)$",
    _I,
)
EVENT_WORDS = re.compile(
    r"\b(?:released?|releases|launch(?:ed|es)?|announced?|unveil(?:ed|s)?|introduced?|"
    r"shipp(?:ed|ing)|debut(?:ed|s)?|went on sale|available|came out|rolled out|arrived)\b",
    _I,
)


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def find_quantities(
    text: str, mentions: list[Mention] | None = None, *, dates: bool | None = None
) -> list[Quantity]:
    """Values stated in `text`, in order, without overlaps (an earlier rule wins a tie).

    Dates count only where an event is described (a release, a launch), so a snippet's
    publication date is not taken for a release date: `dates=None` keeps them when `text` has an
    event word; callers that split sentences themselves pass True and filter.
    """
    candidates: list[tuple[int, int, int, str, float]] = []  # start, rule, end, dimension, value
    # Every value starts at a number (or a "$"): find those once, then try each rule right there,
    # instead of scanning the whole text once per rule.
    for start in (m.start() for m in _VALUE_START.finditer(text)):
        for rule, (pattern, read) in enumerate(_QUANTITY_RULES):
            match = pattern.match(text, start)
            if match:
                dimension, value = read(match)
                candidates.append((match.start(), rule, match.end(), dimension, value))
    rule = len(_QUANTITY_RULES)
    for mention in mentions if mentions is not None else find_mentions(text):
        if mention.kind == MODEL:
            size = _SIZE_AFTER.match(text, mention.end)
            if size:
                value = float(size[1]) * _SCALE[size[2].lower()]
                candidates.append((size.start(1), rule, size.end(), "params", value))
    if dates or (dates is None and EVENT_WORDS.search(text)):
        for year in _YEAR.finditer(text):
            window_start = max(0, year.start() - 40)
            before = _BEFORE_YEAR.search(text, window_start, year.start())
            if before is None:
                continue
            if before[1]:
                month = float(int(year[1]) * 100 + _MONTHS[before[1].lower()])
                start = before.start()
            else:
                month, start = float(int(year[1]) * 100), year.start()
            candidates.append((start, rule + 1, year.end(), "date", month))
    candidates.sort()
    found: list[Quantity] = []
    for start, _rule, end, dimension, value in candidates:
        if found and start < found[-1].end:
            continue
        found.append(Quantity(dimension, value, start, end, text[start:end]))
    return found


def associate(mentions: list[Mention], quantities: list[Quantity]) -> dict[str, list[Quantity]]:
    """Each quantity goes to the nearest mention whose kind can have its dimension (ties: the
    one before it, as in "the RTX 5090 has 32GB")."""
    owned: dict[str, list[Quantity]] = {}
    for quantity in quantities:
        best: tuple[int, int, Mention] | None = None
        for mention in mentions:
            if quantity.dimension not in _DIMENSIONS[mention.kind]:
                continue
            if mention.end <= quantity.start:
                distance, after = quantity.start - mention.end, 0
            elif quantity.end <= mention.start:
                distance, after = mention.start - quantity.end, 1
            else:
                distance, after = 0, 0
            if best is None or (distance, after) < best[:2]:
                best = (distance, after, mention)
        if best is not None:
            owned.setdefault(best[2].key, []).append(quantity)
    return owned


# --- sentences ---------------------------------------------------------------------------------
_SENTENCE = re.compile(r"[^\n.!?]*(?:[.!?](?=\d)[^\n.!?]*)*(?:[.!?]+|\n|$)")


def sentences(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each sentence: ends at . ! ? or a line break; a dot between digits
    ("3.14") does not end one."""
    for match in _SENTENCE.finditer(text):
        start, end = match.start(), match.end()
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            yield start, end
