"""Human-readable QA feedback for the approval UI (pipeline_tasks.qa_feedback).

Decision first, then vetoes, then each reviewer's score and its most important findings. The text
depends only on the reviews, the final score, the decision and the vetoes, so a caller that holds
serialized reviews (dicts, e.g. read back from qa_reviews) gets exactly the text the live review
produced. Truncation is clean: when the text does not fit it first shows fewer findings per
reviewer, then shorter feedback excerpts, and only then drops whole lines, never cutting one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from agents.reviewers import REVIEWER_NAMES
from schemas.records import ReviewerResult

_SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
# (findings shown per reviewer, feedback excerpt chars), tried in order until the text fits.
_BUDGETS: tuple[tuple[int, int], ...] = ((5, 400), (3, 200), (1, 120), (0, 80), (0, 0))


# Plain tuples (a frozen dataclass costs three times as much to build, and the text is formatted
# for every decision the stream or a re-score makes).
class _Finding(NamedTuple):
    code: str
    severity: str
    message: str
    excerpt: str
    start: int


class _Review(NamedTuple):
    reviewer: str
    provider: str
    status: str
    approved: bool
    score: float
    feedback: str
    veto: str | None
    findings: tuple[_Finding, ...]


_ORDER = {name: i for i, name in enumerate(REVIEWER_NAMES)}


def review_sort_key(name: str) -> tuple[int, str]:
    """Canonical reviewer order: REVIEWER_NAMES, then unknown names alphabetically."""
    return (_ORDER.get(name, len(REVIEWER_NAMES)), name)


def format_qa_feedback_from_reviews(
    reviews: Sequence[ReviewerResult] | Sequence[Mapping[str, Any]],
    final_score: float,
    approved: bool,
    max_chars: int = 4000,
    *,
    vetoes: Sequence[str] = (),
) -> str:
    """Feedback text from reviews given as ReviewerResult records or their dict form (the keys of
    `dataclasses.asdict(ReviewerResult)`, or of a QADecision's ReviewSummary)."""
    return format_feedback_text(reviews, final_score, approved, max_chars, vetoes=vetoes)


def format_feedback_text(
    reviews: Sequence[ReviewerResult] | Sequence[Mapping[str, Any]],
    final_score: float,
    approved: bool,
    max_chars: int = 4000,
    *,
    vetoes: Sequence[str] = (),
) -> str:
    if max_chars <= 0:
        return ""
    items = sorted((_coerce(r) for r in reviews), key=lambda r: review_sort_key(r.reviewer))
    head = [f"QA {'APPROVED' if approved else 'REJECTED'}: final score {final_score:.1f}/100"]
    if vetoes:
        head.append("Blocked by:")
        head.extend(f"- {_one_line(v, 300)}" for v in vetoes)
    text = ""
    for max_findings, feedback_chars in _BUDGETS:
        lines = head + [
            line for r in items for line in _review_lines(r, max_findings, feedback_chars)
        ]
        text = "\n".join(lines)
        if len(text) <= max_chars:
            return text
    return _cut_at_line(text, max_chars)


def _review_lines(r: _Review, max_findings: int, feedback_chars: int) -> list[str]:
    if r.status != "ok":
        return [f"{r.reviewer} [{r.provider}] {r.status}: {_one_line(r.feedback, 200)}".rstrip()]
    verdict = "approved" if r.approved else "not approved"
    head = f"{r.reviewer} [{r.provider}] {r.score:.0f}/100, {verdict}"
    if r.veto:
        head += f", veto: {_one_line(r.veto, 200)}"
    if feedback_chars and r.feedback.strip():
        head += f": {_one_line(r.feedback, feedback_chars)}"
    lines = [head]
    if not r.findings:
        return lines
    ranked = sorted(r.findings, key=lambda f: (_SEVERITY_RANK.get(f.severity, 3), f.start, f.code))
    for f in ranked[:max_findings]:
        where = f' at "{_one_line(f.excerpt, 60)}"' if f.excerpt else ""
        lines.append(f"  - {f.severity.upper()} {f.code}: {_one_line(f.message, 200)}{where}")
    if len(ranked) > max_findings > 0:
        lines.append(f"  - (+{len(ranked) - max_findings} more findings)")
    return lines


def _cut_at_line(text: str, max_chars: int) -> str:
    marker = "\n[feedback truncated]"
    if max_chars <= len(marker):
        return text[:max_chars]
    budget = max_chars - len(marker)
    cut = text.rfind("\n", 0, budget + 1)
    kept = text[:cut] if cut > 0 else text[:budget]
    return kept + marker


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + "…"


def _coerce(review: ReviewerResult | Mapping[str, Any]) -> _Review:
    if isinstance(review, ReviewerResult):
        return _Review(
            review.reviewer,
            str(review.provider),
            str(review.status),
            review.approved,
            float(review.score),
            review.feedback,
            review.veto,
            tuple(
                _Finding(
                    f.code,
                    str(f.severity),
                    f.message,
                    f.span.text if f.span else "",
                    f.span.start if f.span else -1,
                )
                for f in review.findings
            )
            if review.findings
            else (),
        )
    findings: list[_Finding] = []
    for raw in review.get("findings") or ():
        if not isinstance(raw, Mapping):
            continue
        span = raw.get("span")
        span_map = span if isinstance(span, Mapping) else {}
        findings.append(
            _Finding(
                str(raw.get("code", "")),
                str(raw.get("severity", "")),
                str(raw.get("message", "")),
                str(span_map.get("text", "")),
                _int(span_map.get("start"), -1),
            )
        )
    score = review.get("score")
    return _Review(
        reviewer=str(review.get("reviewer", "?")),
        provider=str(review.get("provider", "")),
        status=str(review.get("status", "ok")),
        approved=bool(review.get("approved", False)),
        score=float(score) if isinstance(score, int | float) else 0.0,
        feedback=str(review.get("feedback") or ""),
        veto=str(review["veto"]) if review.get("veto") else None,
        findings=tuple(findings),
    )


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
