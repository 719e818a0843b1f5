"""The CLI against a running stream (in-process Faust apps on the real broker): `submit --wait`
prints the aggregator's real decision, and `status` shows what the aggregator's table holds
through its Faust web view (a draft nobody has answered yet is not "unknown")."""

from __future__ import annotations

import asyncio

from agents.registry import get_reviewer
from schemas import DraftSubmitted, Provider, ReviewerResult, encode
from streams.client import submit_draft
from streams.runtime.app import create_app
from tests.helpers.ports import free_port


async def test_submit_wait_prints_the_streams_decision(cli_env, run_cli, tmp_path):
    """The validator (real) and the aggregator running; the critic is deployed nowhere here
    (roster: validator, and urls, required by default), so the decision is validator-only."""
    config = await cli_env.worker_config(tmp_path)
    roster = [get_reviewer("validator"), get_reviewer("urls")]
    stream = create_app(config, with_sinks=False, roster=roster)
    await stream.start()
    try:
        post = tmp_path / "post.md"
        post.write_text("# Kettles\n\nA 2024 study by a lab found a 47% increase in boil speed.\n")
        code, out, err = await run_cli(
            "submit", str(post), "--draft-id", "d-e2e", "--wait", "--timeout", "90"
        )
    finally:
        await stream.stop()
    assert (code, err) == (0, "")
    assert "REJECTED" in out and "(draft d-e2e v1)" in out
    assert "flags: short-circuit" in out
    assert "unsourced_statistic" in out
    assert "feedback:\nQA REJECTED" in out


async def status_until(run_cli, predicate, *argv: str) -> str:
    """Run `multiqa status` until its output satisfies `predicate` (a liveness bound)."""
    out = ""
    async with asyncio.timeout(60):
        while True:
            code, out, _ = await run_cli("status", *argv)
            if code == 0 and predicate(out):
                return out
            await asyncio.sleep(0.3)


async def test_status_shows_the_aggregators_pending_entry(cli_env, run_cli, tmp_path, monkeypatch):
    port = free_port()
    config = await cli_env.worker_config(tmp_path, web_port=port)
    monkeypatch.setenv("MULTIQA_WEB_PORT", str(port))
    roster = [get_reviewer("validator"), get_reviewer("critic"), get_reviewer("urls")]
    stream = create_app(config, reviewers=[], with_sinks=False, roster=roster)
    await stream.start()
    try:
        draft = DraftSubmitted("d-agg", 1, "Title", "Some text.\n")
        await submit_draft(config.bootstrap_servers, draft, topic=config.drafts_topic)
        out = await status_until(run_cli, lambda o: "aggregator v1" in o, "d-agg")
        assert "aggregator v1: expects validator, critic, urls; answered none; " in out
        assert "waiting for validator, critic, urls; deadline in " in out

        result = ReviewerResult(
            "validator", True, 95.0, "clean", Provider.PROGRAMMATIC, draft_id="d-agg", version=1
        )
        await cli_env.produce(config.reviews_topic, encode(result), b"d-agg")
        out = await status_until(run_cli, lambda o: "answered validator" in o, "d-agg")
        assert "waiting for critic, urls" in out

        # A version the aggregator has never seen, and nothing in the database: unknown.
        code, _, err = await run_cli("status", "d-agg", "--version", "7")
        assert code == 1 and "nothing recorded for draft 'd-agg' v7" in err
    finally:
        await stream.stop()


async def test_status_reports_an_unreachable_aggregator_view_without_failing(
    cli_env, run_cli, make_decision
):
    from streams.runtime.db import create_pool
    from streams.runtime.sinks import persist_decision

    pool = await create_pool(cli_env.config.database_url)
    try:
        await persist_decision(pool, make_decision("d-db"))
    finally:
        await pool.close()
    code, out, _ = await run_cli("status", "d-db", "--web", f"http://127.0.0.1:{free_port()}")
    assert code == 0
    assert out.splitlines()[0].startswith("draft d-db v1: REJECTED")
    assert "aggregator view at http://127.0.0.1:" in out and "unreachable (ConnectError)" in out
