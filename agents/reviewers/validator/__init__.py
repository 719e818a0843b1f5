"""The programmatic validator: deterministic regex/heuristic rules over a draft.

`validate(content, title=..., settings=..., facts=..., niche=...)` is pure and returns a
`ValidationReport`; `SPECS` publishes it as the reviewer "validator" (provider programmatic).
Score = 100 - 10 x criticals - 3 x warnings, floored at 0; approved = no criticals.
Rule families live in one small module each; `rules()` lists them all (code, severity, family).

Some cases cannot be told apart from legitimate writing by rules (a named source without a link,
a list that may have been cut). Their rules warn instead of rejecting, and the reviewer's result
then carries one extra info finding of code `HUMAN_REVIEW` ("needs_human_review") listing them:
the aggregation turns it into the decision's `needs_human_review` (`asks_for_human_review`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from agents.base import Deps, ReviewerSpec, errored
from agents.facts import FactOverride, FactsUnavailable, load_facts_checked

# Importing the family modules registers their rules (order = report order for equal offsets).
from agents.reviewers.validator import (  # noqa: F401
    _anecdote,
    _chatter,
    _citations,
    _company,
    _company_kinds,
    _company_table,
    _experience,
    _facts,
    _injection,
    _leaks,
    _meta,
    _people,
    _people_claims,
    _placeholders,
    _quantities,
    _shape,
    _statistics,
    _style,
    _truncation,
    _unlinked,
)
from agents.reviewers.validator._core import Rule, ValidationReport, rules, validate
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, Provider, ReviewerResult, Severity

log = logging.getLogger(__name__)

NAME = "validator"
HUMAN_REVIEW = "needs_human_review"
# Above this size validation runs in a worker thread so it cannot stall the event loop.
_THREAD_ABOVE_CHARS = 100_000


def rule_codes() -> frozenset[str]:
    return frozenset(r.code for r in rules())


def asks_for_human_review(result: ReviewerResult) -> bool:
    """True when a reviewer's result asks for a person to decide (a `HUMAN_REVIEW` finding)."""
    return any(f.code == HUMAN_REVIEW for f in result.findings)


def _human_review_note(report: ValidationReport) -> tuple[Finding, ...]:
    codes = report.human_review_codes()
    if not codes:
        return ()
    message = f"a person should decide: {', '.join(codes)} cannot be told apart by rules"
    return (Finding(HUMAN_REVIEW, Severity.INFO, message),)


def _with_prompt_fields(
    report: ValidationReport, draft: DraftSubmitted, settings: Settings
) -> ValidationReport:
    """The topic and the research sources reach the LLM reviewers' prompts as the content does:
    they are scanned for injection too (issue 12's _injection.metadata_findings)."""
    disabled = settings.disabled_rules(draft.niche)
    if {"prompt_injection", "possible_prompt_injection"} <= disabled:
        return report
    fields = _injection.prompt_fields(draft.topic, draft.research_sources)
    found = _injection.metadata_findings(fields, content=draft.content, title=draft.title)
    found = tuple(f for f in found if f.code not in disabled)
    return ValidationReport(report.findings + found) if found else report


async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    notes: list[Finding] = []
    facts: tuple[FactOverride, ...] = ()
    unavailable = ""
    if deps.facts is not None:
        facts = tuple(deps.facts)
    elif deps.pool is not None:
        try:
            loaded = await load_facts_checked(deps.pool)
        except FactsUnavailable as exc:
            # The other rules still run (a critical still rejects), but without the facts the
            # review is incomplete: it fails closed (agents.facts).
            log.warning("validator %s v%s: %s", draft.draft_id, draft.version, exc)
            unavailable = str(exc)
        else:
            facts = loaded.facts
            if loaded.stale:
                notes.append(Finding("facts_stale", Severity.INFO, loaded.stale[:500]))

    def run() -> ValidationReport:
        return validate(
            draft.content, title=draft.title, settings=settings, facts=facts, niche=draft.niche
        )

    report = await asyncio.to_thread(run) if len(draft.content) > _THREAD_ABOVE_CHARS else run()
    report = _with_prompt_fields(report, draft, settings)
    findings = report.findings + _human_review_note(report) + tuple(notes)
    if unavailable and report.approved:
        # Nothing else rejects it, and the known-wrong-fact check could not run: an error
        # (the aggregation keeps the draft from approval and asks for a human).
        message = f"{unavailable}; the known-wrong-fact check did not run ({report.summary()})"
        return dataclasses.replace(
            errored(NAME, Provider.PROGRAMMATIC, message[:2000]), findings=findings
        )
    if unavailable:
        findings += (Finding("facts_unavailable", Severity.INFO, unavailable[:500]),)
    return ReviewerResult(
        NAME,
        report.approved,
        report.score,
        report.summary(),
        Provider.PROGRAMMATIC,
        findings=findings,
    )


SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(NAME, Provider.PROGRAMMATIC, review, enabled=lambda settings: True, paid=False),
)

__all__ = [
    "HUMAN_REVIEW",
    "SPECS",
    "Rule",
    "ValidationReport",
    "asks_for_human_review",
    "review",
    "rule_codes",
    "rules",
    "validate",
]
