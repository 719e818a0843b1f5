"""Critical: text that is not article prose at all.

Leftover placeholders, leaked model output (reasoning tags, chat-template tokens, planning
scaffolds, assistant chatter) and broken endings (truncation, an unclosed fence, a trailing JSON
envelope). Placeholders and leaked output are also looked for in the title.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import at_word_start, word_matches, word_set
from schemas.records import Severity

FAMILY = "artifacts"

# Each alternative starts with a rare character ([ ] ( {), so the scan is fast.
_PLACEHOLDER = re.compile(
    r"\[(?:image|img|figure|fig|chart|photo|picture|video|diagram|graph|screenshot|table)"
    r"[-_ ]?\d{0,3} ?:[^\]\n]{0,300}\]"
    r"|\[(?:insert|add|your|placeholder|todo|tbd|tk|link to|citation|source|company name|"
    r"author name|name of)(?![a-z])[^\]\n]{0,200}\]"
    r"|\]\((?:url|link|source|#|<url>|\.\.\.|https?://(?:www\.)?example\.(?:com|org)[^)\s]{0,200})\)"
    r"|\((?:source|link|citation|url|citation needed)\)"
    r"|\{\{[^{}\n]{1,100}\}\}"
)
_PLACEHOLDER_WORDS = re.compile(r"(?:TODO|TBD|FIXME|XXX)(?![\w])")


@rule(
    "placeholder",
    Severity.CRITICAL,
    FAMILY,
    "Leftover placeholders ([IMAGE-1: ...], [INSERT ...], ](url), (source), {{var}}).",
)
def placeholder(ctx: Context) -> Iterator[Hit]:
    title_lower = ctx.title.lower()
    for text, low, in_title in ((ctx.prose, ctx.lower, False), (ctx.title, title_lower, True)):
        found = list(_PLACEHOLDER.finditer(low))
        found += word_matches(_PLACEHOLDER_WORDS, text)
        if "lorem ipsum" in low:
            found += _LOREM.finditer(low)
        for match in sorted(found, key=lambda m: m.start()):
            message = f"leftover placeholder {text[match.start() : match.end()][:60]!r}"
            yield Hit(match.start(), match.end(), message, in_title)


_LOREM = re.compile("lorem ipsum")
_REASONING = re.compile(r"</?(?:think|thinking|reasoning|scratchpad|analysis)>")


@rule(
    "leaked_reasoning",
    Severity.CRITICAL,
    FAMILY,
    "Model reasoning tags left in the text (<think>, </thinking>).",
)
def leaked_reasoning(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.lower, False), (ctx.title.lower(), True)):
        for match in _REASONING.finditer(text):
            yield Hit(match.start(), match.end(), "model reasoning tag", in_title)


_CHAT_TOKEN = re.compile(
    r"<\|(?:im_start|im_end|im_sep|endoftext|eot_id|eom_id|start_header_id|end_header_id|"
    r"begin_of_text|end_of_text|system|user|assistant|end|channel|message|return)\|>"
    r"|<</?sys>>|<start_of_turn>|<end_of_turn>|</?s>(?=\s|$)"
)
_INST = re.compile(r"\[/?INST\]")
_ROLE_LINE = re.compile(r"^(?:Human|Assistant|System|User):(?= )", re.MULTILINE)
_ROLE_WORDS = ("Human:", "Assistant:", "System:", "User:")


@rule(
    "chat_template_token",
    Severity.CRITICAL,
    FAMILY,
    "Chat-template tokens or role markers (<|im_start|>, [INST], Assistant:).",
)
def chat_template_token(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        low = ctx.lower if not in_title else text.lower()
        found = list(_CHAT_TOKEN.finditer(low)) + list(_INST.finditer(text))
        if any(word in text for word in _ROLE_WORDS):
            found += _ROLE_LINE.finditer(text)
        for match in sorted(found, key=lambda m: m.start()):
            yield Hit(match.start(), match.end(), "chat-template token", in_title)


_SCAFFOLD = re.compile(
    r"^ {0,3}(?:#{1,6} |\*\*)?(?:outline|plan|article plan|draft outline|my plan|thinking|"
    r"notes to self|word count|target word count|target keywords?|primary keyword|"
    r"seo title|meta description|slug|writer notes?|step \d{1,2}: (?:research|outline|write|"
    r"draft|plan))(?:\*\*)? ?:"
    r"|^ {0,3}(?:#{1,6} )?(?:revised (?:article|draft|version)|final (?:article|draft))(?:\*\*)?"
    r" ?:? *$",
    re.MULTILINE,
)


@rule(
    "planning_scaffold",
    Severity.CRITICAL,
    FAMILY,
    "Planning scaffolds left in the article (Outline:, Meta description:, Word count:).",
)
def planning_scaffold(ctx: Context) -> Iterator[Hit]:
    for match in _SCAFFOLD.finditer(ctx.lower):
        label = ctx.prose[match.start() : match.end()].strip()[:40]
        yield Hit(match.start(), match.end(), f"planning scaffold {label!r}")


_APOS = "['\u2019]"
# (gate words, pattern): the pattern runs only when a gate word is in the text.
_CHATTER = tuple(
    (frozenset(gate.split()), re.compile(p))
    for gate, p in (
        (
            "here's here\u2019s here",
            rf"here(?:{_APOS}s| is) (?:the|your|a|an) (?:revised |rewritten |updated |improved |"
            r"final |complete |full |polished |expanded )?(?:article|blog post|post|draft|"
            r"version|content|rewrite)(?![a-z])",
        ),
        ("hope", r"i hope (?:this|that) (?:helps|article helps|meets your)(?![a-z])"),
        ("know", rf"let me know if you(?:{_APOS}d| would)? (?:like|want|need)(?![a-z])"),
        ("free", r"feel free to (?:adjust|modify|tweak|edit) (?:the|this|it)(?![a-z])"),
        ("cut-off cutoff", r"my (?:knowledge|training) cut-?off(?![a-z])"),
        (
            "browse access",
            rf"i (?:cannot|can{_APOS}t|can not|don{_APOS}t have the ability to) "
            r"(?:browse|access) (?:the internet|real-time|external)",
        ),
    )
)
# "an AI" is the anchor; what precedes it decides ("as an AI", "I'm an AI", "I am just an AI").
_AN_AI = re.compile(r"an ai(?: language model| assistant| model)?(?![a-z])")
_AN_AI_BEFORE = re.compile(rf"(?:as |i{_APOS}m (?:just )?|i am (?:just )?)$")
_OPENING_WORDS = frozenset({"sure", "certainly", "course", "absolutely"})
_CHATTER_OPENING = re.compile(r"^(?:Sure|Certainly|Of course|Absolutely)[!,.] ", re.MULTILINE)


@rule(
    "assistant_chatter",
    Severity.CRITICAL,
    FAMILY,
    'The model talking to its user ("As an AI language model", "Here is the revised article").',
)
def assistant_chatter(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        low = ctx.lower if not in_title else text.lower()
        found: list[tuple[int, int]] = []
        words = ctx.words if not in_title else word_set(low)
        for gate, pattern in _CHATTER:
            if not words.isdisjoint(gate):
                found += [(m.start(), m.end()) for m in word_matches(pattern, low)]
        for match in _AN_AI.finditer(low) if "ai" in words else ():
            before = _AN_AI_BEFORE.search(low, max(0, match.start() - 12), match.start())
            if before is not None and at_word_start(low, before.start()):
                found.append((before.start(), match.end()))
        if not words.isdisjoint(_OPENING_WORDS):
            found += [(m.start(), m.end()) for m in _CHATTER_OPENING.finditer(text)]
        for start, end in sorted(found):
            yield Hit(start, end, "assistant chatter", in_title)


@rule(
    "unclosed_code_fence",
    Severity.CRITICAL,
    FAMILY,
    "A code fence that never closes (the rest of the article would render as code).",
)
def unclosed_code_fence(ctx: Context) -> Iterator[Hit]:
    for fence in ctx.fences:
        if not fence.closed:
            end = ctx.content.find("\n", fence.start)
            yield Hit(fence.start, end if end != -1 else fence.end, "code fence never closes")


# A JSON object at the very end whose keys look like an API/agent envelope.
_ENVELOPE_KEY = re.compile(
    r'\{\s{0,20}"(?:title|content|body|article|markdown|meta_description|seo_title|slug|tags|'
    r'excerpt|status|score|approved|response|output)"\s{0,5}:'
)
# Sentence-final punctuation across scripts (Latin, CJK, Arabic, Devanagari, Ethiopic, Armenian).
_TERMINAL = frozenset(
    ".!?\u2026:;\u3002\uff01\uff1f\uff61\u061f\u0964\u0965\u1362\u0589\u203d\u2047\u2048\u2049\u061b"
)
_CLOSERS = "\"'\u201d\u2019\u00bb)]*_`>~ "


@rule(
    "broken_ending",
    Severity.CRITICAL,
    FAMILY,
    "Content cut off mid-sentence or at a heading, or ending in a JSON envelope.",
)
def broken_ending(ctx: Context) -> Iterator[Hit]:
    text = ctx.content.rstrip()
    if not text or ctx.truncated_from is not None:
        return
    if any(not f.closed for f in ctx.fences):
        return  # unclosed_code_fence reports it
    tail_start = max(0, len(text) - 20_000)
    envelope = _last_envelope(ctx, text, tail_start)
    if envelope is not None:
        yield Hit(envelope, len(text), "trailing JSON envelope after the article")
        return
    line_start = text.rfind("\n", 0, len(text)) + 1
    line = text[line_start:]
    stripped = line.strip()
    if re.match(r"#{1,6}(?:\s|$)", stripped):
        yield Hit(line_start, len(text), "ends at a heading with no section body")
        return
    if ctx.fences and ctx.fences[-1].end >= len(text):
        return  # ends with a closed code block
    if _is_structural(stripped):
        return
    core = stripped.rstrip(_CLOSERS)
    if not core:
        return
    last = core[-1]
    if last in _TERMINAL or unicodedata.category(last) in ("So", "Sk", "Pe", "Pf"):
        return
    yield Hit(max(line_start, len(text) - 80), len(text), "ends mid-sentence (truncated?)")


def _last_envelope(ctx: Context, text: str, tail_start: int) -> int | None:
    """Start of a trailing JSON object with envelope keys ("title", "content", ...). Searched in
    prose, so a JSON example inside a closed code fence is not an envelope."""
    if not text.rstrip("`").rstrip().endswith("}"):
        return None
    starts = [m.start() for m in _ENVELOPE_KEY.finditer(ctx.prose, tail_start, len(text))]
    return starts[-1] if starts else None


_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)])\s")
_LINK_END = re.compile(r"(?:\]\([^)\s]{0,2000}\)|https?://\S{0,2000}|\])$")


def _is_structural(line: str) -> bool:
    """Lines that legitimately end without punctuation: list items, tables, rules, links,
    images, HTML."""
    if _LIST_ITEM.match(line) or line.startswith(("|", "<", "![", "[", "---", "***", "___")):
        return True
    last_token = line.rsplit(None, 1)[-1][-2100:]
    return bool(_LINK_END.search(last_token))
