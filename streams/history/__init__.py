"""Review history in PostgreSQL: stored drafts (qa_drafts) and re-reviews of them.

- `persist_drafts`, `load_drafts`, `load_draft`: the qa_drafts table (written by the sinks).
- `multiqa rereview` (streams.history.cli): re-run reviewers on stored drafts into a shadow
  namespace (rereview_* tables) and report what would flip.

The names load on first use (PEP 562): `multiqa`'s parser imports streams.history.cli, which must
not pull in asyncpg and the codec to print `--help`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from streams.history._drafts import draft_from_row, load_draft, load_drafts, persist_drafts

__all__ = ["draft_from_row", "load_draft", "load_drafts", "persist_drafts"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'streams.history' has no attribute {name!r}")
    from streams.history import _drafts

    value = getattr(_drafts, name)
    globals()[name] = value
    return value
