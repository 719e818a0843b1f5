"""Operating multiqa: Prometheus metrics, liveness/readiness probes, log context.

- `record_result`, `record_decision`, `record_dead_letter`, `record_sink_write`: the one call
  per event that updates the metrics (prometheus-client's default registry; names `multiqa_*`).
- `WorkerOps`: a worker's `/metrics`, `/healthz`, `/readyz` (and the decisions pages with
  `MULTIQA_UI=true`), bound to `MULTIQA_OPS_HOST:MULTIQA_OPS_PORT`.
- `Readiness`, `OpsServer`, `LagPoller`: the parts, for embedding and tests.
- `install_log_context`, `draft_context`: log records carry trace_id, span_id and draft_id.

Errors: `OpsServerError` (RuntimeError): the endpoint's address cannot be bound.
"""

from streams.runtime.observe._health import Readiness, broker_check, database_check
from streams.runtime.observe._lag import LagPoller
from streams.runtime.observe._logs import LogContextFilter, draft_context, install_log_context
from streams.runtime.observe._metrics import (
    reason_of,
    record_dead_letter,
    record_decision,
    record_result,
    record_sink_write,
)
from streams.runtime.observe._server import OpsServer, OpsServerError
from streams.runtime.observe._worker import WorkerOps

__all__ = [
    "LagPoller",
    "LogContextFilter",
    "OpsServer",
    "OpsServerError",
    "Readiness",
    "WorkerOps",
    "broker_check",
    "database_check",
    "draft_context",
    "install_log_context",
    "reason_of",
    "record_dead_letter",
    "record_decision",
    "record_result",
    "record_sink_write",
]
