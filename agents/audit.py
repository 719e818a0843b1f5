"""The one audit_log writer, and what makes untrusted text storable in PostgreSQL.

`persist_audit` writes one event (idempotent with a dedupe_key); `audit_writer(pool)` is the
`agents.base.AuditSink` the reviewers get, in the stream and in-process alike. The sinks
(streams.runtime.sinks) write their audit events through the same function, so every event is
cleaned the same way: a draft's text may hold NUL or lone surrogates, which PostgreSQL refuses.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

__all__ = ["INSERT_AUDIT", "audit_writer", "persist_audit", "storable_text"]

# One audit event; $3 (dedupe_key) makes a re-delivered one a no-op (returns no row).
INSERT_AUDIT = """
INSERT INTO audit_log (event_type, payload, dedupe_key)
VALUES ($1, $2::text::jsonb, $3)
ON CONFLICT (dedupe_key) DO NOTHING
RETURNING true
"""


def storable_text(value: str) -> str:
    """PostgreSQL text cannot hold NUL, and UTF-8 cannot hold lone surrogates; drafts are
    untrusted and their text flows into feedback, so make any string storable."""
    if "\x00" in value:
        value = value.replace("\x00", "\ufffd")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value


async def persist_audit(
    pool: Any, event_type: str, payload: Mapping[str, Any], *, dedupe_key: str | None = None
) -> bool:
    """Write an audit_log event; with a dedupe_key, a re-delivered event is written once.
    Returns True when this call wrote it."""
    body = {str(k): (storable_text(v) if isinstance(v, str) else v) for k, v in payload.items()}
    inserted = await pool.fetchval(
        INSERT_AUDIT,
        storable_text(event_type),
        json.dumps(body, default=str),
        None if dedupe_key is None else storable_text(dedupe_key),
    )
    return bool(inserted)


def audit_writer(pool: Any) -> Callable[[str, Mapping[str, Any]], Awaitable[None]]:
    """An `agents.base.AuditSink` writing to audit_log. A payload key `dedupe_key` makes the
    event idempotent (a re-delivered event is written once)."""

    async def write(event_type: str, payload: Mapping[str, Any]) -> None:
        body = dict(payload)
        dedupe_key = body.pop("dedupe_key", None)
        await persist_audit(
            pool, event_type, body, dedupe_key=None if dedupe_key is None else str(dedupe_key)
        )

    return write
