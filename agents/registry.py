"""Which reviewers exist. Each reviewer module publishes `SPECS: tuple[ReviewerSpec, ...]`.

A module that is not built (not importable because it does not exist) is simply absent; any other
import error is a bug and raises.
"""

from __future__ import annotations

import importlib
from functools import cache

from agents.base import REVIEWER_NAMES, ReviewerSpec

_MODULES: tuple[str, ...] = (
    "agents.validator",
    "agents.critic",
    "agents.consistency",
    "agents.citations",
    "agents.urls",
    "agents.factcheck",
    "agents.vision",
)


@cache
def all_reviewers() -> tuple[ReviewerSpec, ...]:
    """Every available reviewer, in REVIEWER_NAMES order."""
    specs: dict[str, ReviewerSpec] = {}
    for module_name in _MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        for spec in getattr(module, "SPECS", ()):
            specs[spec.name] = spec
    return tuple(specs[name] for name in REVIEWER_NAMES if name in specs)


def get_reviewer(name: str) -> ReviewerSpec:
    for spec in all_reviewers():
        if spec.name == name:
            return spec
    known = ", ".join(s.name for s in all_reviewers())
    raise KeyError(f"unknown reviewer {name!r}; available: {known}")
