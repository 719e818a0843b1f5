"""Critical: placeholders the writer left for someone else to fill in.

Looked for in the title too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._matches import leftmost
from agents.reviewers.validator._slots import slot_spans
from agents.reviewers.validator._text import word_matches, word_set
from schemas.records import Severity

FAMILY = "placeholder"
_MEDIA = r"(?:image|img|figure|fig|chart|photo|picture|video|diagram|graph|screenshot|table|map)"
_LINK_WORD = (
    r"(?:url|urls|link|links|source|sources|citation|cite|ref|reference|todo|tbd|placeholder|#"
    r"|\.\.\.|\u2026|<url>|<link>|(?:insert|add|your)[ _-]?(?:a[ _-]?)?(?:url|link|source)"
    r"(?:[ _-]?here)?|(?:url|link)[ _-]?here|internal[ _-]?(?:context[ _-]?)?(?:link|url|source)"
    # slugs that name the link instead of being one: (link-to-guide), (url_to_post)
    r"|(?:link|url)[ _-]?(?:to|for)[ _-][a-z][a-z _-]{0,40})"
)
# One pattern per leading literal ("[", "](", "(", "{"): a pattern starting with one literal is
# found with a fast substring search, an alternation of several starts is tried at every
# character. Each runs only when its literal occurs; overlaps are resolved as one alternation
# would (_matches.leftmost). Run on the lowercased prose; a placeholder in code or an HTML comment
# is not shown to readers.
_PLACEHOLDERS = tuple(
    (literal, re.compile(pattern))
    for literal, pattern in (
        (
            "[",
            # [IMAGE-1: ...], [Featured image: ...], [Figure 3: ...] not followed by a link target
            rf"\[(?:(?:[a-z-]{{1,20}} ){{0,2}}{_MEDIA}(?:[-_ ]?\d{{1,3}})? ?:"
            r"[^\]\n]{0,300}\](?![(\[])"
            r"|(?:insert|add|your|placeholder|todo|tbd|tk|link to|citation|source|company name"
            # (not a link's text: "[your dashboard](https://...)", "[source](https://...)")
            r"|author name|name of|paste|include link)(?![a-z])[^\]\n]{0,200}\](?!\()"
            # a bare [link], [url], [source] with no target after it (unless a reference
            # definition "[link]: ..." gives it one: see placeholder())
            r"|(?P<bare>link|url|source|citation|ref)\](?![(\[:])"
            # [INTERNAL SNIPPET 2], [internal source], [internal context]: the writer prompt's words
            r"| ?internal (?:snippets?|sources?|context|notes?|docs?|data|links?)(?: \d{1,3})? ?\]"
            # unresolved internal-link tokens: [posts/{slug}], [posts/abc-123], [POST_ID: 12]
            r"|posts?/\{[^\]}\n]{1,80}\}\]|posts?/[a-z0-9_-]{3,80}\](?!\()"
            r"|posts?[_ -]?id(?:[:=-] ?[^\]\n]{1,80})?\])",
        ),
        (
            "](",
            # link targets that are placeholder words: ](url), ](insert url here), ](example.com)
            rf"\]\((?: ?{_LINK_WORD} ?\)"
            r"|https?://(?:www\.)?example\.(?:com|org|net)(?:[/?#][^)\s]{0,200})?\))",
        ),
        (
            "(",
            # bare parentheticals standing in for a source: (source), (cite), (add source)
            r"\((?: ?(?:sources?|citations?|cite|references?|ref|links?|urls?)"
            r"(?: needed| here| tbd| to come)? ?\)"
            r"| ?(?:add|insert|include|paste|put) (?:a |an |the |your )?(?:source|citation|link"
            r"|reference|url|quote|statistic|stat|image|example|figure|screenshot)s?"
            r"(?: here)?(?: (?:to|for|of|on|from) [^)\n]{1,80})? ?\)"
            # a note that the claim still wants a source: "(needs a ref)", "(ref required)"
            r"| ?(?:needs?|requires?|wants?|find|get|check) (?:a |an |the |some )?(?:sources?"
            r"|citations?|cite|refs?|references?|links?)(?: (?:here|for this|for that))? ?\)"
            r"| ?(?:sources?|citations?|refs?|references?|links?) (?:required|missing|pending|tbc"
            r"|to follow|to add|to find|\?) ?\))",
        ),
        # <insert link>, <add source here>, {insert url}
        (
            "<",
            r"<(?:insert|add|paste|your|link|url|source)(?:[ _-][a-z0-9 _-]{0,60})?>",
        ),
        ("{", r"\{(?:insert|add|paste|your) [a-z0-9 _-]{1,60}\}"),
        # template variables: {{name}}, {company_name}
        ("{", r"\{(?:\{[^{}\n]{1,100}\}\}|[a-z][a-z0-9]{0,30}(?:_[a-z0-9]{1,30}){1,4}\})"),
    )
)
# Markers, not words in a sentence: "TODO list", "TBD-free", "XXX-XX-1234" are not slots.
_PLACEHOLDER_WORDS = re.compile(
    r"(?:TODO|TBD|FIXME|XXX)(?![\w-])(?! (?:lists?|comments?|apps?|items?|markers?|tags?|files?)"
    r"(?![a-z]))"
)
_PLACEHOLDER_GATE = ("todo", "tbd", "fixme", "xxx")
# Editor's notes in capitals: "INSERT LINK", "ADD THE SOURCE", "LINK HERE" (looked for only when
# the capitals occur: a case-sensitive substring check).
_SHOUTED = re.compile(
    r"(?:(?:INSERT|ADD) (?:A |THE )?(?:LINK|URL|SOURCE|CITATION|IMAGE)|(?:LINK|URL) HERE)(?![\w])"
)
_SHOUTED_GATE = ("INSERT ", "ADD ", "LINK HERE", "URL HERE")
_INSERT_VERBS = frozenset({"insert", "add", "paste"})
# Bare instructions to the editor at the end of a line or before "here": "- Pricing guide:
# insert link", "see our guide (link here)", "insert the URL here." ("to insert a link, press
# Ctrl+K" goes on, so it is not one).
_BARE_INSERT = re.compile(
    r"(?:insert|add|paste) (?:a |an |the |your )?(?:own |relevant |real |customer |client )?"
    r"(?:link|url|source|citation|reference|cta|call to action|quote|testimonial|statistic|stat"
    r"|case study|example|image|screenshot|diagram|chart|photo|bio|anecdote|story)s?"
    r"(?: here| to [^\n.,;:]{1,60} here)(?![a-z])"
)
# Found from the verb (a literal opening); the separator before it is checked in Python.
_NOTE_INSERT = re.compile(
    r"(?:insert|add|paste) (?:a |an |the |your )?(?:link|url|source|citation"
    r"|reference)s?(?: to [^\n.,;:]{1,60})?(?= ?[.)\]]? *(?:\n|$))"
)
_NOTE_SEPARATORS = (": ", "\u2013 ", "\u2014 ", "- ")


@rule(
    "placeholder",
    Severity.CRITICAL,
    FAMILY,
    "Leftover placeholders ([IMAGE-1: ...], [INTERNAL SNIPPET], ](url), (source), [posts/{slug}], "
    "{{var}}).",
)
def placeholder(ctx: Context) -> Iterator[Hit]:
    title_lower = ctx.title.lower()
    for text, low, in_title in ((ctx.prose, ctx.lower, False), (ctx.title, title_lower, True)):
        # "](source)" is the link-target form, already matched at its "]".
        candidates = [
            m for literal, pattern in _PLACEHOLDERS if literal in low for m in pattern.finditer(low)
        ]
        found = [m for m in leftmost(candidates) if _kept(low, m)]
        if any(word in low for word in _PLACEHOLDER_GATE):
            found += (
                m
                for m in word_matches(_PLACEHOLDER_WORDS, text)
                if m.start() == 0 or text[m.start() - 1] != "-"
            )
        if any(word in text for word in _SHOUTED_GATE):
            found += word_matches(_SHOUTED, text)
        words = ctx.words if not in_title else word_set(low)
        if not words.isdisjoint(_INSERT_VERBS):
            found += word_matches(_BARE_INSERT, low)
            found += (
                m
                for m in word_matches(_NOTE_INSERT, low)
                if low.endswith(_NOTE_SEPARATORS, max(0, m.start() - 2), m.start())
            )
        if "lorem ipsum" in low:
            found += _LOREM.finditer(low)
        spans = [(m.start(), m.end()) for m in found]
        spans += slot_spans(text, low, words)
        last_end = -1
        for start, end in sorted(spans):
            if start < last_end:
                continue  # "(insert link to the pricing page)" is one placeholder
            last_end = end
            message = f"leftover placeholder {text[start:end][:60]!r}"
            yield Hit(start, end, message, in_title)


_LOREM = re.compile("lorem ipsum")


def _kept(low: str, match: re.Match[str]) -> bool:
    """ "(source)" right after "]" is a link target (matched at its "]" already); a bare "[link]"
    is a placeholder unless it is a reference link: after "][", or with a "[link]: url"
    definition in the draft."""
    start = match.start()
    after_bracket = start > 0 and low[start - 1] == "]"
    if low[start] == "(":
        return not after_bracket
    bare = match.group("bare") if "bare" in match.re.groupindex else None
    if bare is None:
        return True
    return not after_bracket and f"[{bare}]:" not in low
