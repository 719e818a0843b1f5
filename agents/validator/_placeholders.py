"""Critical: placeholders the writer left for someone else to fill in.

Looked for in the title too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.validator._core import Context, Hit, rule
from agents.validator._text import word_matches
from schemas.records import Severity

FAMILY = "placeholder"
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
