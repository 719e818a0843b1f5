"""`--json` on `decisions`, `status` and `submit --wait`: one JSON object per line on stdout
(each with its `type`), human notes on stderr; the objects read back as the records they
describe."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from agents.registry import get_reviewer
from schemas import QADecision, from_dict
from streams.runtime.app import create_app
from streams.runtime.sinks import persist_decision, persist_review


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]  # each line alone is one object


async def test_decisions_json_is_one_decision_per_line(cli_env, run_cli, make_decision):
    published = [make_decision(f"d-json-{i}", trace_id=f"{i:032x}") for i in range(3)]
    for decision in published:
        await cli_env.publish_decision(decision)
    code, out, err = await run_cli("decisions", "--json", "--limit", "2")
    assert code == 0, err
    objects = lines(out)
    assert [o["type"] for o in objects] == ["decision", "decision"]
    for o in objects:
        del o["type"]
    decoded = {d.draft_id: d for d in (from_dict(QADecision, o) for o in objects)}
    assert set(decoded) <= {d.draft_id for d in published}
    for d in published:
        if d.draft_id in decoded:
            assert decoded[d.draft_id] == d  # the whole record, trace id included


async def test_status_json_has_one_object_per_version(
    cli_env, run_cli, make_decision, make_review_result
):
    from streams.runtime.db import create_pool

    t0 = datetime(2026, 5, 17, 9, 30, tzinfo=UTC)
    pool = await create_pool(cli_env.config.database_url)
    try:
        await persist_review(pool, make_review_result("d-st", "validator", 48.0, produced_at=t0))
        decided = make_decision("d-st", trace_id="ab" * 16, decided_at=t0 + timedelta(seconds=1))
        await persist_decision(pool, decided)
        late = make_review_result("d-st", "urls", 90.0, produced_at=t0 + timedelta(seconds=2))
        await persist_review(pool, late)
        await persist_review(pool, make_review_result("d-st", "validator", 80.0, version=2))
    finally:
        await pool.close()
    code, out, err = await run_cli("status", "d-st", "--json")
    assert code == 0, err
    v1, v2 = lines(out)
    assert (v1["type"], v1["draft_id"], v1["version"]) == ("draft_version", "d-st", 1)
    assert v1["decision"]["approved"] is False and v1["decision"]["trace_id"] == "ab" * 16
    assert v1["decision"]["short_circuited"] is True
    reviews = {r["reviewer"]: r for r in v1["reviews"]}
    assert reviews["validator"]["counted"] and not reviews["validator"]["after_decision"]
    assert not reviews["urls"]["counted"] and reviews["urls"]["after_decision"]
    assert v2["decision"] is None and [r["score"] for r in v2["reviews"]] == [80.0]

    code, out, err = await run_cli("status", "nobody", "--json")
    assert code == 1 and out == "" and len(err.splitlines()) == 1


async def test_submit_wait_json_prints_the_submission_then_the_decision(cli_env, run_cli, tmp_path):
    config = await cli_env.worker_config(tmp_path)
    stream = create_app(
        config, with_sinks=False, roster=[get_reviewer("validator"), get_reviewer("urls")]
    )
    await stream.start()
    try:
        post = tmp_path / "post.md"
        post.write_text("# Kettles\n\nA 2024 study by a lab found a 47% increase in speed.\n")
        code, out, err = await run_cli(
            "submit", str(post), "--draft-id", "d-jw", "--wait", "--json", "--timeout", "90"
        )
    finally:
        await stream.stop()
    assert code == 0
    assert "waiting up to 90 s" in err  # the human note is not on stdout
    submission, decision = lines(out)
    assert submission["type"] == "submission" and submission["draft_id"] == "d-jw"
    assert len(submission["trace_id"]) == 32
    assert submission["traceparent"].split("-")[1] == submission["trace_id"]
    assert decision["type"] == "decision" and decision["draft_id"] == "d-jw"
    assert decision["approved"] is False and decision["short_circuited"] is True
    assert decision["trace_id"] == submission["trace_id"]  # the decision leads to its trace
