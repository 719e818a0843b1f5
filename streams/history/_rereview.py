"""Re-review stored drafts with other settings or models, into a shadow namespace.

For every draft version first seen in [since, until) (qa_drafts, so Kafka's retention does not
matter), the chosen reviewers run again in-process (`agents.base.run_reviewer`, the reviewers'
own code and model clients) under the given settings; the reviewers not chosen keep their live
results (qa_reviews, the ones the live decision counted); the one aggregation
(`agents.aggregate.build_decision`) decides; the result is compared with the live decision.

Shadow namespace: the run writes only `rereview_runs`, `rereview_results` and
`rereview_decisions` (migration 005), all in one transaction at the end: a run that fails (a
model that stops answering, Ctrl-C, the database) leaves nothing. Live tables and every topic
are never written; no broker is needed at all.

Paid reviewers (model calls) are rate-limited (`rate` calls per second in all) and at most
`concurrency` drafts are reviewed at once.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agents.aggregate import build_decision
from agents.base import Deps, ReviewerSpec, run_reviewer
from agents.settings import Settings
from schemas import OperatorError, utc_now
from schemas.records import (
    Cost,
    DraftSubmitted,
    Finding,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    Severity,
    Span,
)
from streams.history._drafts import load_drafts
from streams.history._report import Item, Report
from streams.runtime.observe._metrics import reason_of


class RereviewError(OperatorError, RuntimeError):
    """The run cannot go on (a model stopped answering); nothing was written."""


class RateLimit:
    """At most `rate` starts per second (0: no limit), shared by every task of a run."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self._lock:
            now = time.monotonic()
            if self._next > now:
                await asyncio.sleep(self._next - now)
            self._next = max(now, self._next) + self.interval


def result_from_row(row: Any) -> ReviewerResult:
    """A live qa_reviews row as the ReviewerResult the aggregation reads."""
    raw = row["findings"]
    findings = []
    for f in json.loads(raw) if isinstance(raw, str) else raw or []:
        span = f.get("span")
        findings.append(
            Finding(
                f["code"],
                Severity(f["severity"]),
                f["message"],
                Span(span["start"], span["end"], span["text"]) if span else None,
            )
        )
    try:
        provider = Provider(row["provider"])
    except ValueError:
        provider = Provider.UNKNOWN
    return ReviewerResult(
        row["reviewer"], row["approved"], row["score"], row["feedback"], provider,
        status=ReviewStatus(row["status"]), findings=tuple(findings), veto=row["veto"],
        draft_id=row["draft_id"], version=row["version"], produced_at=row["produced_at"],
    )  # fmt: skip


@dataclass
class Rereviewed:
    draft: DraftSubmitted
    live: Any  # qa_decisions row or None
    new_results: list[ReviewerResult]
    decision: QADecision | None
    item: Item


@dataclass
class Run:
    specs: Sequence[ReviewerSpec]
    settings: Settings
    deps: Deps
    rate: float = 1.0
    concurrency: int = 4
    on_progress: Callable[[], None] = lambda: None
    done: list[Rereviewed] = field(default_factory=list)

    async def review_all(self, pool: Any, drafts: Sequence[DraftSubmitted]) -> list[Rereviewed]:
        keys = [(d.draft_id, d.version) for d in drafts]
        ids = [k[0] for k in keys]
        live = {
            (r["draft_id"], r["version"]): r
            for r in await pool.fetch("SELECT * FROM qa_decisions WHERE draft_id = ANY($1)", ids)
        }
        reviews: dict[tuple[str, int], list[Any]] = {}
        for r in await pool.fetch(
            "SELECT * FROM qa_reviews WHERE draft_id = ANY($1) ORDER BY produced_at", ids
        ):
            reviews.setdefault((r["draft_id"], r["version"]), []).append(r)
        limit = RateLimit(self.rate)
        slots = asyncio.Semaphore(max(1, self.concurrency))

        async def one(draft: DraftSubmitted) -> Rereviewed:
            async with slots:
                key = (draft.draft_id, draft.version)
                found = await self._one(draft, live.get(key), reviews.get(key, []), limit)
                self.on_progress()
                return found

        self.done = list(await asyncio.gather(*(one(d) for d in drafts)))
        return self.done

    async def _one(
        self, draft: DraftSubmitted, live: Any, rows: list[Any], limit: RateLimit
    ) -> Rereviewed:
        new: list[ReviewerResult] = []
        for spec in self.specs:
            if spec.paid and spec.enabled(self.settings):
                await limit.wait()
            result = await run_reviewer(spec, draft, self.settings, self.deps)
            if spec.paid and str(result.status) != "ok" and reason_of(result) == "unavailable":
                raise RereviewError(
                    f"{spec.name} could not reach its model on draft {draft.draft_id} "
                    f"v{draft.version}: {result.feedback[:200]}"
                )
            new.append(result)
        rerun = {r.reviewer for r in new}
        failed = [
            f"{r.reviewer} ({reason_of(r)}: {r.feedback[:120]})"
            for r in new
            if str(r.status) != "ok" and reason_of(r) not in ("disabled", "not_applicable")
        ]
        if failed:
            # A verdict the new setup could not give is not a flip: reported, not re-decided.
            item = Item(
                draft.draft_id,
                draft.version,
                None if live is None else live["approved"],
                None if live is None else live["final_score"],
                None,
                None,
                problem=f"not re-decided: no verdict from {'; '.join(failed)}",
            )
            return Rereviewed(draft, live, new, None, item)
        if live is None:
            item = Item(draft.draft_id, draft.version, None, None, None, None,
                        problem="no live decision to compare with (not decided yet)")  # fmt: skip
            return Rereviewed(draft, None, new, None, item)
        counted = [c["reviewer"] for c in _json_list(live["reviews"])]
        kept: dict[str, ReviewerResult] = {}
        for row in rows:  # the first live result per reviewer, as the aggregator keeps it
            if row["reviewer"] in counted and row["reviewer"] not in rerun:
                kept.setdefault(row["reviewer"], result_from_row(row))
        missing = [c for c in counted if c not in rerun and c not in kept]
        expected = list(dict.fromkeys([*counted, *live["missing_reviewers"], *rerun]))
        decision = build_decision(
            draft, [*kept.values(), *new], self.settings, expected=expected,
            decided_at=utc_now(),
        )  # fmt: skip
        live_scores = {c["reviewer"]: c for c in _json_list(live["reviews"])}
        deltas = {
            r.reviewer: round(r.score - float(live_scores[r.reviewer]["score"]), 3)
            for r in new
            if str(r.status) == "ok"
            and r.reviewer in live_scores
            and live_scores[r.reviewer].get("status") == "ok"
        }
        problem = (
            f"live results of {', '.join(missing)} are not recorded; decided without them"
            if missing
            else ""
        )
        item = Item(
            draft.draft_id, draft.version, live["approved"], live["final_score"],
            decision.approved, decision.final_score, problem=problem, reviewer_deltas=deltas,
        )  # fmt: skip
        return Rereviewed(draft, live, new, decision, item)


