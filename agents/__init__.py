"""multiqa reviewers: pure Python, no Kafka. The public surface is re-exported here."""

from agents.aggregate import Aggregate, aggregate, build_decision, decision_id, is_settled
from agents.base import Deps, ReviewerSpec, run_reviewer
from agents.feedback import format_qa_feedback_from_reviews
from agents.qa import MultiModelQA, MultiModelResult
from agents.settings import Settings, SettingsError
from agents.settings_service import SettingsService
from agents.validator import ValidationReport, validate

__all__ = [
    "Aggregate",
    "Deps",
    "MultiModelQA",
    "MultiModelResult",
    "ReviewerSpec",
    "Settings",
    "SettingsError",
    "SettingsService",
    "ValidationReport",
    "aggregate",
    "build_decision",
    "decision_id",
    "format_qa_feedback_from_reviews",
    "is_settled",
    "run_reviewer",
    "validate",
]
