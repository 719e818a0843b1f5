"""Critical, with a second chance: known-wrong facts from the fact_overrides table.

The one critical that does not short-circuit: the web fact-check may verify the claim (a
`fact_verified` finding at the same span), which clears it; see agents.aggregate.
"""

from __future__ import annotations

from collections.abc import Iterator

from agents.reviewers.validator._core import Context, Hit, rule
from schemas.records import Severity

FAMILY = "facts"
# A fact pattern is operator-written; it is still applied to untrusted text, one paragraph-sized
# window at a time, so a pattern that backtracks badly costs per window, not per document.
_WINDOW = 4000


@rule(
    "known_wrong_fact",
    Severity.CRITICAL,
    FAMILY,
    "A claim matching a fact_overrides pattern (a known-wrong fact), with its correction.",
)
def known_wrong_fact(ctx: Context) -> Iterator[Hit]:
    if not ctx.facts:
        return
    text = ctx.prose
    facts = [f for f in ctx.facts if f.literal is None or f.literal in ctx.lower]
    if not facts:
        return
    for start in range(0, len(text), _WINDOW):
        # Windows overlap by 200 characters so a claim across a boundary is still seen once.
        end = min(len(text), start + _WINDOW + 200)
        for fact in facts:
            for match in fact.pattern.finditer(text, start, end):
                if match.start() >= start + _WINDOW or match.end() == match.start():
                    continue
                yield Hit(match.start(), match.end(), f"known wrong: {fact.correction}")
