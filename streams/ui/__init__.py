"""The decisions pages: server-rendered HTML from PostgreSQL, no script, no build step.

- `DecisionsUI`: the routes (a list with filters, one page per draft version), for `multiqa ui`
  (streams.ui.cli) and for a worker's operations endpoint with MULTIQA_UI=true.
- `Filters`, `FilterError`: the list's query string, validated.

The names load on first use (PEP 562): `multiqa`'s parser imports streams.ui.cli, which must not
pull in aiohttp and asyncpg to print `--help`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from streams.ui._app import DecisionsUI
    from streams.ui._queries import FilterError, Filters

__all__ = ["DecisionsUI", "FilterError", "Filters"]

_EXPORTS = {
    "DecisionsUI": "streams.ui._app",
    "FilterError": "streams.ui._queries",
    "Filters": "streams.ui._queries",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'streams.ui' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
