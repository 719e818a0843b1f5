"""multiqa event contracts: Avro schemas (in `avro/`), their Python records, and the codec."""

from schemas.records import (
    Cost,
    DeadLetter,
    DraftSubmitted,
    Finding,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    ReviewSummary,
    Severity,
    Span,
    utc_now,
)

__all__ = [
    "Cost",
    "DeadLetter",
    "DraftSubmitted",
    "Finding",
    "Provider",
    "QADecision",
    "ReviewStatus",
    "ReviewSummary",
    "ReviewerResult",
    "Severity",
    "Span",
    "utc_now",
]
