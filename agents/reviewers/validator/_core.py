"""The validator's engine: rule registry, the `validate` function, promotion and scoring.

Rules live in one module per family (`_experience`, `_people`, `_statistics`, `_company`,
`_placeholders`, `_leaks`, `_truncation`, `_style`, `_citations`, `_shape`, `_injection`, `_facts`,
`_unlinked`);
each registers `Rule`s here. `validate` is pure and deterministic: same
content, title, settings, facts and niche give the same findings in the same order.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from agents.facts import FactOverride
from agents.markdown import Fence, find_fences, mask_code_and_comments
from agents.reviewers.validator import _leads
from agents.reviewers.validator._text import lower_same_length, word_set
from agents.settings import Settings
from schemas.records import Finding, Severity, Span

CRITICAL_POINTS = 10
WARNING_POINTS = 3
_SPAN_TEXT_CHARS = 200
_KNOWN_WORDS_FROM = 8000  # characters


class Hit(NamedTuple):
    """One rule match: offsets into the content (or, with in_title, into the title)."""

    start: int
    end: int
    message: str
    in_title: bool = False


@dataclass(frozen=True)
class Context:
    """What every rule sees. `prose` is `content` with code and HTML comments blanked out (same
    offsets)."""

    content: str
    prose: str
    lower: str  # prose, lowercased, same offsets: most patterns run on this, case-sensitively
    title: str
    # Lowercased whole content (code included) and its distinct words: gates for the rules.
    content_lower: str
    words: frozenset[str]
    fences: tuple[Fence, ...]
    settings: Settings
    facts: tuple[FactOverride, ...]
    niche: str | None
    truncated_from: int | None = None  # original length when the content was cut for scanning

    def has_any(self, words: Iterable[str]) -> bool:
        """True when any of these (lowercase) words occurs in the content (code included, so
        the gate never hides a prose match)."""
        return not self.words.isdisjoint(words)


@dataclass(frozen=True)
class Rule:
    code: str
    severity: Severity
    family: str
    description: str
    check: Callable[[Context], Iterable[Hit]]
    # A finding the rules cannot tell apart from legitimate writing: a warning that asks for a
    # human instead of a critical that rejects (see ValidationReport.human_review_codes).
    human_review: bool = False


_RULES: dict[str, Rule] = {}


def rule(
    code: str, severity: Severity, family: str, description: str, *, human_review: bool = False
) -> Callable[[Callable[[Context], Iterable[Hit]]], Callable[[Context], Iterable[Hit]]]:
    """Register a check function as a rule."""
    if human_review and severity != Severity.WARNING:
        raise ValueError(f"validator rule {code!r}: a human-review rule is a warning")

    def register(check: Callable[[Context], Iterable[Hit]]) -> Callable[[Context], Iterable[Hit]]:
        if code in _RULES:
            raise ValueError(f"validator rule {code!r} registered twice")
        _RULES[code] = Rule(code, severity, family, description, check, human_review)
        return check

    return register


def rules() -> tuple[Rule, ...]:
    return tuple(_RULES.values())


@dataclass(frozen=True)
class ValidationReport:
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def criticals(self) -> int:
        return sum(1 for f in self.findings if f.severity == Severity.CRITICAL)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == Severity.WARNING)

    @property
    def score(self) -> float:
        """100 - 10 x criticals - 3 x warnings, floored at 0."""
        return float(
            max(0, 100 - CRITICAL_POINTS * self.criticals - WARNING_POINTS * self.warnings)
        )

    @property
    def approved(self) -> bool:
        return self.criticals == 0

    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    def human_review_codes(self) -> list[str]:
        """Codes of warnings from rules that cannot tell the case apart from good writing: the
        draft should wait for a person rather than be approved or rejected automatically."""
        wanted = {r.code for r in _RULES.values() if r.human_review}
        return sorted(
            {f.code for f in self.findings if f.code in wanted and f.severity == Severity.WARNING}
        )

    def summary(self) -> str:
        if not self.findings:
            return "no issues found"
        counts = Counter(f.code for f in self.findings)
        listed = ", ".join(f"{code} x{n}" if n > 1 else code for code, n in counts.items())
        warnings = f"{self.warnings} warning" + ("" if self.warnings == 1 else "s")
        return f"{self.criticals} critical, {warnings}: {listed}"


def _as_text(value: object) -> str:
    """Untyped callers: None is no text (not the word "None"), bytes are read as UTF-8 so the
    binary-content rule sees what a decoder would, anything else is judged by its str()."""
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return value if isinstance(value, str) else str(value)


def validate(
    content: str,
    *,
    title: str = "",
    settings: Settings | None = None,
    facts: Sequence[FactOverride] = (),
    niche: str | None = None,
    only: Collection[str] | None = None,
) -> ValidationReport:
    """Run every enabled rule over a draft (or only the enabled ones of `only`, by code: the
    fact-check asks for the known-wrong-fact rule, not a second run of all). Never raises on any
    text; returns findings sorted by position (title findings first), warnings promoted to
    critical past the reject threshold."""
    settings = settings or _default_settings()
    ctx = build_context(content, title=title, settings=settings, facts=facts, niche=niche)
    disabled = settings.disabled_rules(niche)
    found: list[tuple[int, int, Finding]] = []
    for r in _RULES.values():
        if r.code in disabled or (only is not None and r.code not in only):
            continue
        for hit in r.check(ctx):
            found.append((0 if hit.in_title else 1, hit.start, _finding(r, hit, ctx)))
    found.sort(key=lambda item: (item[0], item[1], item[2].code))
    return ValidationReport(_promote([f for _, _, f in found], settings))


def build_context(
    content: str,
    *,
    title: str = "",
    settings: Settings,
    facts: Sequence[FactOverride] = (),
    niche: str | None = None,
) -> Context:
    """The views of a draft every rule shares, built once per validate() (bench_validator's
    --by-rule times the rules on it one by one)."""
    content = _as_text(content)
    title = _as_text(title)
    limit = settings.content_validator_max_chars
    truncated_from = len(content) if len(content) > limit else None
    scanned = content[:limit] if truncated_from is not None else content
    fences = tuple(find_fences(scanned))
    # Readers see neither code nor HTML comments: prose rules judge what is rendered as text.
    prose = mask_code_and_comments(scanned, list(fences))
    lower = lower_same_length(prose)
    content_lower = lower if prose is scanned else lower_same_length(scanned)
    words = word_set(content_lower)
    # Searches in these texts are made once per draft, whichever rules ask; word-start ones skip
    # the openings of words the draft does not have (on a long draft: on a short one the searches
    # cost less than the word pieces that skip them).
    _leads.known_words(
        (scanned, prose, lower, content_lower),
        words if len(scanned) >= _KNOWN_WORDS_FROM else None,
    )
    return Context(
        content=scanned,
        prose=prose,
        lower=lower,
        title=title[:2000],
        content_lower=content_lower,
        words=words,
        fences=fences,
        settings=settings,
        facts=tuple(f for f in facts if f.applies_to(niche)),
        niche=niche,
        truncated_from=truncated_from,
    )


@functools.cache
def _default_settings() -> Settings:
    """The defaults, built once: constructing Settings validates every field (costly per call)."""
    return Settings()


def _finding(r: Rule, hit: Hit, ctx: Context) -> Finding:
    if hit.in_title:
        return Finding(r.code, r.severity, f"in title: {hit.message}", None)
    start, end = max(0, hit.start), min(len(ctx.content), hit.end)
    return Finding(
        r.code, r.severity, hit.message, Span(start, end, ctx.content[start:end][:_SPAN_TEXT_CHARS])
    )


def _promote(findings: list[Finding], settings: Settings) -> tuple[Finding, ...]:
    """A warning code seen more than content_validator_warning_reject_threshold times becomes
    critical: one filler phrase is style, a draft made of them is not publishable."""
    threshold = settings.content_validator_warning_reject_threshold
    warnings = [f for f in findings if f.severity == Severity.WARNING]
    pooled = _pooled_codes({f.code for f in warnings})
    counts = Counter(f.code for f in warnings if f.code not in pooled)
    counts[_STOCK] = _distinct_places([f for f in warnings if f.code in pooled])
    promoted = {key for key, n in counts.items() if n > threshold}
    if not promoted:
        return tuple(findings)
    return tuple(
        replace(
            f,
            severity=Severity.CRITICAL,
            message=f"{f.message} (promoted: {counts[_key(f.code, pooled)]} occurrences > "
            f"{threshold})",
        )
        if _key(f.code, pooled) in promoted
        else f
        for f in findings
    )


# Stock wording is one defect whichever list a phrase is on (a filler phrase, a buzzword): a
# draft made of it is rejected even when neither list passes the threshold alone. Counted by
# place, so a phrase on both lists ("delve into", "delve") is one. Generic headers are counted
# on their own, as upstream does, while they are the only kind of stock filler in the draft (an
# outline of "Introduction ... Conclusion" is a style choice); next to stock phrases or a
# buzzword-heavy text they are one more place of the same padding, so a draft padded with
# several kinds of it (a "Final Thoughts" section of stock closing lines) is rejected although
# no single kind passes the threshold. One header plus one idiom stays two places: a warning.
_POOLED = frozenset({"filler_phrase", "buzzword_density"})
_HEADERS = "banned_header"
_STOCK = "stock wording"


def _pooled_codes(codes: set[str]) -> frozenset[str]:
    """The codes counted together as stock wording: headers join when another kind is there."""
    return _POOLED | {_HEADERS} if _HEADERS in codes and codes & _POOLED else _POOLED


def _key(code: str, pooled: frozenset[str] = _POOLED) -> str:
    return _STOCK if code in pooled else code


def _distinct_places(findings: list[Finding]) -> int:
    """How many places these findings mark, overlapping spans counted once."""
    spans = sorted((f.span.start, f.span.end) for f in findings if f.span is not None)
    places, last_end = sum(1 for f in findings if f.span is None), -1
    for start, end in spans:
        if start >= last_end:
            places += 1
        last_end = max(last_end, end)
    return places
