"""Log records that say which draft and which trace they belong to.

`LogContextFilter` stamps every record with `trace_id`, `span_id` (the current OpenTelemetry
span's, empty when none) and `draft_id` ("<id> v<version>", set by `draft_context` around the
handling of one draft's event). mode's formatters (the worker's) print them through their
`%(extra)s` field; `install_log_context` wraps any other formatter to append them, so a line
reads `... draft_id='d-1 v1', trace_id='4bf9…', span_id='00f0…'`.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace

_DRAFT: contextvars.ContextVar[str] = contextvars.ContextVar("multiqa_draft", default="")


@contextmanager
def draft_context(draft_id: str, version: int) -> Iterator[None]:
    """Log records made inside (and in tasks started inside) carry this draft."""
    token = _DRAFT.set(f"{draft_id[:200]} v{version}")
    try:
        yield
    finally:
        _DRAFT.reset(token)


def current_draft() -> str:
    return _DRAFT.get()


def _context() -> dict[str, str]:
    found: dict[str, str] = {}
    draft = _DRAFT.get()
    if draft:
        found["draft_id"] = draft
    span = trace.get_current_span().get_span_context()
    if span.is_valid:
        found["trace_id"] = format(span.trace_id, "032x")
        found["span_id"] = format(span.span_id, "016x")
    return found


class LogContextFilter(logging.Filter):
    """Adds trace_id, span_id, draft_id to a record (attributes, and mode's `data` extras)."""

    def filter(self, record: logging.LogRecord) -> bool:
        found = _context()
        record.trace_id = found.get("trace_id", "")
        record.span_id = found.get("span_id", "")
        record.draft_id = found.get("draft_id", "")
        if found:
            data = getattr(record, "data", None)
            record.data = {**(data if isinstance(data, dict) else {}), **found}
        return True


class _SuffixFormatter(logging.Formatter):
    """Another formatter's line, followed by the record's context when it has one."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        line = self.inner.format(record)
        parts = [
            f"{name}={getattr(record, name)!r}"
            for name in ("draft_id", "trace_id", "span_id")
            if getattr(record, name, "")
        ]
        return f"{line} [{', '.join(parts)}]" if parts else line


def install_log_context(logger: logging.Logger | None = None) -> None:
    """Stamp and print the context on every handler of `logger` (default: the root logger).
    Idempotent; call it again after something replaced the handlers."""
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, LogContextFilter) for f in handler.filters):
            handler.addFilter(LogContextFilter())
        formatter = handler.formatter or logging.Formatter()
        fmt = getattr(formatter, "_fmt", "") or ""
        if (
            not isinstance(formatter, _SuffixFormatter)
            and "extra)" not in fmt
            and ("trace_id" not in fmt)
        ):
            handler.setFormatter(_SuffixFormatter(formatter))
