"""Web fact-check (provider `web_factcheck`): product and spec claims checked against a web search.

A model's knowledge stops at its training cutoff; a draft about this year's GPUs, models or
releases states things the critic cannot know. This reviewer extracts those claims (plus every
`known_wrong_fact` the validator raises), searches each (`SearchBackend`: `DdgsSearch` by default,
`Deps.search` to replace it), and judges each claim VERIFIED, CONTRADICTED or UNVERIFIED.

Result: score = 100 x (verified + 0.5 x unverified) / claims; a contradicted claim fails the
reviewer. Findings: `fact_verified` (info, at the claim's span: a verified known_wrong_fact is
cleared by the aggregation), `fact_contradicted` (warning: the evidence is a search snippet read
by heuristics, so it lowers the score and fails the gate rather than acting as a critical),
`fact_unverified` (info). Search errors and rate limits make the reviewer skip with the reason.
"""

from agents.base import ReviewerSpec
from agents.reviewers.factcheck._claims import (
    CLAIM_SOURCES,
    Claim,
    ClaimSource,
    claims_from_findings,
    extract_claims,
    gather_claims,
)
from agents.reviewers.factcheck._review import NAME, PROVIDER, review
from agents.reviewers.factcheck._search import (
    DdgsSearch,
    SearchBackend,
    SearchResult,
    SearchUnavailable,
    StaticSearch,
)
from agents.reviewers.factcheck._verdict import Judgement, Verdict, judge, key_terms

SPECS = (
    ReviewerSpec(
        name=NAME,
        provider=PROVIDER,
        review=review,
        enabled=lambda s: s.qa_web_factcheck_enabled,
    ),
)

__all__ = [
    "CLAIM_SOURCES",
    "SPECS",
    "Claim",
    "ClaimSource",
    "DdgsSearch",
    "Judgement",
    "SearchBackend",
    "SearchResult",
    "SearchUnavailable",
    "StaticSearch",
    "Verdict",
    "claims_from_findings",
    "extract_claims",
    "gather_claims",
    "judge",
    "key_terms",
    "review",
]
