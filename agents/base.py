"""The reviewer interface every module in `agents/` implements, and the one place results are
stamped, timed and protected from unexpected exceptions.

A reviewer is `async def review(draft, settings, deps) -> ReviewerResult`, published by its module
as a `ReviewerSpec`. It never raises for an expected failure (unreachable model, timeout,
unparseable answer): those become status `skipped` or `error` with the reason in `feedback`.
`run_reviewer` is the safety net for the unexpected ones, used by the in-process review and by the
stream alike.

Contract between reviewers and the aggregation (agents.aggregate):
- validator findings with severity critical short-circuit the review, except code
  `known_wrong_fact`;
- a reviewer with nothing to check answers `not_applicable(...)` (status skipped, a
  `not_applicable` finding): it stays out of the mean and satisfies `qa_required_to_pass`;
- a reviewer that cannot do its job because of its configuration or a dependency it cannot do
  without (a broken setting, a missing API key or model, fact_overrides unreadable) answers
  `errored(...)` with the cause: that keeps the draft from approval. `skipped` is for a reviewer
  that could not run for a reason that is nobody's mistake (disabled, an optional model server
  down), and the aggregation goes on without it;
- web_factcheck emits `fact_verified` (severity info) findings whose `span` equals the span of the
  claim it verified; a verified span clears the validator's `known_wrong_fact` at the same span.
  Contradicted claims are `fact_contradicted` findings.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from agents.settings import Settings
from schemas.records import (
    Cost,
    DraftSubmitted,
    Finding,
    Provider,
    ReviewerResult,
    ReviewStatus,
    Severity,
    utc_now,
)

log = logging.getLogger(__name__)


class ReviewFn(Protocol):
    def __call__(
        self, draft: DraftSubmitted, settings: Settings, deps: Deps
    ) -> Awaitable[ReviewerResult]: ...


AuditSink = Callable[[str, Mapping[str, Any]], Awaitable[None]]
"""`await audit(event_type, payload)`: record an audit event (audit_log in production)."""


@dataclass(frozen=True)
class ReviewerSpec:
    name: str
    provider: Provider
    review: ReviewFn
    enabled: Callable[[Settings], bool]
    # Paid reviewers spend model time or money; the stream cancels them when the outcome is known.
    paid: bool = False


@dataclass
class Deps:
    """Shared clients reviewers use. Tests replace any of them (the seam, like httpx's transport).

    Fields typed `Any` are filled with concrete types by the modules that own them
    (LLM providers, the URL guard, the search backend, the screenshotter).
    """

    pool: Any = None  # asyncpg.Pool | None: settings, fact overrides, audit log
    audit: AuditSink | None = None
    llm: Any = None  # agents.llm: provider router
    http: Any = None  # agents.net: the guarded HTTP client (the only way to fetch a draft's URL)
    search: Any = None  # agents.reviewers.factcheck: search backend
    screenshotter: Any = None  # agents.reviewers.preview: renders preview_url
    facts: Any = None  # validator known_wrong_fact overrides (sequence), loaded from fact_overrides
    now: Callable[[], datetime] = field(default=utc_now)

    async def record_audit(self, event_type: str, payload: Mapping[str, Any]) -> None:
        """Write an audit event; an audit failure is logged, never fails a review."""
        if self.audit is None:
            return
        try:
            await self.audit(event_type, payload)
        except Exception:
            log.warning("audit event %s could not be written", event_type, exc_info=True)


# The finding code (and feedback prefix) of a reviewer that had nothing to check on a draft.
NOT_APPLICABLE = "not_applicable"


def skipped(
    name: str, provider: Provider, reason: str, *, cost: Cost | None = None
) -> ReviewerResult:
    """A result for a reviewer that could not run (disabled, model server down, ...). For a
    reviewer with nothing to check use `not_applicable`."""
    return ReviewerResult(
        name, False, 0.0, reason, provider, status=ReviewStatus.SKIPPED, cost=cost or Cost()
    )


def not_applicable(name: str, provider: Provider, detail: str) -> ReviewerResult:
    """A reviewer with nothing to check on this draft (no external links, no cited sources, no
    topic, no images, no preview URL): status skipped, reason "not applicable: <detail>", and a
    `not_applicable` finding the aggregation reads. It is no score (it stays out of the mean) and
    no failure (a required reviewer that is not applicable is satisfied)."""
    return ReviewerResult(
        name,
        False,
        0.0,
        f"not applicable: {detail}",
        provider,
        status=ReviewStatus.SKIPPED,
        findings=(Finding(NOT_APPLICABLE, Severity.INFO, detail),),
    )


def is_not_applicable(result: ReviewerResult) -> bool:
    return result.status == ReviewStatus.SKIPPED and any(
        f.code == NOT_APPLICABLE for f in result.findings
    )


def errored(
    name: str, provider: Provider, reason: str, *, cost: Cost | None = None
) -> ReviewerResult:
    """A result for a reviewer that failed unexpectedly."""
    return ReviewerResult(
        name, False, 0.0, reason, provider, status=ReviewStatus.ERROR, cost=cost or Cost()
    )


async def run_reviewer(
    spec: ReviewerSpec, draft: DraftSubmitted, settings: Settings, deps: Deps
) -> ReviewerResult:
    """Run one reviewer: disabled -> skipped; unexpected exception -> error; always stamped with
    the draft's id and version and the settings' version, and timed when the reviewer did not time
    itself."""
    started = time.perf_counter()
    if not spec.enabled(settings):
        result = skipped(spec.name, spec.provider, f"{spec.name} is disabled in settings")
    else:
        try:
            result = await spec.review(draft, settings, deps)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("reviewer %s failed on %s v%s", spec.name, draft.draft_id, draft.version)
            result = errored(spec.name, spec.provider, f"{type(exc).__name__}: {exc}"[:500])
    cost = result.cost
    if cost.duration_ms == 0:
        cost = dataclasses.replace(cost, duration_ms=int((time.perf_counter() - started) * 1000))
    return dataclasses.replace(
        result,
        reviewer=spec.name,
        draft_id=draft.draft_id,
        version=draft.version,
        cost=cost,
        produced_at=deps.now(),
        settings_version=settings.version(),
    )
