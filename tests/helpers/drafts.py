"""The one draft builder: `make_draft(content, **fields)`.

Its defaults are a short, clean draft with every commonly read field set (a title, a topic, two
sections, one research source); a test names the fields its assertions depend on, so the reason
for a value stands next to the assertion instead of in a builder of its own.
"""

from __future__ import annotations

from typing import Any

from schemas.records import DraftSubmitted

CONTENT = "## Grind\n\nUse a medium-fine grind.\n\n## Pour\n\nPour in slow circles."

DEFAULTS: dict[str, Any] = {
    "draft_id": "d-1",
    "version": 1,
    "title": "How to brew pour-over coffee",
    "topic": "pour-over coffee brewing",
    "research_sources": ("https://example.com/coffee",),
}


def make_draft(content: str = CONTENT, **fields: Any) -> DraftSubmitted:
    """A DraftSubmitted with `content` and the defaults above, any field replaced by `fields`
    (unknown names fail as DraftSubmitted's own TypeError)."""
    return DraftSubmitted(content=content, **{**DEFAULTS, **fields})


# Sample bodies for tests that run the real validator: plain facts, no statistics, no links, long
# enough for its length rules (CLEAN passes it), and the same behind an AI refusal (a critical
# finding: CRITICAL is rejected at once).
KETTLES = (
    "Electric kettles heat water with a coiled element under the base. Most models switch off "
    "when a bimetallic strip senses steam. Descale them every few months where water is hard. "
)
REFUSAL = "As an AI language model, I cannot write this article. "
CLEAN = KETTLES * 6
CRITICAL = REFUSAL + CLEAN
