"""Critical: text about the text, left in the article (the concept behind `_leaks`' scaffold
labels), in the forms those labels miss.

- publishing metadata: "SEO Keywords:", "Focus keyphrase:", "Title options:", "Suggested
  title:", "Excerpt:", "OG description:";
- the model's working labels: "Thought process:", "Key points to cover:", "Sections to
  include:";
- an outline heading ("## Outline", "## Article outline") and section word budgets
  ("Introduction (150 words):", "- Section 2: Guarantees (300 words)");
- the brief echoed as labels: two of "Tone:", "Audience:", "Angle:", "Goal:", "Search intent:"
  ... opening lines;
- draft versions and end markers: "Draft v2", "(incorporating your feedback)", "[End of
  article]", a line "End of draft.";
- acknowledgements to the requester: "Great question!".

Labels count only where a label goes: opening a line (bare, bold, bulleted or as a heading).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._injection_placement import quoted
from agents.reviewers.validator._leaks import FAMILY
from agents.reviewers.validator._text import line_start_matches, phrase_matches, phrases
from schemas.records import Severity

# Optional markup before a label: a bullet, a heading mark, bold or italics.
_LEAD = r"\n[ \t]*(?:[-*+][ \t]+)?(?:#{1,6}[ \t]+)?[*_]{0,2}"
_LABEL = re.compile(
    _LEAD + r"(?:seo (?:keywords?|keyphrases?|tags|notes|metadata|description)|focus (?:key"
    r"(?:word|phrase)s?|keywords?)|secondary keywords?|lsi keywords|keyword (?:list|ideas)"
    r"|(?:seo )?meta (?:title|description)|title (?:options|ideas|suggestions)"
    r"|suggested (?:titles?|headlines?|slug"
    r"|excerpt|tags)|alternative (?:titles?|headlines?)|headline (?:options|ideas)|url slug"
    r"|excerpt|og[ :_-]?(?:title|description)|open graph (?:title|description)|canonical url"
    r"|schema markup|internal linking (?:suggestions|ideas|opportunities)|image (?:suggestions"
    r"|ideas|prompts?)|alt text suggestions|thought process|chain of thought|my reasoning"
    r"|internal monologue|self-critique|(?:key )?(?:points|topics|sections|things|ideas|facts"
    r"|questions) to (?:cover|include|mention|address|discuss|hit|answer)|content brief"
    r"|writing brief|brief summary for the writer)"
    # a length note before the colon: "Meta description (155 chars):"
    r"(?:[ \t]*\((?:max\.? |~ ?|under |up to )?\d{1,4} ?(?:chars?|characters|words)\))?"
    r"[*_]{0,2}[ \t]*:"
)
# The rare word of each label (set lookups: a clean draft scans for none of them).
_LABEL_GATE_WORDS = (
    "seo keyphrase keyphrases keyword keywords slug excerpt og canonical lsi options ideas"
    " suggestions suggested alternative headline headlines thought chain reasoning monologue"
    " self-critique cover include mention address discuss hit answer brief markup prompts"
    " prompt opportunities meta graph"
)
_LABEL_GATE = frozenset(_LABEL_GATE_WORDS.split())
_OUTLINE_HEADING = re.compile(
    r"\n#{1,6}[ \t]+(?:outline|(?:article|content|blog|post|draft|proposed|suggested) outline"
    # (not "## Metadata", "## SEO checklist" or "## Changes made": topics a post may have)
    r"|writing plan|seo (?:notes|metadata) for (?:this|the) (?:post|article)|notes for (?:the )?"
    r"editor|editor(?:['\u2019]s)? notes|revision notes|title options|suggested titles"
    r"|thought process)[ \t]*:?[ \t]*(?=\n|$)"
)
# "Introduction (150 words):", "- Section 2: Guarantees (300 words)", "## Setup (~200 words)".
_BUDGET = re.compile(r"\(~? ?\d{2,4}(?:[-\u2013]\d{2,4})? words?\)")
_BUDGET_LINE = re.compile(r"[ \t]*(?:[-*+][ \t]+|#{1,6}[ \t]+|\d{1,2}[.)][ \t]+|[*_]{1,2})")
_BUDGET_END = re.compile(r"[*_]{0,2}[ \t]*(?::|\n|$)")
# Brief labels: one may open a line in any post ("Goal: ..."), two of them are an echoed brief.
_BRIEF = re.compile(
    # (not "Length:", "Format:", "Style:": a spec list has those)
    _LEAD + r"(tone|audience|target audience|target reader|voice|angle|goal|purpose"
    r"|target length|cta|call to action|search intent|persona|reader persona"
    r"|content type|point of view|pov|key message|primary keyword)[*_]{0,2}[ \t]*:"
)
_BRIEF_INLINE = re.compile(
    r"[.;] (tone|audience|target audience|voice|angle|goal|purpose|search intent|persona)"
    r"[ \t]*:"
)
_BRIEF_GATE_WORDS = "tone audience voice angle goal purpose cta persona pov intent"
_BRIEF_GATE = frozenset(_BRIEF_GATE_WORDS.split())
_MARKERS = phrases(
    (
        "end",
        r"\[end of (?:the )?(?:article|post|blog post|draft|response|content|text|piece"
        r"|output)\]|\(end of (?:the )?(?:article|post|draft|response)\)",
    ),
    (
        "feedback edits changes suggestions comments revisions",
        r"\((?:[\w -]{1,30}, )?(?:incorporating|reflecting|based on|with|after|addressing)"
        r" (?:[\w'\u2019-]+ ){0,2}?(?:feedback|edits|changes|suggestions|comments|revisions"
        r"|notes)\)",
    ),
    ("question", r"(?:great|good|excellent|fantastic) question!"),
)
_END_LINE = re.compile(
    r"\n[ \t]*[*_(\[]{0,2}end of (?:the )?(?:article|post|blog post|draft|response|content"
    r"|output)[.!]?[*_)\]]{0,2}[ \t]*(?=\n|$)"
)
# (in a blockquote or a list item too: "> Draft 2 of 3: tone adjusted")
_DRAFT_LINE = re.compile(
    r"\n[ \t>]*(?:[-*+][ \t]+)?(?:#{1,6}[ \t]+|\*\*|_)?(?:draft|rewrite|revision|revised draft)"
    r" (?:v|#|no\. ?)?\d{1,2}(?![\w.])"
)


@rule(
    "text_metadata",
    Severity.CRITICAL,
    FAMILY,
    "Text about the text left in the article: SEO metadata, title options, the model's working "
    'labels ("Thought process:"), an outline with word budgets, an echoed brief ("Tone: ... '
    'Audience: ..."), draft versions and end markers.',
)
def text_metadata(ctx: Context) -> Iterator[Hit]:
    low = ctx.lower
    found: list[tuple[int, int]] = []
    if not ctx.words.isdisjoint(_LABEL_GATE):
        found += line_start_matches(_LABEL, low)
    if "#" in low:
        found += line_start_matches(_OUTLINE_HEADING, low)
    if "words)" in low or "word)" in low:
        found += _budgets(ctx.prose, low)
    if not ctx.words.isdisjoint(_BRIEF_GATE):
        found += _brief(low)
    found += [(m.start(), m.end()) for m in phrase_matches(_MARKERS, low, ctx.words)]
    if "end" in ctx.words:
        found += line_start_matches(_END_LINE, low)
    if not ctx.words.isdisjoint(("draft", "rewrite", "revision")):
        found += line_start_matches(_DRAFT_LINE, low)
    last_end = -1
    for start, end in sorted(found):
        if start < last_end or quoted(ctx.prose, start, end):
            continue
        last_end = end
        label = ctx.prose[start:end].strip()[:50]
        yield Hit(start, end, f"text about the text left in: {label!r}")


def _budgets(text: str, low: str) -> Iterator[tuple[int, int]]:
    """A word budget on an outline line: a short line that is a list item or heading, or that
    ends (or opens a colon) right after the budget."""
    for match in _BUDGET.finditer(low):
        line_start = low.rfind("\n", max(0, match.start() - 160), match.start()) + 1
        if match.start() - line_start > 120:
            continue
        if (
            _BUDGET_LINE.match(text, line_start) is not None
            or _BUDGET_END.match(low, match.end()) is not None
        ):
            yield line_start, match.end()


def _brief(low: str) -> Iterator[tuple[int, int]]:
    """Two distinct brief labels near each other: on lines within a few hundred characters, or
    one opening a line and another later on it ("Tone: friendly. Audience: developers.")."""
    hits = [(start, end, low[start:end]) for start, end in line_start_matches(_BRIEF, low)]
    for i, (start, end, label) in enumerate(hits):
        name = label.strip(" \t\n*_-+#:")
        near = {other.strip(" \t\n*_-+#:") for s, _, other in hits[i + 1 :] if s - start < 400}
        line_end = low.find("\n", end)
        inline = _BRIEF_INLINE.search(low, end, line_end if line_end != -1 else len(low))
        if near - {name} or (inline is not None and inline.group(1) != name):
            yield start, end
            return
