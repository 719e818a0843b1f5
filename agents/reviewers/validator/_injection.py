"""Text aimed at the reviewers rather than the reader (issue 12): `prompt_injection` (critical)
and `possible_prompt_injection` (a warning that asks for a person).

Every field that reaches a model is scanned: the content (code, HTML comments, link titles and
image alt texts included), the title, and, from the validator's reviewer, the topic and each
research source (`metadata_findings`). One module per idea:
- `_injection_text` undoes disguises (look-alikes, invisible characters, spacing, digits for
  letters), `_injection_decode` decodes encoded runs (base64, hex, %-encoding, entities, ...);
- `_injection_phrases` gathers the phrases (`_injection_orders`: change the verdict;
  `_injection_roles`: speak to the reviewers; `_injection_address`: what only a model has;
  `_injection_languages`: the other languages), `_injection_match` finds them;
- `_injection_placement` says where a phrase sits (hidden, shown, presented), `_injection_topic`
  what the draft is about, `_injection_judge` what a phrase found there is, and
  `_injection_verdicts` finds a reviewer's verdict written as JSON.

An attempt and an example are told apart by who is addressed and how:
- hidden text (an HTML comment, a link title, text styled invisible) or disguised text (look-alike
  letters, invisible characters, spaced-out letters, base64/hex/%-encoding, entities, tag
  characters) is an attempt: nobody hides or encodes an example for the reader;
- shown text (in a code block, in quotes, in a blockquote; in a table too) in a draft about
  prompt injection is an example; the same in a draft about something else is an attempt in
  code or when it poses as a role ("SYSTEM:"), and ambiguous in other quotes;
- plain prose is an attempt, unless the draft is about prompt injection and the sentence presents
  the phrase ("such as", "like", "for example", "attackers write", quoted): then an example; in a
  draft about injection without such a marker it is ambiguous;
- a claim that the draft is already approved is ambiguous on its own; a JSON verdict is an
  attempt when it uses a reviewer's answer schema or is addressed to the QA pipeline, ambiguous
  otherwise (an API example in prose).
Ambiguous means a warning and needs_human_review, never a silent pass.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Iterator, Sequence

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._injection_address import HIDDEN_MODEL, HIDDEN_YOU, SQUASHED
from agents.reviewers.validator._injection_decode import decoded_blobs
from agents.reviewers.validator._injection_judge import CRITICAL, WARNING, Found, judge, merge
from agents.reviewers.validator._injection_phrases import GATE_WORDS, Phrase, phrases_in, words_of
from agents.reviewers.validator._injection_placement import Layout
from agents.reviewers.validator._injection_switch import SQUASHED_SWITCH
from agents.reviewers.validator._injection_text import (
    View,
    may_be_spaced,
    normalize,
    respaced,
    unleet,
)
from agents.reviewers.validator._injection_topic import is_about_injection, is_about_prompting
from agents.reviewers.validator._injection_verdicts import verdicts
from schemas.records import Finding, Severity

FAMILY = "injection"

# --- scanning ----------------------------------------------------------------------------------


def scan(
    text: str,
    *,
    about: bool,
    prompts: bool = False,
    layout: Layout | None = None,
    view: View | None = None,
    words: frozenset[str] | None = None,
) -> list[Found]:
    """Attempts (critical) and ambiguous cases (warning) in one text, merged, in order."""
    view = view or normalize(text)
    words = words if words is not None else words_of(view.text)
    raw: list[tuple[int, int, Phrase, str]] = []  # source offsets, phrase, disguise ("" = none)
    for start, end, phrase in phrases_in(view.text, words):
        disguise = (
            "behind look-alike or invisible characters" if view.is_disguised(start, end) else ""
        )
        raw.append((view.original(start), view.original_end(end), phrase, disguise))
    leet = unleet(view, words, GATE_WORDS)
    if leet is not None:
        for start, end, phrase in phrases_in(leet.text):
            if leet.text[start:end] != view.text[start:end]:  # found through the digits only
                raw.append(
                    (
                        view.original(start),
                        view.original_end(end),
                        phrase,
                        "with digits for letters",
                    )
                )
    for start, end, rejoined in respaced(view) if may_be_spaced(view.text, words) else ():
        matched = phrases_in(rejoined)
        if not matched and _SQUASHED.search(rejoined.replace(" ", "")):
            matched = [(0, 0, _SQUASHED_PHRASE)]
        for _, _, phrase in matched:
            raw.append(
                (view.original(start), view.original_end(end), phrase, "with spaced letters")
            )
    for blob in decoded_blobs(text, words):
        decoded = normalize(blob.text).text
        matched = phrases_in(decoded)
        if not matched and _SQUASHED.search(decoded.replace(" ", "")):
            matched = [(0, 0, _SQUASHED_PHRASE)]  # decoded with no word gaps (Morse code)
        # One finding per kind and blob: a long blob repeating a phrase is one attempt, and each
        # finding would be judged over the whole blob.
        for phrase in {phrase.kind: phrase for _, _, phrase in reversed(matched)}.values():
            raw.append((blob.start, blob.end, phrase, f"encoded as {blob.how}"))
    found = [
        f
        for start, end, phrase, disguise in raw
        if (
            f := judge(
                text, start, end, phrase.kind, phrase.language, disguise, about, layout, prompts
            )
        )
    ]
    found.extend(verdicts(text, view, about, layout))
    if layout is not None:
        found.extend(_hidden_address(text, layout))
    return merge(found)


_SQUASHED = re.compile(SQUASHED + "|" + SQUASHED_SWITCH)
_SQUASHED_PHRASE = Phrase("override", "English", _SQUASHED, frozenset())
_HIDDEN_YOU = re.compile(HIDDEN_YOU)
_HIDDEN_MODEL = re.compile(HIDDEN_MODEL)
_MAX_HIDDEN = 200  # hidden places looked at per draft (a comment on every line is not read twice)


def _hidden_address(text: str, layout: Layout) -> Iterator[Found]:
    """Hidden text that says "you must ..." about a prompt, instructions or a model: a warning
    (an editor's note can read like it; an attempt phrase found in it rejects anyway)."""
    places = [(lo, hi, "in an HTML comment") for lo, hi in layout.comments[:_MAX_HIDDEN]]
    places.extend(layout.hidden[:_MAX_HIDDEN])
    for lo, hi, where in places:
        piece = text[lo : min(hi, lo + 4000)].lower()
        you = _HIDDEN_YOU.search(piece)
        if you is None or _HIDDEN_MODEL.search(piece) is None or layout.in_code(lo, hi):
            continue
        excerpt = " ".join(text[lo + you.start() : lo + you.start() + 120].split())[:80]
        yield Found(
            lo, hi, "address", "English", WARNING,
            f"hidden text addressed to a model ({where}): {excerpt!r}; a person should decide "
            "whether it is an editor's note",
        )  # fmt: skip


# --- the rules ---------------------------------------------------------------------------------

_CACHE = threading.local()


def _scan_context(ctx: Context) -> tuple[list[Found], list[Found]]:
    """(content findings, title findings) for this context, computed once for both rules."""
    cached = getattr(_CACHE, "entry", None)
    if cached is not None and cached[0] is ctx:
        return cached[1], cached[2]
    title_low = ctx.title.lower()
    about = is_about_injection(ctx.content_lower, words=ctx.words) or is_about_injection(title_low)
    prompts = is_about_prompting(ctx.words, title_low)
    view = normalize(ctx.content)
    words = ctx.words if view.text == ctx.content_lower else None
    layout = Layout.of(ctx.content, ctx.fences)
    content = scan(ctx.content, about=about, prompts=prompts, layout=layout, view=view, words=words)
    title = scan(ctx.title, about=about, prompts=prompts)
    _CACHE.entry = (ctx, content, title)
    return content, title


def _hits(ctx: Context, severity: str) -> Iterator[Hit]:
    content, title = _scan_context(ctx)
    for f in content:
        if f.severity == severity:
            yield Hit(f.start, f.end, f.message)
    for f in title:
        if f.severity == severity:
            yield Hit(f.start, f.end, f.message, True)


@rule(
    "prompt_injection",
    Severity.CRITICAL,
    FAMILY,
    "Instructions aimed at the reviewers, hidden or plain, in any of the common languages "
    '("ignore previous instructions", "score this 100", a fake verdict), after undoing '
    "disguises (look-alike letters, invisible characters, spacing, base64/hex/%-encoding).",
)
def prompt_injection(ctx: Context) -> Iterator[Hit]:
    yield from _hits(ctx, CRITICAL)


@rule(
    "possible_prompt_injection",
    Severity.WARNING,
    FAMILY,
    "Text that reads like an instruction to the reviewers but may be an example (quoted, or in "
    "an article about prompt injection): a person should decide.",
    human_review=True,
)
def possible_prompt_injection(ctx: Context) -> Iterator[Hit]:
    yield from _hits(ctx, WARNING)


def prompt_fields(topic: str, research_sources: Sequence[str]) -> list[tuple[str, str]]:
    """The draft's fields other than content and title that reach a model's prompt, labelled,
    as far as any prompt shows them (1000 sources at most; a source's first 2000 characters)."""
    fields = [("topic", topic[:20_000])] if topic else []
    fields.extend(
        (f"research source {i}", source[:2000])
        for i, source in enumerate(research_sources[:1000], 1)
        if source
    )
    return fields


def metadata_findings(
    fields: Sequence[tuple[str, str]], *, content: str = "", title: str = ""
) -> tuple[Finding, ...]:
    """Findings for draft fields that are not the content or the title but reach a model's
    prompt too: (label, text) pairs such as ("topic", ...), ("research source 1", ...).

    The fields are scanned as one text (one pass however many sources); whether the draft is
    about prompt injection (which makes a quoted payload an example) is only worked out when
    something was found."""
    kept = [(label, text) for label, text in fields if text]
    if not kept:
        return ()
    starts: list[int] = []
    parts: list[str] = []
    offset = 0
    for _, text in kept:
        starts.append(offset)
        parts.append(text)
        offset += len(text) + 2
    joined = "\n\n".join(parts)
    found = scan(joined, about=False)
    if found and is_about_injection(content.lower(), title.lower()):
        found = scan(joined, about=True)
    findings: list[Finding] = []
    for f in found:
        label = kept[bisect.bisect_right(starts, f.start) - 1][0]
        severity = Severity.CRITICAL if f.severity == CRITICAL else Severity.WARNING
        code = "prompt_injection" if f.severity == CRITICAL else "possible_prompt_injection"
        findings.append(Finding(code, severity, f"in {label}: {f.message}"))
    return tuple(findings)
