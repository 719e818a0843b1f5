"""multiqa reviewers: pure Python, no Kafka. The public surface is re-exported here."""

from agents.base import Deps, ReviewerSpec, run_reviewer
from agents.settings import Settings, SettingsError

__all__ = ["Deps", "ReviewerSpec", "Settings", "SettingsError", "run_reviewer"]
