"""Warnings: citation artifacts, leaked internal paths, code density."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._matches import leftmost
from agents.reviewers.validator._text import word_matches
from schemas.records import Severity

FAMILY = "citations"

# Citation markers, one pattern per leading literal (a pattern that starts with one literal is
# found with a fast substring search; an alternation of several starts is tried at every
# character), each run only when its literal occurs. Overlaps are resolved as one alternation
# would (_matches.leftmost).
_ARTIFACTS = tuple(
    (literal, re.compile(pattern))
    for literal, pattern in (
        # [12] or [1, 2] that is neither a link text, a reference definition nor a footnote; the
        # character before is checked in Python (a leading lookbehind would slow the scan).
        ("[", r"\[(?:\d{1,3}(?: ?[,\u2013-] ?\d{1,3}){0,5}\](?![(\[:])|citation needed\])"),
        # (Smith, 2023), (Smith et al., 2023), (Smith and Jones 2021)
        (
            "(",
            r"\([A-Z][A-Za-z'\u2019-]{1,30}"
            r"(?: et al\.| and [A-Z][A-Za-z'\u2019-]{1,30}| & [A-Z][A-Za-z'\u2019-]{1,30})?"
            r",? (?:19|20)\d\d[a-z]?(?:, p\. ?\d{1,4})?\)",
        ),
        # Chat-UI citation markers
        ("\u3010", r"\u3010[^\u3011\n]{0,100}\u3011"),
        (":contentReference", r":contentReference\[oaicite:\d{1,4}\](?:\{[^}\n]{0,100}\})?"),
    )
)
_CHAT_CITE = re.compile(r"turn\d{1,3}(?:search|news|view|fetch)\d{1,3}")


@rule(
    "citation_artifact",
    Severity.WARNING,
    FAMILY,
    "Academic or chat-UI citation markers ([12], (Smith, 2023), \u3010source\u3011).",
)
def citation_artifact(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    candidates = [
        m for literal, pattern in _ARTIFACTS if literal in text for m in pattern.finditer(text)
    ]
    found = [
        m
        for m in leftmost(candidates)
        if m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in "]_")
    ]
    if "turn" in text:
        found += word_matches(_CHAT_CITE, text)
    for match in sorted(found, key=lambda m: m.start()):
        yield Hit(match.start(), match.end(), f"citation artifact {match.group(0)[:40]!r}")


# (gate word, literal, pattern): the pattern only runs when the literal occurs at all (a C-speed
# check), and the literal is only looked for when its gate word is among the draft's words (a set
# lookup: "/" separates words, so "/home/" always leaves the word "home"); the character before a
# match is checked in Python. Literals a word boundary could hide ("'localhost") have no gate.
_INTERNAL_PATHS = tuple(
    (gate, literal, re.compile(p))
    for gate, literal, p in (
        ("home", "/home/", r"/home/[a-z_][\w.-]{0,31}/"),
        ("users", "/Users/", r"/Users/[\w.-]{1,40}/"),
        ("root", "/root/", r"/root/"),
        ("mnt", "/mnt/data/", r"/mnt/data/"),
        ("workspace", "/workspace/", r"/workspace/"),
        ("tmp", "/tmp/", r"/tmp/[\w.-]{1,60}"),  # noqa: S108 (a pattern to find, not a path to use)
        ("var", "/var/", r"/var/(?:www|lib|log)/"),
        ("file", "file:///", r"file:///"),
        ("", "localhost", r"localhost(?::\d{2,5})?(?:/[\w./-]{0,100})?(?![\w])"),
        ("", "127.0.0.1", r"127\.0\.0\.1(?::\d{2,5})?(?:/[\w./-]{0,100})?"),
        ("", "0.0.0.0", r"0\.0\.0\.0(?::\d{2,5})?"),  # noqa: S104 (a pattern to find)
    )
)
_INTERNAL_HOST_WORDS = (".internal", ".corp", ".intranet")
# A Windows path: found from ":\\" (rare), then the drive letter before it is checked.
_WINDOWS_PATH = re.compile(r":\\(?:Users|Windows|Program Files|inetpub)\\")
_INTERNAL_HOST = re.compile(r"\.(?:internal|corp|intranet)(?![\w])")
_HOST_BEFORE = re.compile(r"[\w-]{1,60}$")


@rule(
    "internal_path",
    Severity.WARNING,
    FAMILY,
    "Internal paths or hosts leaked into prose (/home/user/, C:\\Users\\, localhost:8000).",
)
def internal_path(ctx: Context) -> Iterator[Hit]:
    text = ctx.prose
    found: list[tuple[int, int]] = []
    for gate, literal, pattern in _INTERNAL_PATHS:
        if (gate and gate not in ctx.words) or literal not in text:
            continue
        for m in pattern.finditer(text):
            before = text[m.start() - 1] if m.start() else " "
            # A path inside a URL ("https://site/home/...") is not a leaked path; a host after
            # "//" ("http://localhost") is.
            if not (before.isalnum() or before in ("_/.-" if literal[0] == "/" else "_.-")):
                found.append((m.start(), m.end()))
    for m in _WINDOWS_PATH.finditer(text) if ":\\" in text else ():
        drive = m.start() - 1
        is_drive = drive >= 0 and text[drive].isascii() and text[drive].isalpha()
        if is_drive and (drive == 0 or not text[drive - 1].isalnum()):
            found.append((drive, m.end()))
    hosts = any(word in text for word in _INTERNAL_HOST_WORDS)
    for m in _INTERNAL_HOST.finditer(text) if hosts else ():
        host = _HOST_BEFORE.search(text, max(0, m.start() - 60), m.start())
        if host is not None:
            found.append((host.start(), m.end()))
    for start, end in sorted(found):
        yield Hit(start, end, f"internal path {text[start:end][:60]!r}")


@rule(
    "code_density",
    Severity.WARNING,
    FAMILY,
    "More of the article in fenced code than content_validator_max_code_ratio allows.",
)
def code_density(ctx: Context) -> Iterator[Hit]:
    total = len(ctx.content.strip())
    if total < 500 or not ctx.fences:
        return
    code = sum(f.end - f.start for f in ctx.fences)
    ratio = code / total
    limit = ctx.settings.content_validator_max_code_ratio
    if ratio > limit:
        first = ctx.fences[0]
        yield Hit(
            first.start, first.start + 3, f"{ratio:.0%} of the content is code (> {limit:.0%})"
        )
