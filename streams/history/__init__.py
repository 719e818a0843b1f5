"""Review history in PostgreSQL: stored drafts (qa_drafts) and re-reviews of them.

- `persist_drafts`, `load_drafts`, `load_draft`: the qa_drafts table (written by the sinks).
- `multiqa rereview` (streams.history.cli): re-run reviewers on stored drafts into a shadow
  namespace (rereview_* tables) and report what would flip.
"""

from streams.history._drafts import draft_from_row, load_draft, load_drafts, persist_drafts

__all__ = ["draft_from_row", "load_draft", "load_drafts", "persist_drafts"]
