"""Warnings: stock filler, banned headers and buzzword-heavy prose."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from schemas.records import Severity

FAMILY = "style"

_FILLER = re.compile(
    r"(?i:\bin today['\u2019]s (?:fast-paced|digital|modern|ever-changing|ever-evolving|"
    r"rapidly (?:changing|evolving)|competitive|hyper-connected|interconnected|data-driven) "
    r"(?:world|age|landscape|era|environment|market|economy|society)"
    r"|\bin the (?:ever-evolving|ever-changing|rapidly evolving|fast-paced|dynamic) "
    r"(?:world|landscape|realm|field|space) of\b"
    r"|\bin this day and age\b"
    r"|\blet['\u2019]s dive (?:in|deeper|right in)\b"
    r"|\bwithout further ado\b"
    r"|\bin this (?:article|blog post|post|guide),? (?:we|I)(?:['\u2019]ll| will)\b"
    r"|\bbuckle up\b"
    r"|\blook no further\b"
    r"|\bit['\u2019]s no secret that\b"
    r"|\bwhether you['\u2019]re a (?:seasoned|beginner|novice|veteran)\b"
    r"|\bat the end of the day\b"
    r"|\bwhen it comes to\b"
    r"|\bin conclusion,)"
)


@rule(
    "filler_phrase",
    Severity.WARNING,
    FAMILY,
    'Stock filler ("In today\'s fast-paced world", "Let\'s dive in").',
)
def filler_phrase(ctx: Context) -> Iterator[Hit]:
    for match in _FILLER.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), f"filler phrase {match.group(0)!r}")


_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+([^\n]{1,200})$", re.MULTILINE)
_BANNED_HEADERS = frozenset(
    {
        "conclusion",
        "in conclusion",
        "conclusions",
        "introduction",
        "intro",
        "final thoughts",
        "wrapping up",
        "closing thoughts",
        "to sum up",
        "summary and conclusion",
    }
)


@rule(
    "banned_header",
    Severity.WARNING,
    FAMILY,
    'Generic section headers ("Conclusion", "Introduction", "Final Thoughts").',
)
def banned_header(ctx: Context) -> Iterator[Hit]:
    for match in _HEADING.finditer(ctx.prose):
        words = re.sub(r"[^\w\s]", "", match.group(1)).strip().lower()
        words = re.sub(r"^\d{1,3}\s+", "", words)
        if words in _BANNED_HEADERS:
            yield Hit(match.start(1), match.end(1), f"generic header {match.group(1).strip()!r}")


_BUZZWORD = re.compile(
    r"(?i:\b(?:delv(?:e|es|ed|ing)|tapestry|testament|realm|bustling|vibrant|intricate|"
    r"multifaceted|paramount|pivotal|seamless(?:ly)?|leverag(?:e|es|ed|ing)|unlock(?:s|ed|ing)?|"
    r"elevat(?:e|es|ed|ing)|embark(?:s|ed|ing)?|game[- ]changer|ever-evolving|cutting-edge|"
    r"harness(?:es|ed|ing)?|foster(?:s|ed|ing)?|underscor(?:e|es|ed|ing)|showcas(?:e|es|ed|ing)|"
    r"myriad|plethora|synergy|holistic|transformative|unleash(?:es|ed|ing)?|beacon|symphony|"
    r"labyrinth|meticulous(?:ly)?|commendable|resonat(?:e|es|ed|ing)|navigat(?:e|es|ing) the "
    r"(?:complexities|landscape|world)|in the realm of|treasure trove|unwavering|"
    r"revolutioniz(?:e|es|ed|ing))\b)"
)
_WORD = re.compile(r"\w+")


@rule(
    "buzzword_density",
    Severity.WARNING,
    FAMILY,
    "Too many model buzzwords (delve, tapestry, testament, ...) per 1,000 words.",
)
def buzzword_density(ctx: Context) -> Iterator[Hit]:
    found = list(_BUZZWORD.finditer(ctx.prose))
    if len(found) < 3:
        return
    # Whitespace-separated tokens approximate words well enough, and cost one C-level split.
    words = max(len(ctx.prose.split()), 1)
    per_1000 = len(found) * 1000 / words
    limit = ctx.settings.content_validator_buzzword_max_per_1000_words
    if per_1000 > limit:
        sample = ", ".join(sorted({m.group(0).lower() for m in found})[:6])
        yield Hit(
            found[0].start(),
            found[0].end(),
            f"{len(found)} buzzwords ({per_1000:.1f} per 1,000 words > {limit:g}): {sample}",
        )
