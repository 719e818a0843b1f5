"""Persistence of the stream's events in PostgreSQL: idempotent, and patient with the database.

- `Sink`: what agents await before acknowledging an event (`await sink.write_decision(d)`); it
  retries with capped backoff while the database is down, so writes are delayed, never lost.
- `persist_decision`, `persist_review`, `persist_dead_letter`, `persist_audit`: the single write
  of each event kind, safe to repeat (Kafka delivers at least once).
- `retry_forever`, `Backoff`, `SinkError`: the retry policy, reusable for other database writes.
"""

from streams.sinks._persist import (
    persist_audit,
    persist_dead_letter,
    persist_decision,
    persist_review,
)
from streams.sinks._retry import Backoff, SinkError, is_transient, retry_forever
from streams.sinks._sink import Sink

__all__ = [
    "Backoff",
    "Sink",
    "SinkError",
    "is_transient",
    "persist_audit",
    "persist_dead_letter",
    "persist_decision",
    "persist_review",
    "retry_forever",
]
