"""multiqa reviewers: pure Python, no Kafka. The public surface is re-exported here.

The names load on first use (PEP 562): importing one small module of this package, e.g.
`agents.settings` for the CLI's validator, must not load every reviewer and its model SDKs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.aggregate import Aggregate, aggregate, build_decision, decision_id, is_settled
    from agents.base import Deps, ReviewerSpec, run_reviewer
    from agents.feedback import format_qa_feedback_from_reviews
    from agents.qa import MultiModelQA, MultiModelResult
    from agents.reviewers.validator import ValidationReport, validate
    from agents.settings import Settings, SettingsError
    from agents.settings_service import SettingsService

_EXPORTS = {
    "Aggregate": "agents.aggregate",
    "aggregate": "agents.aggregate",
    "build_decision": "agents.aggregate",
    "decision_id": "agents.aggregate",
    "is_settled": "agents.aggregate",
    "Deps": "agents.base",
    "ReviewerSpec": "agents.base",
    "run_reviewer": "agents.base",
    "format_qa_feedback_from_reviews": "agents.feedback",
    "MultiModelQA": "agents.qa",
    "MultiModelResult": "agents.qa",
    "Settings": "agents.settings",
    "SettingsError": "agents.settings",
    "SettingsService": "agents.settings_service",
    "ValidationReport": "agents.reviewers.validator",
    "validate": "agents.reviewers.validator",
}

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # next time a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
