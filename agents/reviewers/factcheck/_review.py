"""The web fact-check reviewer: gather claims, search each, judge, score."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from agents.base import Deps, not_applicable, skipped
from agents.reviewers.factcheck._claims import KNOWN_WRONG_FACT, Claim, gather_claims
from agents.reviewers.factcheck._search import (
    DdgsSearch,
    SearchBackend,
    SearchResult,
    SearchUnavailable,
)
from agents.reviewers.factcheck._verdict import Judgement, Verdict, judge
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, Provider, ReviewerResult, Severity

NAME = "web_factcheck"
PROVIDER = Provider.WEB_FACTCHECK

# What each verdict is worth: an unverified claim is no evidence either way, so it sits halfway.
_POINTS = {Verdict.VERIFIED: 1.0, Verdict.UNVERIFIED: 0.5, Verdict.CONTRADICTED: 0.0}


async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    if settings.qa_web_factcheck_max_claims == 0:
        return skipped(NAME, PROVIDER, "qa_web_factcheck_max_claims is 0")
    claims = await gather_claims(draft, settings, deps)
    if not claims:
        return not_applicable(NAME, PROVIDER, "no checkable product or spec claims")
    backend: SearchBackend = deps.search if deps.search is not None else DdgsSearch()
    try:
        answers = [await _search(backend, claim, settings) for claim in claims]
    except SearchUnavailable as exc:
        return skipped(NAME, PROVIDER, f"web search unavailable: {exc}")
    if not any(answers):
        # DuckDuckGo's rate-limit page parses as "no results": judging every claim on nothing
        # would only produce UNVERIFIED noise, so say what happened instead.
        return skipped(NAME, PROVIDER, "web search returned no results for any claim")
    judgements = [judge(c, results, settings) for c, results in zip(claims, answers, strict=True)]
    return _result(judgements)


async def _search(
    backend: SearchBackend, claim: Claim, settings: Settings
) -> Sequence[SearchResult]:
    try:
        async with asyncio.timeout(settings.qa_gate_timeout_seconds):
            return await backend.search(claim.query, settings.qa_web_factcheck_num_results)
    except TimeoutError:
        raise SearchUnavailable(f"no answer within {settings.qa_gate_timeout_seconds:g}s") from None


def _result(judgements: list[Judgement]) -> ReviewerResult:
    counts = Counter(j.verdict for j in judgements)
    findings = tuple(_finding(j) for j in judgements)
    score = 100.0 * sum(_POINTS[j.verdict] for j in judgements) / len(judgements)
    contradicted = counts[Verdict.CONTRADICTED]
    feedback = (
        f"{len(judgements)} claims checked: {counts[Verdict.VERIFIED]} verified, "
        f"{contradicted} contradicted, {counts[Verdict.UNVERIFIED]} unverified"
    )
    for j in judgements:
        if j.verdict is Verdict.CONTRADICTED:
            feedback += f"; {j.claim.text!r}: {j.detail}"
    return ReviewerResult(
        NAME, contradicted == 0, round(score, 2), feedback, PROVIDER, findings=findings
    )


def _finding(j: Judgement) -> Finding:
    where = f" ({j.evidence_url})" if j.evidence_url else ""
    known = j.claim.kind == KNOWN_WRONG_FACT
    if j.verdict is Verdict.VERIFIED:
        suffix = "; clears the validator's known_wrong_fact" if known else ""
        message = f"verified: {j.claim.text!r}: {j.detail}{where}{suffix}"
        return Finding("fact_verified", Severity.INFO, message, j.claim.span)
    if j.verdict is Verdict.CONTRADICTED:
        message = f"contradicted: {j.claim.text!r}: {j.detail}{where}"
        return Finding("fact_contradicted", Severity.WARNING, message, j.claim.span)
    suffix = "; the validator's known_wrong_fact stands" if known else ""
    message = f"unverified: {j.claim.text!r}: {j.detail}{suffix}"
    return Finding("fact_unverified", Severity.INFO, message, j.claim.span)
