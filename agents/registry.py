"""Which reviewers exist: `REVIEWERS`, the one list. Adding a reviewer is one line here plus its
module, which publishes `SPECS: tuple[ReviewerSpec, ...]` holding the reviewers this list names
for it, no more and no fewer.

Mistakes fail loudly, never drop a reviewer silently:
- at import of this module: a name twice, a name that is not a lower-case identifier, a module
  that does not exist (`ReviewerRegistryError`);
- when the reviewers load (`all_reviewers()`, the first time the stream or the in-process review
  asks): a module whose SPECS lacks a name listed for it, or holds one this list does not give it.
Reviewer modules load on first use, not at import: the command line imports this list (for
`qa_required_to_pass` and friends) without loading the model SDKs.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from schemas import MultiqaError

if TYPE_CHECKING:
    from agents.base import ReviewerSpec


class ReviewerRegistryError(MultiqaError):
    """The reviewer list and the reviewer modules disagree (a typo, a missing module, a name
    twice): a bug of the checkout, raised before any draft is reviewed."""


# (name, module that defines it), in the order feedback lists the reviewers.
REVIEWERS: tuple[tuple[str, str], ...] = (
    ("validator", "agents.validator"),
    ("critic", "agents.critic"),
    ("consistency", "agents.consistency"),
    ("topic_delivery", "agents.consistency"),
    ("citations", "agents.citations"),
    ("urls", "agents.urls"),
    ("web_factcheck", "agents.factcheck"),
    ("vision", "agents.vision"),
    ("preview", "agents.vision"),
)

_NAME = re.compile(r"[a-z][a-z0-9_]*")


def check_entries(entries: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The names of `entries`, after checking what can be checked without importing a reviewer:
    each name well-formed and once, each module present."""
    names: list[str] = []
    for name, module in entries:
        if not _NAME.fullmatch(name):
            raise ReviewerRegistryError(f"reviewer name {name!r} is not a lower-case identifier")
        if name in names:
            raise ReviewerRegistryError(f"reviewer {name!r} is listed twice")
        try:
            found = importlib.util.find_spec(module)
        except ModuleNotFoundError:  # its parent package does not exist either
            found = None
        if found is None:
            raise ReviewerRegistryError(f"reviewer {name!r}: no module {module!r}")
        names.append(name)
    return tuple(names)


# Every reviewer name multiqa knows, in the order feedback lists them.
REVIEWER_NAMES: tuple[str, ...] = check_entries(REVIEWERS)


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
