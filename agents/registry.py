"""Loads the reviewers that agents.reviewers.REVIEWERS lists (the one list) and checks what
its import could not: each module's `SPECS: tuple[ReviewerSpec, ...]` holds exactly the
reviewers the list names for it, no more and no fewer (a mismatch is a ReviewerRegistryError,
never a reviewer dropped silently). Modules load on first use (`all_reviewers()`).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from agents.reviewers import REVIEWER_NAMES, REVIEWERS, ReviewerRegistryError, check_entries

if TYPE_CHECKING:
    from agents.base import ReviewerSpec

__all__ = [
    "REVIEWERS",
    "REVIEWER_NAMES",
    "ReviewerRegistryError",
    "all_reviewers",
    "check_entries",
    "get_reviewer",
    "load_specs",
]


def load_specs(entries: Sequence[tuple[str, str]]) -> tuple[ReviewerSpec, ...]:
    """Import every module of `entries` and return their specs in the entries' order; a module
    whose SPECS does not hold exactly the names listed for it is a ReviewerRegistryError."""
    check_entries(entries)
    wanted: dict[str, list[str]] = {}
    for name, module in entries:
        wanted.setdefault(module, []).append(name)
    specs: dict[str, ReviewerSpec] = {}
    for module_name, names in wanted.items():
        loaded = importlib.import_module(module_name)
        published = {spec.name: spec for spec in getattr(loaded, "SPECS", ())}
        missing = [n for n in names if n not in published]
        if missing:
            raise ReviewerRegistryError(
                f"{module_name}.SPECS has no reviewer {', '.join(map(repr, missing))} "
                f"(it publishes: {', '.join(published) or 'nothing'})"
            )
        unlisted = sorted(set(published) - set(names))
        if unlisted:
            raise ReviewerRegistryError(
                f"{module_name}.SPECS publishes {', '.join(map(repr, unlisted))}, which "
                "agents.registry.REVIEWERS does not list for it"
            )
        specs.update(published)
    return tuple(specs[name] for name, _ in entries)


@cache
def all_reviewers() -> tuple[ReviewerSpec, ...]:
    """Every reviewer, in REVIEWER_NAMES order."""
    return load_specs(REVIEWERS)


def get_reviewer(name: str) -> ReviewerSpec:
    for spec in all_reviewers():
        if spec.name == name:
            return spec
    known = ", ".join(s.name for s in all_reviewers())
    raise KeyError(f"unknown reviewer {name!r}; available: {known}")