def _json_list(value: Any) -> list[Any]:
    return list(json.loads(value) if isinstance(value, str) else value or [])


async def drafts_in_range(
    pool: Any, since: datetime, until: datetime | None
) -> list[DraftSubmitted]:
    return [draft for draft, _seen in await load_drafts(pool, since, until)]


async def save(
    pool: Any,
    done: Sequence[Rereviewed],
    *,
    since: datetime,
    until: datetime | None,
    reviewers: Sequence[str],
    overrides: dict[str, str],
    settings: Settings,
    report: Report,
) -> str:
    """Write the whole run (shadow tables only) in one transaction; returns the run id."""
    run_id = str(uuid.uuid4())
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "INSERT INTO rereview_runs (run_id, since, until, reviewers, overrides,"
            " settings_version, summary) VALUES ($1, $2, $3, $4, $5::text::jsonb, $6,"
            " $7::text::jsonb)",
            run_id, since, until, list(reviewers), json.dumps(overrides),
            settings.version(), json.dumps(report.summary(), default=str),
        )  # fmt: skip
        await conn.executemany(
            "INSERT INTO rereview_results (run_id, draft_id, version, reviewer, status,"
            " approved, score, feedback, findings, veto, tokens_in, tokens_out, usd, kwh, model)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10, $11, $12, $13, $14,"
            " $15)",
            [
                (run_id, r.draft_id, r.version, r.reviewer, str(r.status), r.approved, r.score,
                 r.feedback, json.dumps([_finding(f) for f in r.findings]), r.veto,
                 r.cost.tokens_in, r.cost.tokens_out, r.cost.usd, r.cost.kwh, r.cost.model)
                for d in done for r in d.new_results
            ],
        )  # fmt: skip
        await conn.executemany(
            "INSERT INTO rereview_decisions (run_id, draft_id, version, live_approved,"
            " live_score, approved, final_score, flipped, summary, feedback_text)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            [
                (run_id, d.draft.draft_id, d.draft.version, d.item.approved_before,
                 d.item.score_before, d.decision.approved, d.decision.final_score,
                 d.item.flipped, d.decision.summary, d.decision.feedback_text)
                for d in done if d.decision is not None
            ],
        )  # fmt: skip
    return run_id


def _finding(f: Finding) -> dict[str, Any]:
    span = (
        None if f.span is None else {"start": f.span.start, "end": f.span.end, "text": f.span.text}
    )
    return {"code": f.code, "severity": str(f.severity), "message": f.message, "span": span}


def spend(done: Sequence[Rereviewed]) -> Cost:
    results = [r for d in done for r in d.new_results]
    return Cost(
        tokens_in=sum(r.cost.tokens_in for r in results),
        tokens_out=sum(r.cost.tokens_out for r in results),
        usd=round(sum(r.cost.usd for r in results), 6),
        kwh=round(sum(r.cost.kwh for r in results), 6),
    )
