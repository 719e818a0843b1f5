"""Text aimed at the reviewers rather than the reader (issue 12): `prompt_injection` (critical)
and `possible_prompt_injection` (a warning that asks for a person).

Every field that reaches a model is scanned: the content (code, HTML comments, link titles and
image alt texts included), the title, and, from the validator's reviewer, the topic and each
research source (`metadata_findings`). Disguises are undone first (`_injection_text`), phrases are
matched in English and the common other languages (`_injection_phrases`).

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
from dataclasses import dataclass, field

from agents.markdown import Fence, hidden_ranges
from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._injection_address import HIDDEN_MODEL, HIDDEN_YOU, SQUASHED
from agents.reviewers.validator._injection_phrases import (
    GATE_WORDS,
    PROMPT_KINDS,
    WEAK_KINDS,
    Phrase,
    phrases_in,
    words_of,
)
from agents.reviewers.validator._injection_text import (
    View,
    decoded_blobs,
    may_be_spaced,
    normalize,
    respaced,
    unleet,
)
from schemas.records import Finding, Severity

FAMILY = "injection"
CRITICAL = "critical"
WARNING = "warning"

# The draft is about prompt injection (then shown payloads are examples).
_ABOUT = re.compile(
    r"prompt[- ]injection|injection attack|indirect injection|jailbreak|payloads?\b|"
    r"adversarial prompt|red[- ]team|llm security|prompt attack|injections?\b|inyeccion|"
    r"инъекци|注入|越狱"
)
# Markers of a sentence that presents a phrase rather than saying it.
_PRESENTS = re.compile(
    r"such as|\blike\b|e\.g\.|for example|for instance|example|payloads?|attack|attacker|"
    r"the phrase|the sentence|the line|the string|the words|says|said|reads|writes|wrote|typed|"
    r"look(?:s)? like|variation|jailbreak|injection|known as|classic|famous|common|tells? the "
    r"model|instructs? the model|try|tries|tried"
)
_QUOTES = (('"', '"'), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"), ("'", "'"))
# A link's title: `[text](url "title")`, `[id]: url "title"`, `title="..."` (matched at a
# position found with str.find, so a draft without them pays three substring searches).
_AFTER_LINK = re.compile(
    r"\s*<?[^\s)>]{0,2000}>?\s+(\"[^\"\n]{1,500}\"|'[^'\n]{1,500}'|\([^)\n]{1,500}\))\s*\)"
)
_AFTER_DEFINITION = re.compile(r"\s*\S{1,2000}\s+(\"[^\"\n]{1,500}\"|'[^'\n]{1,500}')")
_AFTER_ATTRIBUTE = re.compile(r"\s*=\s*(\"[^\"]{1,500}\"|'[^']{1,500}')")
_HIDDEN_HTML = re.compile(
    r"<(\w{1,10})\b[^<>]{0,400}?(?:style\s*=\s*[\"'][^\"']{0,300}?(?:display\s*:\s*none|"
    r"visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0+)?\s*[;\"']|color\s*:\s*"
    r"(?:#fff(?:fff)?|white|transparent)\b)|\shidden\b|aria-hidden\s*=\s*[\"']true)[^<>]{0,400}>"
    r"(.{0,4000}?)</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
# A JSON object shaped like a reviewer's verdict: bounded, one nesting level at most.
_JSON_OBJECT = re.compile(r"\{(?:[^{}]|\{[^{}]{0,300}\}){0,600}\}")
_JSON_PAIR = re.compile(r"\"(\w{1,40})\"\s*:\s*(\"[^\"]{0,200}\"|[-\w.]{1,20})")
_SCHEMA_KEYS = ({"quality_score"}, {"consistent", "contradictions"}, {"delivers", "reason"})
# Words that present a JSON object as an API's request or response (to the reader).
_API_WORDS = re.compile(
    r"\bapi\b|endpoint|response|request|returns?\b|webhook|curl|\bhttp|status code"
)
_QA_WORDS = re.compile(
    r"review result|qa\b|verdict|grader|reviewer|evaluation result|final answer|your answer|"
    r"\boutput\b|assessment|scoring"
)


@dataclass(frozen=True)
class Found:
    start: int  # offsets into the scanned text
    end: int
    kind: str
    language: str
    severity: str
    message: str


@dataclass
class _Layout:
    """Where things are in a markdown draft: code, real HTML comments, hidden text."""

    code: list[tuple[int, int]] = field(default_factory=list)
    comments: list[tuple[int, int]] = field(default_factory=list)
    hidden: list[tuple[int, int, str]] = field(default_factory=list)

    @classmethod
    def of(cls, content: str, fences: Sequence[Fence] | None = None) -> _Layout:
        # Code and comments as every reviewer sees them (agents.markdown): a comment shown in
        # code is an example, not hidden text.
        hidden = hidden_ranges(content, None if fences is None else list(fences))
        layout = cls(code=hidden.code, comments=hidden.comments)
        for start, end in _link_titles(content):
            if not layout.in_code(start, end):
                layout.hidden.append((start, end, "in a link title"))
        for start, end in _alt_texts(content):
            if not layout.in_code(start, end):
                layout.hidden.append((start, end, "in an image's alt text"))
        if "<" in content:
            for match in _HIDDEN_HTML.finditer(content):
                if not layout.in_code(match.start(), match.end()):
                    layout.hidden.append((match.start(2), match.end(2), "in text styled invisible"))
        layout.hidden.sort()
        return layout

    def in_code(self, start: int, end: int) -> bool:
        return _inside(self.code, start, end)

    def hidden_by(self, start: int, end: int) -> str:
        if _inside(self.comments, start, end):
            return "in an HTML comment"
        # The ranges are sorted by start; the ones that may hold `start` begin at or before it
        # (a few back: an alt text inside a styled span; not every range, per phrase found).
        index = bisect.bisect_right(self.hidden, (start, 1 << 62, "")) - 1
        for lo, hi, why in reversed(self.hidden[max(0, index - 7) : index + 1]):
            if lo <= start < hi:
                return why
        return ""


def _link_titles(content: str) -> Iterator[tuple[int, int]]:
    for marker, pattern in (
        ("](", _AFTER_LINK),
        ("]:", _AFTER_DEFINITION),
        ("title", _AFTER_ATTRIBUTE),
    ):
        pos = content.find(marker)
        while pos != -1:
            match = pattern.match(content, pos + len(marker))
            if match:
                yield match.start(1), match.end(1)
            pos = content.find(marker, pos + len(marker))


def _alt_texts(content: str) -> Iterator[tuple[int, int]]:
    """[start, end) of image alt texts, `![alt](...)` and `alt="..."`: a reader sees the image,
    the vision reviewer's prompt sees the words."""
    pos = content.find("![")
    while pos != -1:
        close = content.find("]", pos + 2, pos + 2 + 1000)
        if close != -1 and content.startswith("(", close + 1):
            yield pos + 2, close
        pos = content.find("![", pos + 2)
    pos = content.find("alt")
    while pos != -1:
        match = _AFTER_ATTRIBUTE.match(content, pos + 3)
        if match and (pos == 0 or not content[pos - 1].isalnum()):
            yield match.start(1), match.end(1)
        pos = content.find("alt", pos + 3)


