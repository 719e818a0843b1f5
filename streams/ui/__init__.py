"""The decisions pages: server-rendered HTML from PostgreSQL, no script, no build step.

- `DecisionsUI`: the routes (a list with filters, one page per draft version), for `multiqa ui`
  (streams.ui.cli) and for a worker's operations endpoint with MULTIQA_UI=true.
- `Filters`, `FilterError`: the list's query string, validated.
"""

from streams.ui._app import DecisionsUI
from streams.ui._queries import FilterError, Filters

__all__ = ["DecisionsUI", "FilterError", "Filters"]
