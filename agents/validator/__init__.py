"""The programmatic validator: deterministic regex/heuristic rules over a draft.

`validate(content, title=..., settings=..., facts=..., niche=...)` is pure and returns a
`ValidationReport`; `SPECS` publishes it as the reviewer "validator" (provider programmatic).
Score = 100 - 10 x criticals - 3 x warnings, floored at 0; approved = no criticals.
Rule families live in one small module each; `rules()` lists them all (code, severity, family).
"""

from __future__ import annotations

import asyncio
import logging

from agents.base import Deps, ReviewerSpec
from agents.facts import FactOverride, load_facts
from agents.settings import Settings

# Importing the family modules registers their rules (order = report order for equal offsets).
from agents.validator import (  # noqa: F401
    _citations,
    _company,
    _experience,
    _facts,
    _injection,
    _leaks,
    _people,
    _placeholders,
    _shape,
    _statistics,
    _style,
    _truncation,
)
from agents.validator._core import Rule, ValidationReport, rules, validate
from schemas.records import DraftSubmitted, Finding, Provider, ReviewerResult, Severity

log = logging.getLogger("multiqa.validator")

NAME = "validator"
# Above this size validation runs in a worker thread so it cannot stall the event loop.
_THREAD_ABOVE_CHARS = 100_000


def rule_codes() -> frozenset[str]:
    return frozenset(r.code for r in rules())


async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    notes: list[Finding] = []
    facts: tuple[FactOverride, ...] = ()
    if deps.facts is not None:
        facts = tuple(deps.facts)
    elif deps.pool is not None:
        try:
            facts = await load_facts(deps.pool)
        except Exception as exc:  # the database being down must not stop the other rules
            log.warning("fact_overrides could not be loaded: %s", exc)
            notes.append(
                Finding("facts_unavailable", Severity.INFO, f"known-wrong facts not checked: {exc}")
            )

    def run() -> ValidationReport:
        return validate(
            draft.content, title=draft.title, settings=settings, facts=facts, niche=draft.niche
        )

    report = await asyncio.to_thread(run) if len(draft.content) > _THREAD_ABOVE_CHARS else run()
    return ReviewerResult(
        NAME,
        report.approved,
        report.score,
        report.summary(),
        Provider.PROGRAMMATIC,
        findings=report.findings + tuple(notes),
    )


SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(NAME, Provider.PROGRAMMATIC, review, enabled=lambda settings: True, paid=False),
)

__all__ = ["SPECS", "Rule", "ValidationReport", "review", "rule_codes", "rules", "validate"]
