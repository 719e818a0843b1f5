"""The operations pieces on their own: skip/error reasons as bounded labels, URLs cut before they
become span attributes, log records stamped with their context, readiness checks that hang or
fail, the endpoint refusing a taken port, and `multiqa worker` saying so in one line."""

# OpenTelemetry types a span's `attributes` Optional; the SDK's finished spans always hold a
# mapping, and these tests index it directly.
# mypy: disable-error-code="index,union-attr"

from __future__ import annotations

import asyncio
import logging
import socket

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider

from agents._spans import url_attributes
from agents.base import errored, skipped
from schemas import Provider, QADecision
from streams import cli
from streams.runtime.observe import (
    LogContextFilter,
    OpsServer,
    OpsServerError,
    Readiness,
    draft_context,
    install_log_context,
    reason_of,
    record_decision,
)
from streams.runtime.reviewer_agents import ALREADY_DECIDED


@pytest.mark.parametrize(
    ("feedback", "reason"),
    [
        ("critic is disabled in settings", "disabled"),
        (ALREADY_DECIDED, "cancelled"),
        ("critic skipped: Ollama not available or health check timed out after 5s", "unavailable"),
        ("consistency skipped: timeout after 60s", "timeout"),
        ("no cited URLs to verify", "not_applicable"),
        ("invalid result: score 150 out of range", "invalid_result"),
        ("KeyError: 'x'", "other"),
    ],
)
def test_reasons_are_a_small_fixed_set(feedback: str, reason: str) -> None:
    assert reason_of(skipped("critic", Provider.OLLAMA, feedback)) == reason
    assert reason_of(errored("critic", Provider.OLLAMA, feedback)) == reason


def test_an_untrusted_url_is_cut_before_it_becomes_an_attribute() -> None:
    long_path = "/a" * 200
    attrs = url_attributes(f"https://user:pw@Example.COM:8443{long_path}?token=secret#frag")
    assert attrs["server.address"] == "example.com"
    assert attrs["server.port"] == 8443
    assert attrs["url.scheme"] == "https"
    assert len(str(attrs["multiqa.url"])) <= 80
    text = " ".join(map(str, attrs.values()))
    assert "secret" not in text and "pw" not in text and "frag" not in text
    assert url_attributes("http://[::1")["multiqa.url"] == "(malformed)"


def test_log_records_carry_the_draft_and_the_current_span() -> None:
    tracer = TracerProvider().get_tracer("t")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)
            lines.append(self.format(record))

    lines: list[str] = []
    logger = logging.getLogger("multiqa.tests.logctx")
    logger.propagate = False
    handler = Keep()
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    install_log_context(logger)
    install_log_context(logger)  # idempotent
    try:
        logger.warning("outside")
        with draft_context("d-1", 3), tracer.start_as_current_span("s") as span:
            logger.warning("inside %s", "a review")
    finally:
        logger.removeHandler(handler)
    outside, inside = records
    assert [outside.__dict__[k] for k in ("trace_id", "span_id", "draft_id")] == ["", "", ""]
    assert lines[0] == "WARNING outside"
    assert inside.__dict__["draft_id"] == "d-1 v3"
    assert inside.__dict__["trace_id"] == format(span.get_span_context().trace_id, "032x")
    assert inside.__dict__["span_id"] == format(span.get_span_context().span_id, "016x")
    assert lines[1].startswith("WARNING inside a review [draft_id='d-1 v3', trace_id='")
    # mode's formatters (the worker's) print `record.data` as their %(extra)s field.
    assert inside.__dict__["data"]["draft_id"] == "d-1 v3"
    assert sum(isinstance(f, LogContextFilter) for f in handler.filters) == 1


async def test_readiness_fails_a_check_that_hangs_or_raises_and_never_hangs_itself() -> None:
    async def hangs() -> tuple[bool, str]:
        await asyncio.Event().wait()
        return True, ""

    async def raises() -> tuple[bool, str]:
        raise ConnectionRefusedError("refused")

    async def fine() -> tuple[bool, str]:
        return True, "fine"

    readiness = Readiness(timeout=0.2)
    readiness.add("hangs", hangs)
    readiness.add("raises", raises)
    readiness.add("fine", fine)
    async with asyncio.timeout(2):
        ready, results = await readiness.run()
    assert not ready
    assert results["hangs"] == (False, "no answer within 0.2 s")
    assert results["raises"] == (False, "ConnectionRefusedError: refused")
    assert results["fine"] == (True, "fine")
    assert (await Readiness().run())[0] is False  # nothing registered yet: not ready


