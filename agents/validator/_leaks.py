"""Critical: the model's own output that is not the article.

Reasoning tags, chat-template tokens, planning scaffolds and assistant chatter; looked for in the
title too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import at_word_start, word_matches, word_set
from schemas.records import Severity

FAMILY = "leaked_output"
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
