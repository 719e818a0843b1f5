"""Fixtures for the event-contract tests: typical records as reviewers and the writer send them."""

from __future__ import annotations

import http.server
import json
import re
import threading
import urllib.parse
from collections.abc import Iterator

import pytest

from schemas import Cost, DraftSubmitted, Finding, Provider, ReviewerResult, Severity, Span
from tests.helpers.drafts import make_draft
from tests.schemas.event_strategies import AT

# --- plain examples ---------------------------------------------------------------------------


@pytest.fixture
def result() -> ReviewerResult:
    """A typical ReviewerResult, as the critic would publish it."""
    return ReviewerResult(
        "critic",
        True,
        82.5,
        "Solid structure; one statistic needs a source.",
        Provider.OLLAMA,
        findings=(
            Finding(
                "unsourced_statistic",
                Severity.WARNING,
                "'73% of developers' has no source.",
                Span(120, 138, "73% of developers"),
            ),
        ),
        cost=Cost(tokens_in=1850, tokens_out=240, kwh=0.0021, duration_ms=8400, model="gemma3"),
        draft_id="draft-42",
        version=3,
        produced_at=AT,
        settings_version="s-5f1c",
    )


@pytest.fixture
def draft() -> DraftSubmitted:
    return make_draft(
        "# Choosing a NAS\n\nA NAS is ...",
        draft_id="draft-42",
        version=3,
        title="Choosing a NAS in 2026",
        task_id="task-9",
        topic="home NAS buying guide",
        research_sources=("https://example.com/nas",),
        site_domain="example.org",
        submitted_at=AT,
    )


# --- a Confluent-compatible schema registry on 127.0.0.1 ----------------------------------------


class FakeRegistry:
    """The two calls of the Confluent Schema Registry REST API the codec uses, over real HTTP:
    POST /subjects/{subject}/versions and GET /schemas/ids/{id}, with the registry's content type
    and error bodies. Set `fail_with` to answer every request with that status."""

    def __init__(self) -> None:
        self.schemas: dict[int, str] = {}
        self.subjects: dict[str, list[int]] = {}
        self.requests: list[tuple[str, str]] = []
        self.fail_with: int | None = None
        self.url = ""

    def register(self, subject: str, schema: str) -> int:
        for schema_id, text in self.schemas.items():
            if json.loads(text) == json.loads(schema):
                break
        else:
            schema_id = len(self.schemas) + 1
            self.schemas[schema_id] = schema
        versions = self.subjects.setdefault(subject, [])
        if schema_id not in versions:
            versions.append(schema_id)
        return schema_id


@pytest.fixture
def registry() -> Iterator[FakeRegistry]:
    fake = FakeRegistry()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self, status: int, body: object) -> None:
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            fake.requests.append(("POST", self.path))
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if fake.fail_with:
                return self._answer(fake.fail_with, {"error_code": 50001, "message": "boom"})
            match = re.fullmatch(r"/subjects/([^/]+)/versions", self.path)
            if match is None or not isinstance(body.get("schema"), str):
                return self._answer(422, {"error_code": 42201, "message": "Invalid schema"})
            subject = urllib.parse.unquote(match[1])
            return self._answer(200, {"id": fake.register(subject, body["schema"])})

        def do_GET(self) -> None:
            fake.requests.append(("GET", self.path))
            if fake.fail_with:
                return self._answer(fake.fail_with, {"error_code": 50001, "message": "boom"})
            match = re.fullmatch(r"/schemas/ids/(\d+)", self.path)
            if match is None or int(match[1]) not in fake.schemas:
                return self._answer(404, {"error_code": 40403, "message": "Schema not found"})
            return self._answer(200, {"schema": fake.schemas[int(match[1])]})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