async def test_the_endpoint_refuses_a_taken_port_and_serves_text_probes() -> None:
    server = OpsServer(Readiness(), port=0)
    await server.start()
    try:
        taken = OpsServer(Readiness(), port=server.port)
        with pytest.raises(OpsServerError, match="is in use"):
            await taken.start()
        async with httpx.AsyncClient() as client:
            response = await client.get(f"{server.url}/readyz")
            assert response.status_code == 503
            assert response.text.startswith("not ready\nstarting: FAIL")
            response = await client.get(f"{server.url}/healthz")
            assert response.status_code == 200 and response.text.startswith("alive\n")
            assert (await client.get(f"{server.url}/nope")).status_code == 404
    finally:
        await server.stop()


def test_worker_with_its_ops_port_taken_exits_with_one_line(monkeypatch, capsys) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        monkeypatch.setenv("MULTIQA_OPS_PORT", str(port))
        # Nothing else is contacted: the endpoint is bound before the broker is asked.
        monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", "127.0.0.1:9")
        assert cli.main(["worker", "--reviewers", "validator", "--no-sinks"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(
        "multiqa worker: error: MULTIQA_OPS_PORT: the operations endpoint "
        f"127.0.0.1:{port} is in use"
    )


def test_every_decision_flag_and_a_deadline_miss_are_counted() -> None:
    """The stream test's run has short-circuits only; the other flags and the deadline-miss
    counter (the aggregator's one record_decision call, whatever decided) checked here (audit)."""
    from prometheus_client import REGISTRY

    def value(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    flags = ("early", "short_circuit", "timed_out", "needs_human_review")
    before = {f: value("multiqa_decision_flags_total", outcome="rejected", flag=f) for f in flags}
    misses = value("multiqa_aggregator_deadline_misses_total")
    rejected = value("multiqa_decisions_total", outcome="rejected")

    def decision(**flags_on: object) -> QADecision:
        return QADecision("x", "d", 1, False, 40.0, "s", "f", **flags_on)  # type: ignore[arg-type]

    record_decision(decision(timed_out=True, missing_reviewers=("critic",)))
    record_decision(decision(timed_out=True))  # timed out with nothing missing: no miss
    record_decision(decision(early_decided=True, needs_human_review=True))
    after = {f: value("multiqa_decision_flags_total", outcome="rejected", flag=f) for f in flags}
    assert {f: after[f] - before[f] for f in flags} == {
        "early": 1, "short_circuit": 0, "timed_out": 2, "needs_human_review": 1,
    }  # fmt: skip
    assert value("multiqa_aggregator_deadline_misses_total") - misses == 1
    assert value("multiqa_decisions_total", outcome="rejected") - rejected == 3


async def test_a_refused_redirect_leaves_no_url_in_the_fetch_span() -> None:
    """Found in the audit: a fetch refused on a redirect raised URLRefused("redirect to <the
    whole target>: ...") out of the span, which OpenTelemetry recorded as an exception event
    (message and traceback) and as the status text: the untrusted link, query and all, exported
    uncut. The span now says the outcome itself and records no exception."""
    from agents.net import GuardedClient, URLRefused
    from agents.settings import Settings
    from tests.helpers.http import Reply, StaticSite
    from tests.streams.stream_helpers import span_exporter

    exporter = span_exporter()
    target = {"Location": "http://10.0.0.5/p?token=s3cr3t-target"}
    with StaticSite(pages={"/r": Reply(302, headers=target)}) as site:
        link = f"{site.url}/r?q=s3cr3t-link"
        async with GuardedClient(Settings(qa_url_allowlist="127.0.0.1")) as http:
            with pytest.raises(URLRefused, match="s3cr3t-target"):  # the caller still sees why
                await http.fetch_bytes(link, 100)
            check = await http.head_or_get(link)
    assert not check.ok
    spans = [
        s
        for s in exporter.get_finished_spans()
        if s.name.startswith("multiqa.http") and s.attributes.get("server.port") == site.port
    ]
    assert {s.name for s in spans} == {"multiqa.http fetch", "multiqa.http check"}
    for span in spans:
        exported = " ".join(
            [str(v) for v in (span.attributes or {}).values()]
            + [str(v) for event in span.events for v in (event.attributes or {}).values()]
            + [span.status.description or ""]
        )
        assert "s3cr3t" not in exported, span.name
        assert span.attributes["multiqa.http.outcome"] == "refused_by_guard"
        assert span.status.description == "refused_by_guard"


async def test_readyz_fails_while_the_broker_does_not_answer(kafka_bootstrap: str) -> None:
    """The broker check against a port nothing listens on, then against the real broker (the
    shared one is never stopped; the database and groups are tested stopped elsewhere)."""
    from streams.runtime.observe import broker_check
    from tests.helpers.ports import closed_port_url

    down = closed_port_url().removeprefix("http://")
    readiness = Readiness(timeout=3.0, cache_seconds=0)
    readiness.add("broker", broker_check(down))
    ready, results = await readiness.run()
    assert not ready and not results["broker"][0]
    readiness.add("broker", broker_check(kafka_bootstrap))
    ready, results = await readiness.run()
    assert ready, results
    assert results["broker"][1].startswith(f"{kafka_bootstrap} answers")
