"""Critical: placeholders the writer left for someone else to fill in.

Looked for in the title too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from agents.reviewers.validator._matches import leftmost
from agents.reviewers.validator._text import word_matches
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
            r"|author name|name of)(?![a-z])[^\]\n]{0,200}\]"
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
            r"| ?(?:add|insert) (?:a |an |the )?(?:source|citation|link|reference|url|quote"
            r"|statistic|stat|image|example|figure)s?(?: here)? ?\))",
        ),
        # template variables: {{name}}, {company_name}
        ("{", r"\{(?:\{[^{}\n]{1,100}\}\}|[a-z][a-z0-9]{0,30}(?:_[a-z0-9]{1,30}){1,4}\})"),
    )
)
_PLACEHOLDER_WORDS = re.compile(r"(?:TODO|TBD|FIXME|XXX)(?![\w])")
_PLACEHOLDER_GATE = ("todo", "tbd", "fixme", "xxx")


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
        found = [
            m
            for m in leftmost(candidates)
            if not (low[m.start()] == "(" and m.start() and low[m.start() - 1] == "]")
        ]
        if any(word in low for word in _PLACEHOLDER_GATE):
            found += word_matches(_PLACEHOLDER_WORDS, text)
        if "lorem ipsum" in low:
            found += _LOREM.finditer(low)
        for match in sorted(found, key=lambda m: m.start()):
            message = f"leftover placeholder {text[match.start() : match.end()][:60]!r}"
            yield Hit(match.start(), match.end(), message, in_title)


_LOREM = re.compile("lorem ipsum")
