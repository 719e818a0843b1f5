"""Critical: text aimed at the reviewers rather than the reader.

Drafts are untrusted input to LLM reviewers; nothing in a draft may change how it is judged. This
rule looks at the whole content, code blocks and HTML comments included (a model reads those too),
and the title, after removing invisible characters that would otherwise split the words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import strip_invisible
from schemas.records import Severity

FAMILY = "injection"

_REVIEWER = (
    r"(?:ai|llm|model|language model|reviewer|grader|evaluator|judge|critic|assistant|"
    r"fact-?checker|qa (?:system|bot|agent)|scoring (?:system|model))s?"
)
_INJECTION = re.compile(
    # "ignore all previous instructions", "disregard the above rules"
    r"(?i:\b(?:ignore|disregard|forget|override|bypass|skip) "
    r"(?:all |any |the |your |my |of |these |those ){0,3}"
    r"(?:previous |prior |above |earlier |preceding |foregoing |system |original |"
    r"existing |grading |scoring |review )?(?:instructions|prompts?|rules|guidelines|directions|"
    r"criteria|context)\b"
    # "give this article a score of 100", "rate this 10/10"
    r"|\b(?:give|assign|award|grant) (?:this|the|my|it|us)\b[^.\n]{0,40}?"
    r"(?:score|rating|grade|marks?) (?:of )?(?:100|10|ten|a perfect|full|the maximum|max)\b"
    r"|\b(?:give|assign|award|grant) (?:this|the|my|it)\b[^.\n]{0,40}?(?:a )?(?:perfect|full|"
    r"maximum|top|100) (?:score|rating|grade|marks)\b"
    r"|\b(?:rate|score|grade|mark) (?:this|it|the (?:article|post|draft|content|text))"
    r" (?:as |at |a |an )?(?:100|10/10|10 out of 10|perfect|excellent|highly|approved)\b"
    r"|\b(?:note|message|instructions?|attention|hint|notice) (?:to|for) (?:the |any |all )?"
    rf"{_REVIEWER}\b"
    rf"|\b(?:dear|hey|hello|attention) {_REVIEWER}\b"
    rf"|\b(?:you are|you're|act as|pretend to be|behave as) (?:now )?(?:a |an |the )?"
    rf"(?:helpful |lenient |generous |friendly |kind )?{_REVIEWER}\b"
    r"|\b(?:must|should|will|shall|have to) (?:approve|pass|accept|publish) (?:this|the) "
    r"(?:article|post|draft|content|submission|piece|text)\b"
    r"|\b(?:approve|pass|accept) (?:this|the) (?:article|post|draft|content|submission|piece)"
    r" (?:without|regardless|immediately|automatically|unconditionally)\b"
    r"|\bnew (?:system )?instructions ?:"
    r"|\b(?:begin|start|end) (?:of )?(?:system|admin|developer) (?:message|prompt|override)\b"
    r"|\bdo not (?:flag|penali[sz]e|report|mention) (?:any |the )?(?:issues|errors|problems|"
    r"findings|this)\b)"
)
# A reviewer's verdict spelled out in prose (in code it is more likely an API example).
_VERDICT_JSON = re.compile(r'"(?i:approved)" ?: ?true\b|"(?i:score|final_score)" ?: ?100\b')
# Hidden HTML comments are invisible to readers: anything addressed to a reviewer there is
# aimed at the model.
_COMMENT_TARGET = re.compile(
    rf"(?i:\b{_REVIEWER}\b|\bscore\b|\bapprove|\binstruction|\bprompt\b|\brating\b)"
)


@rule(
    "prompt_injection",
    Severity.CRITICAL,
    FAMILY,
    'Instructions aimed at the reviewers ("ignore previous instructions", "score this 100").',
)
def prompt_injection(ctx: Context) -> Iterator[Hit]:
    visible = strip_invisible(ctx.content)
    for match in _INJECTION.finditer(visible.text):
        start, end = visible.original(match.start()), visible.original(match.end())
        yield Hit(start, end, f"instruction aimed at the reviewers: {match.group(0)[:80]!r}")
    for start, end in _html_comments(visible.text):
        if _COMMENT_TARGET.search(visible.text, start + 4, end - 3):
            yield Hit(
                visible.original(start),
                visible.original(end),
                "hidden HTML comment addressed to the reviewers",
            )
    for match in _VERDICT_JSON.finditer(ctx.prose):
        yield Hit(match.start(), match.end(), f"reviewer verdict in the text: {match.group(0)!r}")
    title = strip_invisible(ctx.title).text
    for match in _INJECTION.finditer(title):
        yield Hit(match.start(), match.end(), "instruction aimed at the reviewers", True)


def _html_comments(text: str) -> Iterator[tuple[int, int]]:
    """[start, end) of each <!-- ... --> comment; comments do not nest, so one forward pass with
    str.find is linear whatever the input."""
    pos = text.find("<!--")
    while pos != -1:
        close = text.find("-->", pos + 4)
        if close == -1:
            return
        yield pos, close + 3
        pos = text.find("<!--", close + 3)
