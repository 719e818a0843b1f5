"""The reviewers: `REVIEWERS` is the one list of which exist and in what order, one line each.
Adding a reviewer is its module (or package) plus its line here; agents.registry loads them.
One home per reviewer: its spec, prompt, answer schema and the reader of the answer live in its
own module or folder; what several share is a private module here (`_text_gate`, `_vision`).

Nothing here imports a reviewer: the command line reads this list (for `qa_required_to_pass` and
friends) without loading the model SDKs. What can be checked without importing one is checked at
import of this package, loudly (`ReviewerRegistryError`): a name twice, a module twice (two
reviewers sharing one home), a name that is not a lower-case identifier, a module that does not
exist. agents.registry checks the rest when the
reviewers load: each module's SPECS holds exactly the names listed for it here.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence

from schemas import MultiqaError


class ReviewerRegistryError(MultiqaError):
    """The reviewer list and the reviewer modules disagree (a typo, a missing module, a name
    twice): a bug of the checkout, raised before any draft is reviewed."""


# (name, module that defines it), in the order feedback lists the reviewers.
REVIEWERS: tuple[tuple[str, str], ...] = (
    ("validator", "agents.reviewers.validator"),
    ("critic", "agents.reviewers.critic"),
    ("consistency", "agents.reviewers.consistency"),
    ("topic_delivery", "agents.reviewers.topic_delivery"),
    ("citations", "agents.reviewers.citations"),
    ("urls", "agents.reviewers.urls"),
    ("web_factcheck", "agents.reviewers.factcheck"),
    ("vision", "agents.reviewers.vision"),
    ("preview", "agents.reviewers.preview"),
)

_NAME = re.compile(r"[a-z][a-z0-9_]*")


def check_entries(entries: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The names of `entries`, after checking what can be checked without importing a reviewer:
    each name well-formed and once, each module present and the home of one reviewer."""
    names: list[str] = []
    homes: dict[str, str] = {}
    for name, module in entries:
        if not _NAME.fullmatch(name):
            raise ReviewerRegistryError(f"reviewer name {name!r} is not a lower-case identifier")
        if name in names:
            raise ReviewerRegistryError(f"reviewer {name!r} is listed twice")
        if module in homes:
            raise ReviewerRegistryError(
                f"reviewers {homes[module]!r} and {name!r} share the module {module!r}; "
                "each reviewer has a module (or folder) of its own"
            )
        homes[module] = name
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

__all__ = ["REVIEWERS", "REVIEWER_NAMES", "ReviewerRegistryError", "check_entries"]
