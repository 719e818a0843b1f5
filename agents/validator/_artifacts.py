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
from schemas.records import Severity

FAMILY = "artifacts"

_PLACEHOLDER = re.compile(
    r"(?i:\[(?:image|img|figure|fig|chart|photo|picture|video|diagram|graph|screenshot|table)"
    r"[-_ ]?\d{0,3} ?:[^\]\n]{0,300}\]"
    r"|\[(?:insert|add|your|placeholder|todo|tbd|tk|link to|citation|source|company name|"
    r"author name|name of)\b[^\]\n]{0,200}\]"
    r"|\]\((?:url|link|source|#|<url>|\.\.\.|https?://(?:www\.)?example\.(?:com|org)[^)\s]{0,200})\)"
    r"|\((?:source|link|citation|url|citation needed)\)"
    r"|\{\{[^{}\n]{1,100}\}\}"
    r"|\blorem ipsum\b)"
    r"|\b(?:TODO|TBD|FIXME|XXX)\b:?"
)


@rule(
    "placeholder",
    Severity.CRITICAL,
    FAMILY,
    "Leftover placeholders ([IMAGE-1: ...], [INSERT ...], ](url), (source), {{var}}).",
)
def placeholder(ctx: Context) -> Iterator[Hit]:
    for match in _PLACEHOLDER.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), f"leftover placeholder {match.group(0)[:60]!r}")
    for match in _PLACEHOLDER.finditer(ctx.title):
        yield Hit(match.start(), match.end(), f"leftover placeholder {match.group(0)[:60]!r}", True)


_REASONING = re.compile(r"(?i:</?(?:think|thinking|reasoning|scratchpad|analysis)>)")


@rule(
    "leaked_reasoning",
    Severity.CRITICAL,
    FAMILY,
    "Model reasoning tags left in the text (<think>, </thinking>).",
)
def leaked_reasoning(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        for match in _REASONING.finditer(text):
            yield Hit(match.start(), match.end(), "model reasoning tag", in_title)


_CHAT_TOKEN = re.compile(
    r"<\|(?:im_start|im_end|im_sep|endoftext|eot_id|eom_id|start_header_id|end_header_id|"
    r"begin_of_text|end_of_text|system|user|assistant|end|channel|message|return)\|>"
    r"|\[/?INST\]|<</?SYS>>|<start_of_turn>|<end_of_turn>|</?s>(?=\s|$)"
    r"|^(?:Human|Assistant|System|User):(?= )",
    re.MULTILINE,
)


@rule(
    "chat_template_token",
    Severity.CRITICAL,
    FAMILY,
    "Chat-template tokens or role markers (<|im_start|>, [INST], Assistant:).",
)
def chat_template_token(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        for match in _CHAT_TOKEN.finditer(text):
            yield Hit(match.start(), match.end(), "chat-template token", in_title)


_SCAFFOLD = re.compile(
    r"^ {0,3}(?:#{1,6} |\*\*)?(?i:outline|plan|article plan|draft outline|my plan|thinking|"
    r"notes to self|word count|target word count|target keywords?|primary keyword|"
    r"seo title|meta description|slug|writer notes?|step \d{1,2}: (?:research|outline|write|"
    r"draft|plan))(?:\*\*)? ?:"
    r"|^ {0,3}(?:#{1,6} )?(?i:revised (?:article|draft|version)|final (?:article|draft))(?:\*\*)?"
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
    for match in _SCAFFOLD.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), f"planning scaffold {match.group(0).strip()[:40]!r}")


_CHATTER = re.compile(
    r"(?i:\bas an ai(?: language model| assistant| model)?\b"
    r"|\bi(?:'m| am) (?:just )?an ai\b"
    r"|\bi (?:cannot|can't|can not|don't have the ability to) (?:browse|access) "
    r"(?:the internet|real-time|external)"
    r"|\bmy (?:knowledge|training) cut-?off\b"
    r"|\bhere(?:'s| is) (?:the|your|a|an) (?:revised |rewritten |updated |improved |final |"
    r"complete |full |polished |expanded )?(?:article|blog post|post|draft|version|content|"
    r"rewrite)\b"
    r"|\bi hope (?:this|that) (?:helps|article helps|meets your)\b"
    r"|\blet me know if you(?:'d| would)? (?:like|want|need)\b"
    r"|\bfeel free to (?:adjust|modify|tweak|edit) (?:the|this|it)\b)"
    r"|^(?:Sure|Certainly|Of course|Absolutely)[!,.] ",
    re.MULTILINE,
)


@rule(
    "assistant_chatter",
    Severity.CRITICAL,
    FAMILY,
    'The model talking to its user ("As an AI language model", "Here is the revised article").',
)
def assistant_chatter(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        for match in _CHATTER.finditer(text):
            yield Hit(match.start(), match.end(), "assistant chatter", in_title)


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
