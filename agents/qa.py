"""The in-process API: run every reviewer on one draft and decide, without Kafka.

    qa = MultiModelQA(pool)                      # pool: asyncpg pool or None (defaults only)
    result = await qa.review(title, content, topic="...")
    result.approved, result.final_score, result.format_feedback_text()

It runs the same reviewers (agents.registry) and the same aggregation (agents.aggregate) as the
stream, with the same rule for early decisions (`agents.aggregate.early_evidence`): the validator
first (it is fast, and a validator critical means no paid reviewer needs to start), then every
other enabled reviewer concurrently. The free reviewers always finish; as soon as the outcome can
no longer become approved, pending paid reviewers are cancelled, and when the free results alone
settled it, paid results that came in first are not counted (the stream decides the same way
whatever the order answers arrive in). `qa_aggregate_timeout_seconds` bounds the whole
review: reviewers still running then are cancelled and named in `missing_reviewers`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agents._spans import current_trace_id
from agents.aggregate import build_decision, early_evidence, short_circuits
from agents.base import Deps, ReviewerSpec, run_reviewer
from agents.feedback import format_qa_feedback_from_reviews
from agents.registry import all_reviewers
from agents.settings import Settings
from schemas.records import DraftSubmitted, QADecision, ReviewerResult

log = logging.getLogger(__name__)

_INPROC_NAMESPACE = uuid.UUID("6d756c74-6971-612d-696e-70726f632d31")


class SettingsSource(Protocol):
    async def get(self) -> Settings: ...


@dataclass(frozen=True)
class MultiModelResult:
    """The outcome of `MultiModelQA.review` (the seed's MultiModelResult, plus the decision)."""

    approved: bool
    final_score: float
    reviews: list[ReviewerResult]
    summary: str
    decision: QADecision

    @property
    def vetoes(self) -> tuple[str, ...]:
        return self.decision.vetoes

    @property
    def needs_human_review(self) -> bool:
        return self.decision.needs_human_review

    @property
    def critic_skipped(self) -> bool:
        return not any(r.reviewer == "critic" and r.status == "ok" for r in self.reviews)

    def format_feedback_text(self, max_chars: int = 4000) -> str:
        """Human-readable critique for the approval UI: decision first, then each reviewer."""
        return format_qa_feedback_from_reviews(
            self.reviews, self.final_score, self.approved, max_chars, vetoes=self.vetoes
        )


class MultiModelQA:
    """Reviews drafts in-process with every enabled reviewer.

    `settings_service` is anything with `async get() -> Settings` (agents.settings_service); by
    default settings are read from the pool's app_settings, or are the defaults without a pool.
    `deps` replaces the shared clients reviewers use (the test seam); `reviewers` replaces the
    registry's list.
    """

    def __init__(
        self,
        pool: Any,
        settings_service: SettingsSource | None = None,
        *,
        deps: Deps | None = None,
        reviewers: Sequence[ReviewerSpec] | None = None,
    ) -> None:
        self.pool = pool
        if settings_service is None and pool is not None:
            from agents.settings_service import SettingsService

            settings_service = SettingsService(pool)
        self.settings_service = settings_service
        self.deps = deps if deps is not None else _default_deps(pool)
        self._reviewers = tuple(reviewers) if reviewers is not None else None

    async def settings(self) -> Settings:
        if self.settings_service is None:
            return Settings()
        return await self.settings_service.get()

    async def review(
        self,
        title: str,
        content: str,
        topic: str = "",
        research_sources: Sequence[str] | None = None,
        preview_url: str | None = None,
        *,
        writer_model: str | None = None,
        site_domain: str | None = None,
        niche: str | None = None,
        draft_id: str | None = None,
        version: int = 1,
        task_id: str | None = None,
    ) -> MultiModelResult:
        settings = await self.settings()
        draft = DraftSubmitted(
            draft_id=draft_id or _content_id(title, content),
            version=version,
            title=title,
            content=content,
            task_id=task_id,
            topic=topic,
            research_sources=tuple(research_sources or ()),
            preview_url=preview_url,
            writer_model=writer_model,
            site_domain=site_domain or settings.site_domain or None,
            niche=niche,
            submitted_at=self.deps.now(),
        )
        return await self.review_draft(draft, settings)

    async def review_draft(
        self, draft: DraftSubmitted, settings: Settings | None = None
    ) -> MultiModelResult:
        """Review an already-built DraftSubmitted (what the stream would receive)."""
        settings = settings or await self.settings()
        reviewers = self._reviewers if self._reviewers is not None else all_reviewers()
        specs = [spec for spec in reviewers if spec.enabled(settings)]
        expected = [spec.name for spec in specs]
        results: list[ReviewerResult] = []
        timed_out = early = False

        first = [spec for spec in specs if spec.name == "validator"]
        rest = [spec for spec in specs if spec.name != "validator"]
        for spec in first:
            results.append(await run_reviewer(spec, draft, settings, self.deps))
        if any(short_circuits(r) for r in results):
            rest = [spec for spec in rest if not spec.paid]  # no paid review can change it
        if rest:
            timed_out, early = await self._run_concurrently(specs, rest, draft, settings, results)
        if not timed_out:
            # Answers that came in together are counted by the same rule as one by one.
            paid_names = {spec.name for spec in specs if spec.paid}
            results = early_evidence(results, expected, paid_names, settings) or results
            early = early or len(_names(results)) < len(expected)

        decision = build_decision(
            draft,
            results,
            settings,
            expected=expected,
            timed_out=timed_out,
            early=early,
            decided_at=self.deps.now(),
        )
        # A caller that traces its review gets the trace id in the decision, as the stream does.
        decision = dataclasses.replace(decision, trace_id=current_trace_id())
        reviews = _in_order(results, expected)
        return MultiModelResult(
            approved=decision.approved,
            final_score=decision.final_score,
            reviews=reviews,
            summary=decision.summary,
            decision=decision,
        )

    async def _run_concurrently(
        self,
        enabled: Sequence[ReviewerSpec],
        specs: Sequence[ReviewerSpec],
        draft: DraftSubmitted,
        settings: Settings,
        results: list[ReviewerResult],
    ) -> tuple[bool, bool]:
        """Run `specs`, appending to `results` (which end up as the evidence counted); returns
        (timed_out, early)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settings.qa_aggregate_timeout_seconds
        expected = [spec.name for spec in enabled]
        paid_names = {spec.name for spec in enabled if spec.paid}
        tasks = {
            asyncio.create_task(run_reviewer(spec, draft, settings, self.deps)): spec
            for spec in specs
        }
        pending = set(tasks)
        early = False
        try:
            while pending:
                paid = {t for t in pending if tasks[t].paid}
                evidence = early_evidence(results, expected, paid_names, settings) if paid else None
                if evidence is not None:
                    log.info(
                        "draft %s v%s settled early; cancelling %s",
                        draft.draft_id,
                        draft.version,
                        ", ".join(sorted(tasks[t].name for t in paid)),
                    )
                    await _cancel(paid)
                    pending -= paid
                    results[:] = evidence
                    early = True
                    continue
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return True, early
                done, pending = await asyncio.wait(
                    pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                results.extend(task.result() for task in done)
            return False, early
        finally:
            await _cancel(pending)


async def _cancel(tasks: set[asyncio.Task[ReviewerResult]]) -> None:
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.gather(*tasks, return_exceptions=True)


def _names(results: Sequence[ReviewerResult]) -> set[str]:
    return {r.reviewer for r in results}


def _in_order(results: Sequence[ReviewerResult], expected: Sequence[str]) -> list[ReviewerResult]:
    rank = {name: i for i, name in enumerate(expected)}
    seen: dict[str, ReviewerResult] = {}
    for r in results:
        seen.setdefault(r.reviewer, r)
    return sorted(seen.values(), key=lambda r: rank.get(r.reviewer, len(rank)))


def _content_id(title: str, content: str) -> str:
    """A stable id for a draft submitted without one: the same text gets the same decision id."""
    digest = hashlib.sha256(f"{title}\x00{content}".encode("utf-8", "surrogatepass")).hexdigest()
    return str(uuid.uuid5(_INPROC_NAMESPACE, digest))


def _default_deps(pool: Any) -> Deps:
    audit = None
    if pool is not None:
        from agents.audit import audit_writer

        audit = audit_writer(pool)
    return Deps(pool=pool, audit=audit)
