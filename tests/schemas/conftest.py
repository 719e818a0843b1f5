"""Fixtures for the event-contract tests: typical records as reviewers and the writer send them."""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from schemas import Cost, DraftSubmitted, Finding, Provider, ReviewerResult, Severity, Span
from tests.helpers.drafts import make_draft
from tests.helpers.http import FakeServer, Reply, Seen
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


@dataclass
class FakeRegistry(FakeServer):
    """The two calls of the Confluent Schema Registry REST API the codec uses, over real HTTP (the
    shared kit, tests.helpers.http): POST /subjects/{subject}/versions and GET /schemas/ids/{id},
    with the registry's content type and error bodies. Set `fail_with` to answer every request
    with that status."""

    schemas: dict[int, str] = field(default_factory=dict)
    subjects: dict[str, list[int]] = field(default_factory=dict)
    fail_with: int | None = None

    @property
    def requests(self) -> list[tuple[str, str]]:
        with self._lock:
            return [(s.method, s.path) for s in self.seen]

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

    def respond(self, seen: Seen) -> Reply:
        if self.fail_with:
            return _answer(self.fail_with, {"error_code": 50001, "message": "boom"})
        if seen.method == "POST":
            body = json.loads(seen.body or b"{}")
            match = re.fullmatch(r"/subjects/([^/]+)/versions", seen.path)
            if match is None or not isinstance(body.get("schema"), str):
                return _answer(422, {"error_code": 42201, "message": "Invalid schema"})
            subject = urllib.parse.unquote(match[1])
            return _answer(200, {"id": self.register(subject, body["schema"])})
        match = re.fullmatch(r"/schemas/ids/(\d+)", seen.path)
        if match is None or int(match[1]) not in self.schemas:
            return _answer(404, {"error_code": 40403, "message": "Schema not found"})
        return _answer(200, {"schema": self.schemas[int(match[1])]})


def _answer(status: int, body: object) -> Reply:
    return Reply.json(body, status, content_type="application/vnd.schemaregistry.v1+json")


@pytest.fixture
def registry() -> Iterator[FakeRegistry]:
    with FakeRegistry() as fake:
        yield fake
