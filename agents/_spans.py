"""Child spans of a reviewer's work (model calls, guarded fetches), with attributes that are
safe to export: hosts and a cut URL, never a draft's full link; model names come from settings.

Only the OpenTelemetry API: without an SDK configured (streams.runtime.tracing.configure) these are
no-ops.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from opentelemetry import trace

TRACER_NAME = "multiqa.agents"
_URL_CHARS = 80


def tracer() -> trace.Tracer:
    return trace.get_tracer(TRACER_NAME)


def url_attributes(url: str) -> dict[str, str | int]:
    """`server.address`, `url.scheme` and `multiqa.url` (scheme://host/path cut to 80
    characters, no credentials, query or fragment) of an untrusted URL."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "")[:253]
        port = parts.port
    except ValueError:  # an unparseable authority: report nothing from it
        return {"multiqa.url": "(malformed)"}
    attrs: dict[str, str | int] = {"url.scheme": parts.scheme[:16], "server.address": host}
    if port is not None:
        attrs["server.port"] = port
    cut = f"{parts.scheme}://{host}{parts.path}"
    attrs["multiqa.url"] = cut if len(cut) <= _URL_CHARS else cut[: _URL_CHARS - 1] + "…"
    return attrs


def current_trace_id() -> str:
    """The current span's trace id as 32 hex digits ("" outside any trace)."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else ""