def _inside(ranges: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    index = bisect.bisect_right(ranges, (start, 1 << 62)) - 1
    return index >= 0 and ranges[index][0] <= start < ranges[index][1]


# --- scanning ----------------------------------------------------------------------------------


def scan(
    text: str,
    *,
    about: bool,
    prompts: bool = False,
    layout: _Layout | None = None,
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
        for _, _, phrase in phrases_in(normalize(blob.text).text):
            raw.append((blob.start, blob.end, phrase, f"encoded as {blob.how}"))
    found = [
        f
        for start, end, phrase, disguise in raw
        if (
            f := _judge(
                text, start, end, phrase.kind, phrase.language, disguise, about, layout, prompts
            )
        )
    ]
    found.extend(_verdicts(text, view, about, layout))
    if layout is not None:
        found.extend(_hidden_address(text, layout))
    return _merge(found)


_SQUASHED = re.compile(SQUASHED)
_SQUASHED_PHRASE = Phrase("override", "English", _SQUASHED, frozenset())
_HIDDEN_YOU = re.compile(HIDDEN_YOU)
_HIDDEN_MODEL = re.compile(HIDDEN_MODEL)
_MAX_HIDDEN = 200  # hidden places looked at per draft (a comment on every line is not read twice)


def _hidden_address(text: str, layout: _Layout) -> Iterator[Found]:
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


def _judge(
    text: str,
    start: int,
    end: int,
    kind: str,
    language: str,
    disguise: str,
    about: bool,
    layout: _Layout | None,
    prompts: bool = False,
) -> Found | None:
    excerpt = " ".join(text[start:end].split())[:80]
    hidden = disguise or (layout.hidden_by(start, end) if layout else "")
    in_code = layout.in_code(start, end) if layout else False
    quoted = _quoted(text, start, end)
    how = "" if language == "English" else f"in {language}"
    where = ", ".join(part for part in (hidden, how) if part)
    detail = f" ({where})" if where else ""
    attempt = Found(
        start, end, kind, language, CRITICAL,
        f"instruction aimed at the reviewers{detail}: {excerpt!r}",
    )  # fmt: skip
    unsure = Found(
        start, end, kind, language, WARNING,
        f"reads like an instruction to the reviewers{detail}: {excerpt!r}; a person should "
        "decide whether it is an example",
    )  # fmt: skip
    if kind == "fence":
        return attempt  # our own data marker has no business in a draft
    if hidden:
        return unsure if (in_code and about) else attempt
    # A table in an article about injection presents its cells (payload, what it tries).
    shown = in_code or quoted or (about and _in_table_row(text, start))
    if kind in WEAK_KINDS:
        # An article about prompting shows prompts ("I want you to act as ..."), as one about
        # injection shows attacks.
        example = about or (prompts and kind in PROMPT_KINDS)
        return None if example and (shown or _presents(text, start, end)) else unsure
    if shown:
        if about:
            return None
        # A role marker ("SYSTEM: ...") impersonates the prompt itself: quoting it changes
        # nothing for the model, and nobody quotes one in an article about something else.
        return attempt if in_code or kind == "role" else unsure
    if about:
        return None if _presents(text, start, end) else unsure
    return attempt


# How far around a phrase its line is read: a draft of one 2 MiB line with a phrase every few
# words would otherwise be read whole for each of them (quadratic).
_LINE_REACH = 2000


def _line(text: str, start: int, end: int) -> tuple[int, int, bool]:
    """[lo, hi) of the line holding text[start:end], at most `_LINE_REACH` characters each way,
    and whether lo is the line's real start."""
    lo_bound = max(0, start - _LINE_REACH)
    newline = text.rfind("\n", lo_bound, start)
    lo = newline + 1 if newline != -1 else lo_bound
    hi_bound = min(len(text), end + _LINE_REACH)
    newline = text.find("\n", end, hi_bound)
    hi = newline if newline != -1 else hi_bound
    return lo, hi, _at_line_start(text, lo)


def _at_line_start(text: str, lo: int) -> bool:
    return lo == 0 or text[lo - 1] == "\n"


def _quoted(text: str, start: int, end: int) -> bool:
    line_start, line_end, real_start = _line(text, start, end)
    if real_start and text[line_start:start].lstrip().startswith(">"):
        return True  # a blockquote
    before, after = text[line_start:start], text[end:line_end]
    for opening, closing in _QUOTES:
        if opening == closing:
            if before.count(opening) % 2 == 1 and opening in after:
                if opening == "'" and not _apostrophe_quote(before):
                    continue
                return True
        elif before.rfind(opening) > before.rfind(closing) and closing in after:
            return True
    return False


def _in_table_row(text: str, start: int) -> bool:
    line_start, line_end, real_start = _line(text, start, start)
    if not real_start or (line_end < len(text) and text[line_end] != "\n"):
        return False  # a line longer than the reach is no table row
    line = text[line_start:line_end].strip()
    return line.startswith("|") and line.endswith("|") and line.count("|") >= 3


def _apostrophe_quote(before: str) -> bool:
    """A single quote opens a quotation, not an apostrophe (it's, don't), when it follows a
    space or an opening bracket."""
    index = before.rfind("'")
    return index == 0 or before[index - 1] in " ([:"


def _presents(text: str, start: int, end: int) -> bool:
    """The sentence around the phrase presents it (an example marker), as a lowercase window."""
    reach = max(0, start - 300)
    lo = max(text.rfind(". ", reach, start), text.rfind("\n", reach, start), reach)
    hi_candidates = [i for i in (text.find(". ", end, end + 300), text.find("\n", end, end + 300))]
    hi = min([i for i in hi_candidates if i != -1] + [end + 300, len(text)])
    window = (text[lo:start] + " " + text[end:hi]).lower()
    return bool(_PRESENTS.search(window))


def _verdicts(text: str, view: View, about: bool, layout: _Layout | None) -> Iterator[Found]:
    """JSON objects shaped like a reviewer's answer ("approved": true with a high score, or one
    of our answer schemas)."""
    if '"' not in view.text or "{" not in view.text:
        return
    for match in _JSON_OBJECT.finditer(view.text):
        body = match.group(0)
        pairs = {key: value.strip('"') for key, value in _JSON_PAIR.findall(body)}
        if not pairs:
            continue
        keys = set(pairs)
        schema = any(group <= keys for group in _SCHEMA_KEYS)
        approves = (
            pairs.get("approved") == "true"
            or pairs.get("passed") == "true"
            or pairs.get("verdict", "") in ("approve", "approved", "pass", "passed")
        )
        high = any(
            _number(pairs.get(key)) >= 90
            for key in ("score", "quality_score", "rating", "final_score")
        )
        if not (schema or (approves and high)):
            continue
        start, end = view.original(match.start()), view.original_end(match.end())
        line_start = view.text.rfind("\n", 0, match.start()) + 1
        context = view.text[max(0, line_start - 200) : match.start()]
        qa = schema or _QA_WORDS.search(context)
        if not qa and _API_WORDS.search(context):
            continue  # an API's response shown to the reader, in prose or code
        kind = "score" if qa else "claim"
        found = _judge(text, start, end, kind, "English", "", about, layout)
        if found is not None:
            yield Found(
                found.start,
                found.end,
                found.kind,
                found.language,
                found.severity,
                found.message.replace(
                    "instruction aimed at the reviewers", "a reviewer's verdict in the draft"
                ).replace("reads like an instruction to", "reads like a verdict for"),
            )


def _number(value: str | None) -> float:
    try:
        return float(value) if value is not None else -1.0
    except ValueError:
        return -1.0


def _merge(found: list[Found]) -> list[Found]:
    """Overlapping findings merged, the more severe kept."""
    found.sort(key=lambda f: (f.start, 0 if f.severity == CRITICAL else 1, -f.end))
    kept: list[Found] = []
    for f in found:
        if kept and f.start < kept[-1].end:
            if f.severity == CRITICAL and kept[-1].severity != CRITICAL:
                kept[-1] = f
            continue
        kept.append(f)
    return kept


_ABOUT_WORDS = frozenset(
    {
        "injection", "injections", "jailbreak", "jailbreaks", "jailbreaking", "payload",
        "payloads", "prompt-injection", "red-team", "red-teaming", "inyeccion", "adversarial",
    }
)  # fmt: skip


# What `_ABOUT` can match without one of `_ABOUT_WORDS` among the words (word_set keeps accents
# and other scripts, and splits "red team").
_ABOUT_SUBSTRINGS = (
    "inyecci",
    "\u0438\u043d\u044a\u0435\u043a\u0446\u0438",
    "\u6ce8\u5165",
    "\u8d8a\u72f1",
    "red team",
    "red-team",
    "llm security",
    "prompt attack",
    "adversarial prompt",
)


def is_about_injection(*texts: str, words: frozenset[str] | None = None) -> bool:
    """The draft is about prompt injection (then shown payloads are examples). With the
    texts' `words`, a text without them pays a few substring searches, not the regex."""
    if (
        words is not None
        and words.isdisjoint(_ABOUT_WORDS)
        and not any(sub in t for t in texts for sub in _ABOUT_SUBSTRINGS)
    ):
        return False
    return any(_ABOUT.search(t) for t in texts if t)


_PROMPT_WORDS = frozenset({"prompt", "prompts", "prompting"})
_ASSISTANT_WORDS = frozenset(
    {"chatgpt", "assistant", "assistants", "llm", "llms", "ai", "chatbot", "chatbots", "gpt",
     "model", "models", "claude", "gemini"}
)  # fmt: skip


def is_about_prompting(words: frozenset[str], title_low: str = "") -> bool:
    """The draft is about writing prompts for a model (then a shown role prompt is an example)."""
    title_words = frozenset(title_low.split())
    both = words | title_words
    return not both.isdisjoint(_PROMPT_WORDS) and not both.isdisjoint(_ASSISTANT_WORDS)


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
    layout = _Layout.of(ctx.content, ctx.fences)
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
