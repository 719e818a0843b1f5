"""What the decisions pages read from PostgreSQL: a filtered list, and one draft version.

Every value from the query string reaches SQL as a bind parameter, never as SQL text; LIKE
wildcards in a search are escaped, so `%` and `_` match themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from agents.reviewers import REVIEWER_NAMES
from schemas import OperatorError

PAGE_SIZE = 50
MAX_PAGE = 1000
_REVIEWER_RESULTS = ("any", "approved", "disapproved", "skipped", "error")


class FilterError(OperatorError, ValueError):
    """A query-string value the list cannot use (the page says which, with a 400)."""


@dataclass(frozen=True)
class Filters:
    outcome: str = ""  # "", approved, rejected
    human: str = ""  # "", yes, no (needs human review)
    reviewer: str = ""
    reviewer_result: str = "any"
    since: datetime | None = None
    until: datetime | None = None
    q: str = ""
    page: int = 1

    @classmethod
    def parse(cls, query: Any) -> Filters:
        def one(name: str) -> str:
            return str(query.get(name, "") or "").strip()

        outcome = one("outcome")
        if outcome not in ("", "approved", "rejected"):
            raise FilterError(f"outcome must be approved or rejected, not {outcome[:40]!r}")
        human = one("human")
        if human not in ("", "yes", "no"):
            raise FilterError(f"human must be yes or no, not {human[:40]!r}")
        reviewer = one("reviewer")
        if (
            reviewer
            and reviewer not in REVIEWER_NAMES
            and not re.fullmatch(r"[a-z_]{1,40}", reviewer)
        ):
            raise FilterError(f"unknown reviewer {reviewer[:40]!r}")
        result = one("reviewer_result") or "any"
        if result not in _REVIEWER_RESULTS:
            raise FilterError(f"reviewer_result must be one of {', '.join(_REVIEWER_RESULTS)}")
        page_text = one("page") or "1"
        if not page_text.isdigit() or not 1 <= int(page_text) <= MAX_PAGE:
            raise FilterError(f"page must be a number from 1 to {MAX_PAGE}")
        return cls(
            outcome=outcome,
            human=human,
            reviewer=reviewer,
            reviewer_result=result,
            since=_time(one("since"), "since"),
            until=_time(one("until"), "until"),
            q=one("q")[:200],
            page=int(page_text),
        )

    def as_query(self, **changes: Any) -> dict[str, str]:
        values = {
            "outcome": self.outcome,
            "human": self.human,
            "reviewer": self.reviewer,
            "reviewer_result": "" if self.reviewer_result == "any" else self.reviewer_result,
            "since": _show_time(self.since),
            "until": _show_time(self.until),
            "q": self.q,
            "page": "" if self.page == 1 else str(self.page),
        }
        values.update({k: str(v) for k, v in changes.items()})
        return {k: v for k, v in values.items() if v}


def _time(text: str, name: str) -> datetime | None:
    """A datetime-local value (YYYY-MM-DDTHH:MM[:SS]) or an ISO date, read as UTC."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise FilterError(f"{name} must be a date and time like 2026-05-17T09:30") from None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _show_time(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%dT%H:%M")


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


async def list_decisions(pool: Any, f: Filters) -> tuple[list[Any], bool]:
    """(rows of the page, whether there is a next page), newest first."""
    where = ["TRUE"]
    args: list[Any] = []

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    if f.outcome:
        where.append(f"d.approved = {arg(f.outcome == 'approved')}")
    if f.human:
        where.append(f"d.needs_human_review = {arg(f.human == 'yes')}")
    if f.reviewer:
        wanted: dict[str, Any] = {"reviewer": f.reviewer}
        if f.reviewer_result in ("skipped", "error"):
            wanted["status"] = f.reviewer_result
        elif f.reviewer_result in ("approved", "disapproved"):
            wanted.update(status="ok", approved=f.reviewer_result == "approved")
        where.append(f"d.reviews @> jsonb_build_array({arg(_json(wanted))}::text::jsonb)")
    if f.since is not None:
        where.append(f"d.decided_at >= {arg(f.since)}")
    if f.until is not None:
        where.append(f"d.decided_at < {arg(f.until)}")
    if f.q:
        like = arg(_like(f.q))
        where.append(f"(d.draft_id ILIKE {like} OR q.title ILIKE {like})")
    limit = arg(PAGE_SIZE + 1)
    offset = arg((f.page - 1) * PAGE_SIZE)
    sql = f"""
        SELECT d.draft_id, d.version, d.approved, d.final_score, d.summary, d.decided_at,
               d.timed_out, d.short_circuited, d.early_decided, d.needs_human_review,
               d.missing_reviewers, d.vetoes, d.trace_id, q.title
        FROM qa_decisions d
        LEFT JOIN qa_drafts q USING (draft_id, version)
        WHERE {" AND ".join(where)}
        ORDER BY d.decided_at DESC, d.draft_id, d.version
        LIMIT {limit} OFFSET {offset}
    """  # noqa: S608 (only placeholders are interpolated; every value is a bind parameter)
    rows = list(await pool.fetch(sql, *args))
    return rows[:PAGE_SIZE], len(rows) > PAGE_SIZE


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


@dataclass
class DraftVersion:
    decision: Any  # qa_decisions row, or None while pending
    draft: Any  # qa_drafts row, or None (stored before qa_drafts existed, or not yet)
    reviews: list[Any]  # qa_reviews rows
    costs: list[Any]  # cost_logs rows

    @property
    def title(self) -> str:
        return str(self.draft["title"]) if self.draft is not None else ""


async def draft_version(pool: Any, draft_id: str, version: int) -> DraftVersion | None:
    """Everything recorded about one draft version; None when nothing is."""
    decision = await pool.fetchrow(
        "SELECT * FROM qa_decisions WHERE draft_id = $1 AND version = $2", draft_id, version
    )
    draft = await pool.fetchrow(
        "SELECT * FROM qa_drafts WHERE draft_id = $1 AND version = $2", draft_id, version
    )
    reviews = await pool.fetch(
        "SELECT * FROM qa_reviews WHERE draft_id = $1 AND version = $2 ORDER BY produced_at",
        draft_id,
        version,
    )
    costs = await pool.fetch(
        "SELECT * FROM cost_logs WHERE draft_id = $1 AND version = $2 ORDER BY reviewer",
        draft_id,
        version,
    )
    if decision is None and draft is None and not reviews:
        return None
    return DraftVersion(decision, draft, list(reviews), list(costs))


async def versions_of(pool: Any, draft_id: str) -> list[int]:
    rows = await pool.fetch(
        "SELECT version FROM qa_decisions WHERE draft_id = $1"
        " UNION SELECT version FROM qa_drafts WHERE draft_id = $1 ORDER BY 1",
        draft_id,
    )
    return [int(r["version"]) for r in rows]
