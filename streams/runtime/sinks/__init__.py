"""Persistence of the stream's events in PostgreSQL: idempotent, and patient with the database.

- `Sink`: what agents await before acknowledging an event (`await sink.write_decision(d)`); it
  retries with capped backoff while the database is down, so writes are delayed, never lost.
- `persist_decision(s)`, `persist_review(s)`, `persist_dead_letter`, `persist_audit`: the single
  write of each event kind (one or a batch per transaction), safe to repeat (Kafka delivers at
  least once).
- `retry_forever`, `Backoff` (agents.retry's), `SinkError`: database writes retried while the
  server is away.
- `install(app, topics, runtime)`: the `sinks` role's Faust agents (decisions, reviews, dead
  letters into PostgreSQL), acking each event only after its write.
"""

from agents.audit import persist_audit
from agents.retry import Backoff
from streams.runtime.sinks._agents import SinkAgents, install
from streams.runtime.sinks._persist import (
    persist_dead_letter,
    persist_dead_letters,
    persist_decision,
    persist_decisions,
    persist_review,
    persist_reviews,
)
from streams.runtime.sinks._retry import SinkError, is_transient, retry_forever
from streams.runtime.sinks._sink import Sink

__all__ = [
    "Backoff",
    "Sink",
    "SinkAgents",
    "SinkError",
    "install",
    "is_transient",
    "persist_audit",
    "persist_dead_letter",
    "persist_dead_letters",
    "persist_decision",
    "persist_decisions",
    "persist_review",
    "persist_reviews",
    "retry_forever",
]
