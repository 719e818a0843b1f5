"""Critical: the model's own output that is not the article.

Reasoning tags, chat-template tokens, planning scaffolds and assistant chatter; looked for in the
title too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._injection_placement import quoted
from agents.reviewers.validator._text import (
    at_word_start,
    line_start_matches,
    phrase_matches,
    phrases,
    word_matches,
    word_set,
)
from schemas.records import Severity

FAMILY = "leaked_output"
# Any tag of the reasoning family ("<reflection>", "<inner_monologue>", "<chain_of_thought>"),
# and the same words in capitals between brackets ("[THINKING]").
_REASONING = re.compile(
    r"</?(?:think|thinking|thoughts?|reasoning|reflection|scratchpad|analysis|inner_monologue"
    r"|internal_monologue|monologue|deliberation|chain_of_thought|cot|rationale|self_critique"
    r"|critique|planning|draft_notes)>"
)
_REASONING_CAPS = re.compile(r"\[/?(?:THINK|THINKING|THOUGHTS?|REASONING|SCRATCHPAD|ANALYSIS)\]")


@rule(
    "leaked_reasoning",
    Severity.CRITICAL,
    FAMILY,
    "Model reasoning tags left in the text (<think>, </thinking>).",
)
def leaked_reasoning(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        low = ctx.lower if not in_title else text.lower()
        found = list(_REASONING.finditer(low)) if "<" in low else []
        if "[" in text:
            found += _REASONING_CAPS.finditer(text)
        for match in sorted(found, key=lambda m: m.start()):
            yield Hit(match.start(), match.end(), "model reasoning tag", in_title)


# ChatML/Llama/Gemma/Harmony control tokens, and their mangled forms ("<|channel>", "<channel|>"):
# "<|" and "|>" never occur in prose, so any short token between them is a leak.
_CHAT_TOKEN = re.compile(
    r"<\|[a-z_/][a-z0-9_/-]{0,30}\|?>|<[a-z_]{2,20}\|>"
    r"|<</?sys>>|<start_of_turn>|<end_of_turn>|</?s>(?=\s|$)"
)
_INST = re.compile(r"\[/?INST\]")
# A speaker label opening a line, bare, bold or as a heading ("**Assistant:**", "### User:").
_ROLE_LINE = re.compile(
    r"^(?:#{1,6} |\*\*)?(?:Human|Assistant|System|User|ChatGPT|Claude)(?:\*\*)?:(?:\*\*)?(?= |$)",
    re.MULTILINE,
)
_ROLE_WORDS = ("Human:", "Assistant:", "System:", "User:", "ChatGPT:", "Claude:")


@rule(
    "chat_template_token",
    Severity.CRITICAL,
    FAMILY,
    "Chat-template tokens or role markers (<|im_start|>, [INST], Assistant:).",
)
def chat_template_token(ctx: Context) -> Iterator[Hit]:
    for text, in_title in ((ctx.prose, False), (ctx.title, True)):
        low = ctx.lower if not in_title else text.lower()
        found = list(_CHAT_TOKEN.finditer(low)) if "<" in low else []
        if "INST]" in text:
            found += _INST.finditer(text)
        if any(word in text for word in _ROLE_WORDS):
            found += _ROLE_LINE.finditer(text)
        for match in sorted(found, key=lambda m: m.start()):
            yield Hit(match.start(), match.end(), "chat-template token", in_title)


# Found from the newline before the label (see _text.line_start_matches: a pattern starting with
# "^" in MULTILINE mode is tried at every position).
_SCAFFOLD = re.compile(
    r"\n {0,3}(?:(?:#{1,6} |\*\*)?(?:outline|plan|article plan|draft outline|my plan|thinking|"
    r"notes to self|word count|target word count|target keywords?|primary keyword|"
    r"seo title|meta description|slug|writer notes?|step \d{1,2}: (?:research|outline|write|"
    r"draft|plan))(?:\*\*)? ?:"
    r"|(?:#{1,6} )?(?:revised (?:article|draft|version)|final (?:article|draft))(?:\*\*)?"
    r" ?:? *(?=\n|\Z))"
)


@rule(
    "planning_scaffold",
    Severity.CRITICAL,
    FAMILY,
    "Planning scaffolds left in the article (Outline:, Meta description:, Word count:).",
)
def planning_scaffold(ctx: Context) -> Iterator[Hit]:
    found = list(line_start_matches(_SCAFFOLD, ctx.lower))
    for gate, pattern in _WORD_COUNT_NOTES:
        if not ctx.words.isdisjoint(gate):
            # "_Word count: 812_" (italics) starts a word too
            found += [
                (m.start(), m.end())
                for m in pattern.finditer(ctx.lower)
                if m.start() == 0 or not ctx.lower[m.start() - 1].isalnum()
            ]
    last_end = -1
    for start, end in sorted(found):
        if start < last_end:
            continue
        last_end = end
        label = ctx.prose[start:end].strip()[:40]
        yield Hit(start, end, f"planning scaffold {label!r}")


# A note of the article's length, anywhere ("*(Word count: 1,042)*", "[~1,200 words]", "This
# draft comes in at about 950 words"); "keep your word count under 300" is advice, not a note.
_APPROX = r"(?:~ ?|approx(?:imately|\.)? |about |around |roughly |total:? |est\.? )"
_WORD_COUNT_NOTES = phrases(
    ("count", rf"word count ?(?:[:=\u2014\u2013]|- ) ?{_APPROX}?\d[\d,.]*"),
    ("words", rf"[(\[]{_APPROX}\d[\d,.]* words?[)\]]"),
    (
        "words",
        r"(?:this|the) (?:article|post|draft|piece|blog post|final draft) (?:is|comes in at"
        rf"|runs(?: to)?|clocks in at|totals) {_APPROX}?(?:exactly )?\d[\d,.]* words(?![a-z])",
    ),
    ("total", r"total words ?: ?\d"),
)


# Planning notes and echoed writer instructions. One tell can be innocent ("vary sentence
# length" in a post about writing); two distinct ones are a leaked plan (upstream's rule).
_PLAN_PHRASES = phrases(
    # echoed writer rules and revision briefs
    ("tested", r"models? used ?/ ?tested"),
    ("vary", r"vary sentence length"),
    ("brackets", r"no placeholder brackets"),
    ("delve", r"avoid [\"'\u201c\u2018]?delve"),
    ("concluding", r"concluding paragraph"),
    ("revise revised revising", r"revis(?:e|ed|ing) (?:a|the|this) draft(?: article)?(?![a-z])"),
    ("markdown", r"return (?:complete )?markdown body only"),
    ("preserve", r"preserve (?:the article['\u2019]s )?structure,? headings"),
    ("verify", r"verify markdown structure"),
    ("sections section", r"(?:no|do not add) new sections?(?![a-z])"),
    ("fix fixes", r"the fix(?:es)? list(?![a-z])"),
    # paraphrased expand/revise instructions (upstream's "instruction shapes")
    ("expand", r"expand (?:a|an|the|this) (?:[\w~-]+ ){0,3}draft(?![a-z])"),
    ("words", r"(?:approximately|closer to|about|around) ~?\d[\d,]* words(?![a-z])"),
    ("pad padding", r"(?:do not|don['\u2019]?t) pad(?![a-z])|no padding(?![a-z])"),
    ("preamble", r"no preamble(?![a-z])"),
    ("preserve", r"preserve (?:all|every|existing) (?:facts|headings|links)(?![a-z])"),
    ("genuine", r"genuine (?:added )?substance"),
    ("complete", r"end(?:ing)? on a complete sentence"),
    ("count", r"check word count"),
    # source inventories and citation mechanics from a planning dump
    ("material", r"source material(?![a-z])"),
    ("provided", r"provided sources?(?![a-z])|sources? provided(?![a-z])"),
    ("snippet snippets", r"internal snippets?(?![a-z])"),
    ("irrelevant", r"discard irrelevant|irrelevant (?:sources?|data|snippets?|material)(?![a-z])"),
    ("attribute", r"attribute facts"),
    (
        "ensure inline preserved",
        r"ensure (?:all |inline )?links|inline links use|links (?:are )?preserved",
    ),
)
# Planning labels opening a bullet ("* Topic:", "* *Introduction:*", "* SEO Value:", "* User
# wants ...", "* Shifted from ..."), found from the newline before them.
_PLAN_LABEL = re.compile(
    r"\n[ \t]*[*+-][ \t]+(?:\*{0,2}(?:topic|voice|tone|audience|structure|outline|angle"
    r"|key elements?|key concepts?|task|constraints?(?: \d{1,2})?|fix \d{1,2}|writer model"
    r"|target length|word count|target keywords?|seo value|seo keywords|neutral tone"
    r"|no provocative tone)\*{0,2}[ \t]*:"
    r"|\*(?:intro(?:duction)?|conclusion|opening|closing)[ \t]*:?\*"
    r"|(?:the )?user (?:wants|asked|is asking)(?![a-z])"
    r"|(?:focus(?:es|ed)|shift(?:s|ed)|pivot(?:s|ed)) (?:on|from|to|toward)(?![a-z]))"
)
# Verbatim instruction phrases from writer prompts, prompt vocabulary no article uses: one is
# enough.
_PROMPT_ECHO = phrases(
    ("revise", r"revise a draft article based on"),
    ("elements element", r"key elements? from (?:the )?(?:sources|research|snippets)"),
    ("complete", r"return (?:the )?complete (?:revised article|markdown body)"),
    ("placeholders", r"no placeholders like \["),
    ("snippets", r"use only (?:the )?provided snippets"),
    ("stakes", r"lead with stakes"),
    ("bundle", r"thread (?:the )?bundle facts"),
    ("reflection", r"close with reflection"),
    # the model's order to itself after its notes: "Now write the post from these points"
    (
        "write",
        r"(?:now|next),? write (?:the|this|an?|my) (?:article|post|blog post|draft|piece)"
        r" (?:from|based on|using|around) (?:these|those|the above|the following|this|the)"
        r" (?:points|notes|bullets|facts|sources|snippets|material|research|findings)(?![a-z])",
    ),
)


@rule(
    "leaked_plan",
    Severity.CRITICAL,
    FAMILY,
    "The writer's plan or instructions echoed into the article (two planning tells, or a "
    "verbatim prompt phrase).",
)
def leaked_plan(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    for echo in phrase_matches(_PROMPT_ECHO, low, ctx.words):
        text = ctx.prose[echo.start() : echo.end()]
        yield Hit(echo.start(), echo.end(), f"writer instructions echoed: {text!r}")
        return
    found = [(m.start(), m.end()) for m in phrase_matches(_PLAN_PHRASES, low, ctx.words)]
    found += line_start_matches(_PLAN_LABEL, low)
    distinct = {" ".join(low[a:b].strip(" \t*+-:").split()) for a, b in found}
    if len(distinct) >= 2:
        found.sort()
        tells = ", ".join(sorted(distinct)[:4])
        message = f"leaked writer plan ({len(distinct)} tells: {tells})"
        yield Hit(found[0][0], found[0][1], message)


# The model thinking aloud: a line opening with an interjection and a plan ("Okay, let me ...",
# "Alright, so the user wants ..."), or two of the weaker tells anywhere.
_DELIBERATION_OPENING = re.compile(
    r"\n[ \t>*-]*(?:okay|ok|alright|all right|hmm+|right)[,.!]? ?(?:so[, ]|let me |let['\u2019]s "
    r"|i['\u2019]ll |i will |i should |i need to |i think |the user |first,? i)"
)
_DELIBERATION_STRONG = phrases(
    (
        "think",
        r"let me think about how to (?:structure|approach|write|organi[sz]e|frame|answer|respond"
        r"|start)",
    ),
    # deciding how to write this very text: "Thinking about how to open this: maybe ...",
    # "Deciding how best to structure the post"; then "Right, writing it now."
    (
        "thinking deciding wondering figuring working",
        r"(?:thinking|deciding|wondering|figuring out|working out) (?:about )?how (?:best )?"
        r"(?:to|i should|i{_A}ll) (?:open|start|begin|structure|approach|frame|end|close"
        r"|organi[sz]e|pitch|lead) (?:this|it|the (?:post|article|piece|intro|introduction"
        r"|draft|opening))(?![a-z])".replace("{_A}", "['\u2019]"),
    ),
    (
        "writing drafting starting",
        r"(?:right|ok|okay|alright|all right|good)[,.!]? (?:now )?(?:writing|drafting|starting)"
        r" (?:it|this|the (?:post|article|draft|piece)) (?:now|up)(?![a-z])",
    ),
)
_DELIBERATION_TELLS = phrases(
    (
        "user user's user\u2019s",
        r"the user(?:['\u2019]s)? (?:own )?(?:wants|asked|asks|is asking|requested|needs|would like"
        r"|has asked|analysis|says|provided|thinks|concludes)(?![a-z])",
    ),
    (
        "prompt brief instruction instructions assignment task",
        r"the (?:prompt|brief|instructions?|assignment|task) (?:says|said|asks|asked|wants"
        r"|requires|specifies|is asking|explicitly)(?![a-z])",
    ),
    (
        "i i'll i\u2019ll",
        r"i(?:['\u2019]ll| will| should| need to) (?:keep it|keep the|structure|avoid|mention|cover"
        r"|aim for|start with|open with|end with|make sure|stay|write about)(?![a-z])",
    ),
    ("let", r"let me (?:think|plan|outline|structure|brainstorm|draft|figure out)(?![a-z])"),
    ("let", r"let(?:['\u2019]s| me) (?:re-?read|re-?check|double-?check|look again)(?![a-z])"),
    ("am", r"am i (?:overstepping|violating|missing|supposed)(?![a-z])"),
    (
        "i'll i\u2019ll",
        r"i['\u2019]ll (?:provide|output|return|keep|leave) the (?:original|revised|final)",
    ),
)


@rule(
    "model_deliberation",
    Severity.CRITICAL,
    FAMILY,
    'The model reasoning about its task in the text ("Okay, let me think about how to structure '
    'this", "the user wants").',
)
def model_deliberation(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    strong = sorted(
        [
            *line_start_matches(_DELIBERATION_OPENING, low),
            *((m.start(), m.end()) for m in phrase_matches(_DELIBERATION_STRONG, low, ctx.words)),
        ]
    )
    if strong:
        # One finding per line: "Okay, let me think about how to ..." is one slip, not two.
        lines: set[int] = set()
        for start, end in strong:
            line = low.rfind("\n", 0, start)
            if line in lines:
                continue
            lines.add(line)
            yield Hit(start, end, f"model thinking aloud: {ctx.prose[start:end].strip()!r}")
        return
    found = list(phrase_matches(_DELIBERATION_TELLS, low, ctx.words))
    distinct = {m.group(0) for m in found}
    if len(distinct) >= 2:
        first = min(found, key=lambda m: m.start())
        yield Hit(first.start(), first.end(), f"model thinking aloud ({len(distinct)} tells)")


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
        (
            "below",
            r"below is (?:the|your|a|an) (?:revised |rewritten |updated |improved |final "
            r"|complete |full |polished |expanded )?(?:article|blog post|post|draft|version"
            r"|rewrite)(?![a-z])",
        ),
        # ("I hope this helps you decide" is said to a reader)
        (
            "hope",
            r"i hope (?:this|that) (?:article )?helps(?= ?[!.,;)]|\s*$)|i hope (?:this|that)"
            r" meets your(?![a-z])",
        ),
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
# "an AI" is the anchor; what precedes it ("as an AI", "I'm an AI", "I am just an AI") and what
# follows decide. The disclaimer is "as an AI" alone or with a word for the model itself ("as an
# AI language model, I"); "as an AI researcher" is a sentence about a person's job.
_AN_AI = re.compile(
    r"an ai(?: language model| assistant| chatbot| model| system| bot| program)?"
    rf"(?=[,.;:!?)\u2014]|\s*$|\s+(?:i|i{_APOS}m|and|developed|created|trained|built|made|"
    r"without|by|from|like|with|that|who|which|cannot|can{_APOS}t|don{_APOS}t|do|does)(?![a-z]))"
)
_AN_AI_BEFORE = re.compile(
    rf"(?:as |being (?:just |only )?|i{_APOS}m (?:just |only )?|i am (?:just |only )?)$"
)
_DISCLAIMER = phrases(
    ("language", r"as a (?:large )?language model"),
    (
        "experience experiences opinions feelings ability real-time",
        r"i (?:don['\u2019]t|do not) have (?:personal )?(?:experiences?|opinions|feelings"
        r"|the ability to|access to real-time)(?![a-z])",
    ),
)
_OPENING_WORDS = frozenset(
    {"sure", "certainly", "course", "absolutely", "okay", "ok", "alright", "got", "understood"}
)
# An acknowledgement opening a line, then the model presenting its text ("Absolutely! Here's a
# detailed guide.", "Got it, I've shortened the intro.").
_CHATTER_OPENING = re.compile(
    r"\n(?:Sure|Certainly|Of course|Absolutely|Okay|OK|Alright|Got it|Understood)[!,.] "
    r"(?=[^\n]{0,80}(?:here|below|blog|article|post|draft|guide|version|rewrite|response"
    r"|I['\u2019]ve|I have|I['\u2019]ll|I will|let me|as requested))"
)


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
        found += [(m.start(), m.end()) for m in phrase_matches(_DISCLAIMER, low, words)]
        for match in _AN_AI.finditer(low) if "ai" in words else ():
            before = _AN_AI_BEFORE.search(low, max(0, match.start() - 12), match.start())
            if before is not None and at_word_start(low, before.start()):
                found.append((before.start(), match.end()))
        if not words.isdisjoint(_OPENING_WORDS):
            found += line_start_matches(_CHATTER_OPENING, text)
        for start, end in sorted(found):
            # Chatter shown in quotation marks or a blockquote is an example being discussed
            # ("the model replied 'As an AI language model, ...'"), not leaked output.
            if not in_title and quoted(text, start, end):
                continue
            yield Hit(start, end, "assistant chatter", in_title)
