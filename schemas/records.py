"""Python records of every multiqa event.

These dataclasses are what `agents/` and `streams/` pass around; the Avro schemas in `avro/` are the
wire contract. `tests/schemas` fails when the two drift apart (field names, order, optionality).
Records are immutable; build a changed copy with `dataclasses.replace`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, datetime


def utc_now() -> datetime:
    """Now, in UTC, truncated to milliseconds (what Avro timestamp-millis can carry exactly)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond - now.microsecond % 1000)


class Provider(enum.StrEnum):
    PROGRAMMATIC = "programmatic"
    OLLAMA = "ollama"
    ANTHROPIC = "anthropic"
    CONSISTENCY_GATE = "consistency_gate"
    VISION_GATE = "vision_gate"
    WEB_FACTCHECK = "web_factcheck"
    URL_VERIFIER = "url_verifier"
    HTTP_HEAD = "http_head"
    UNKNOWN = "unknown"
    # Added in ReviewerResult.v3 (last: Avro enums grow at the end): an OpenAI-compatible server.
    OPENAI = "openai"


class ReviewStatus(enum.StrEnum):
    OK = "ok"
    SKIPPED = "skipped"
    ERROR = "error"


class Severity(enum.StrEnum):
    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    message: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Cost:
    tokens_in: int = 0
    tokens_out: int = 0
    usd: float = 0.0
    kwh: float = 0.0
    duration_ms: int = 0
    model: str | None = None
    # Added in ReviewerResult.v3: answers the defensive parser had to read because the server
    # ignored or refused the structured-output request (0: every answer was structured).
    parser_fallbacks: int = 0


@dataclass(frozen=True, slots=True)
class DraftSubmitted:
    draft_id: str
    version: int
    title: str
    content: str
    task_id: str | None = None
    topic: str = ""
    research_sources: tuple[str, ...] = ()
    preview_url: str | None = None
    writer_model: str | None = None
    site_domain: str | None = None
    niche: str | None = None
    submitted_at: datetime = field(default_factory=utc_now)


@dataclass(frozen=True, slots=True)
class ReviewerResult:
    """One reviewer's verdict. Positional order matches the seed API:
    `ReviewerResult(reviewer, approved, score, feedback, provider)`."""

    reviewer: str
    approved: bool
    score: float
    feedback: str
    provider: Provider
    status: ReviewStatus = ReviewStatus.OK
    findings: tuple[Finding, ...] = ()
    veto: str | None = None
    cost: Cost = field(default_factory=Cost)
    draft_id: str = ""
    version: int = 0
    produced_at: datetime = field(default_factory=utc_now)
    # Added in ReviewerResult.v2: Settings.version() of the settings the reviewer ran with.
    settings_version: str = ""


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    reviewer: str
    provider: str
    status: str
    approved: bool
    score: float
    feedback: str
    veto: str | None = None


@dataclass(frozen=True, slots=True)
class QADecision:
    decision_id: str
    draft_id: str
    version: int
    approved: bool
    final_score: float
    summary: str
    feedback_text: str
    task_id: str | None = None
    reviews: tuple[ReviewSummary, ...] = ()
    missing_reviewers: tuple[str, ...] = ()
    vetoes: tuple[str, ...] = ()
    timed_out: bool = False
    short_circuited: bool = False
    early_decided: bool = False
    needs_human_review: bool = False
    settings_version: str = ""
    decided_at: datetime = field(default_factory=utc_now)
    trace_id: str = ""  # v2: the review trace (W3C trace id, 32 hex digits), "" when none


@dataclass(frozen=True, slots=True)
class DeadLetter:
    source_topic: str
    source_partition: int
    source_offset: int
    error_type: str
    error: str
    raw: bytes
    consumer: str = ""
    key: bytes | None = None
    failed_at: datetime = field(default_factory=utc_now)
