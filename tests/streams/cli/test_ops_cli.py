"""`multiqa submit | decisions | status | db migrate` against the real broker and database."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from aiokafka import AIOKafkaConsumer

from schemas import DraftSubmitted, decode
from streams.runtime.db import create_pool
from streams.runtime.sinks import persist_decision, persist_review

TRACEPARENT = re.compile(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


async def read_drafts(cli_env, count: int) -> list:
    consumer = AIOKafkaConsumer(
        cli_env.config.drafts_topic,
        bootstrap_servers=cli_env.config.bootstrap_servers,
        auto_offset_reset="earliest",
        group_id=None,
    )
    await consumer.start()
    try:
        records: list = []
        deadline = time.monotonic() + 60
        while len(records) < count:
            assert time.monotonic() < deadline, f"only {len(records)} of {count} drafts arrived"
            batch = await consumer.getmany(timeout_ms=1000)
            records += [r for rs in batch.values() for r in rs]
        return records
    finally:
        await consumer.stop()


# --- submit ------------------------------------------------------------------------------------


async def test_submit_publishes_the_draft_with_a_traceparent(cli_env, run_cli, tmp_path):
    post = tmp_path / "post.md"
    post.write_text("# Ignored heading\n\nBody with a [link](https://example.org).\n")

    code, out, err = await run_cli(
        "submit", str(post), "--title", "Real title", "--topic", "GPUs",
        "--preview-url", "https://preview.example/p/1", "--draft-id", "d-cli-1", "--version", "3",
        "--task-id", "task-9", "--source", "https://a.example", "--source", "https://b.example",
    )  # fmt: skip

    assert (code, err) == (0, "")
    assert "submitted draft d-cli-1 v3 ('Real title')" in out
    [record] = await read_drafts(cli_env, 1)
    assert record.key == b"d-cli-1"
    draft = decode(record.value, DraftSubmitted)
    assert (draft.draft_id, draft.version, draft.title, draft.topic) == (
        "d-cli-1",
        3,
        "Real title",
        "GPUs",
    )
    assert draft.content == post.read_text()
    assert draft.preview_url == "https://preview.example/p/1"
    assert draft.task_id == "task-9"
    assert draft.research_sources == ("https://a.example", "https://b.example")
    headers = dict(record.headers)
    assert TRACEPARENT.match(headers["traceparent"].decode())
    assert headers["traceparent"].decode().split("-")[1] in out  # the trace id is printed


async def test_submit_takes_the_title_from_the_first_heading_and_makes_an_id(
    cli_env, run_cli, tmp_path, cli_subprocess
):
    post = tmp_path / "post.md"
    post.write_text("Intro line\n\n# The Heading Title\n\nText.\n")
    code, out, _ = await run_cli("submit", str(post))
    assert code == 0
    [record] = await read_drafts(cli_env, 1)
    draft = decode(record.value, DraftSubmitted)
    assert draft.title == "The Heading Title" and draft.version == 1
    assert uuid.UUID(draft.draft_id)  # a fresh UUID when --draft-id is not given
    assert draft.draft_id in out


async def test_submit_reads_standard_input(cli_env, cli_subprocess):
    result = await asyncio.to_thread(
        cli_subprocess,
        "submit", "-", "--title", "From stdin", "--draft-id", "d-stdin",
        env=cli_env.env, stdin=b"Some markdown from a pipe.\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [record] = await read_drafts(cli_env, 1)
    assert decode(record.value, DraftSubmitted).content == "Some markdown from a pipe.\n"


async def test_submit_wait_prints_the_decision_and_its_feedback(
    cli_env, run_cli, tmp_path, make_decision
):
    post = tmp_path / "post.md"
    post.write_text("# Stats\n\nA 2024 study shows a 47% increase.\n")

    async def decide_when_submitted() -> None:
        [record] = await read_drafts(cli_env, 1)
        draft = decode(record.value, DraftSubmitted)
        # Another draft's decision first: --wait must pick its own.
        await cli_env.publish_decision(make_decision("someone-else"))
        await cli_env.publish_decision(make_decision(draft.draft_id, draft.version))

    decider = asyncio.create_task(decide_when_submitted())
    code, out, err = await run_cli(
        "submit", str(post), "--draft-id", "d-wait", "--wait", "--timeout", "60"
    )
    await decider

    assert (code, err) == (0, "")
    assert "REJECTED, score 48.0/100 (draft d-wait v1)" in out
    assert "flags: short-circuit" in out
    assert re.search(r"critic\s+skipped\s+-\s+Ollama not reachable", out)
    assert "feedback:\nREJECTED (48.0/100)\n- validator: unsourced statistic '47%'" in out
    assert "someone-else" not in out


async def test_submit_wait_without_a_decision_times_out_with_one_line(cli_env, run_cli, tmp_path):
    post = tmp_path / "post.md"
    post.write_text("# T\n\nText.\n")
    code, out, err = await run_cli("submit", str(post), "--draft-id", "d-x", "--wait",
                                   "--timeout", "1.5")  # fmt: skip
    assert code == 1
    assert "submitted draft d-x v1" in out
    assert err.strip().splitlines() == [
        "multiqa submit: error: no decision on draft d-x v1 within 1.5 s "
        "(is a worker running? start one with `multiqa worker`)"
    ]


# --- decisions ---------------------------------------------------------------------------------


async def test_decisions_prints_recent_decisions_as_a_table(cli_env, run_cli, make_decision):
    start = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
    for n, approved in enumerate([True, False, True]):
        await cli_env.publish_decision(
            make_decision(f"d-{n}", approved=approved, final_score=70.0 + n, short_circuited=False,
                          missing_reviewers=("urls",) if n == 2 else (), timed_out=n == 2,
                          decided_at=start + timedelta(seconds=n))
        )  # fmt: skip
    await cli_env.produce(cli_env.config.decisions_topic, b"not avro", b"d-9")

    code, out, _ = await run_cli("decisions")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["DECIDED", "(UTC)", "DRAFT", "VER", "RESULT", "SCORE", "FLAGS",
                                "MISSING"]  # fmt: skip
    rows = [line.split() for line in lines[1:]]
    assert [r[2] for r in rows] == ["d-0", "d-1", "d-2"]
    assert [r[4:7] for r in rows] == [
        ["approved", "70.0", "-"],
        ["rejected", "71.0", "-"],
        ["approved", "72.0", "timed-out"],
    ]
    assert rows[2][7] == "urls"

    code, out, _ = await run_cli("decisions", "--limit", "1")
    assert [line.split()[2] for line in out.splitlines()[1:]] == ["d-2"]


async def test_decisions_on_an_empty_topic_says_so(cli_env, run_cli):
    code, out, _ = await run_cli("decisions")
    assert code == 0
    assert f"(no decisions on {cli_env.config.decisions_topic} yet)" in out


async def test_decisions_follow_tails_new_decisions(cli_env, make_decision, cli_command, repo_root):
    await cli_env.publish_decision(make_decision("d-old"))
    env = {**os.environ, **cli_env.env, "PYTHONPATH": str(repo_root), "PYTHONUNBUFFERED": "1"}
    proc = await asyncio.create_subprocess_exec(
        *cli_command, "decisions", "--follow", cwd=repo_root, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        header = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert b"DRAFT" in header
        assert b"d-old" in await asyncio.wait_for(proc.stdout.readline(), 60)
        await cli_env.publish_decision(make_decision("d-new", approved=True, final_score=91.0))
        line = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()
        assert line.split()[2:6] == ["d-new", "1", "approved", "91.0"]
    finally:
        proc.terminate()
        await proc.wait()


# --- status ------------------------------------------------------------------------------------


async def test_status_shows_the_decision_and_marks_late_reviews(
    cli_env, run_cli, make_decision, make_review_result
):
    pool = await create_pool(cli_env.config.database_url)
    try:
        decided = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
        before, after = decided - timedelta(seconds=1), decided + timedelta(seconds=1)
        await persist_review(pool, make_review_result("d-st", "validator", 48.0))
        await persist_review(pool, make_review_result("d-st", "critic", 0.0, status="skipped"))
        # Not expected by the decision (e.g. disabled), produced before it:
        await persist_review(
            pool, make_review_result("d-st", "vision", 0.0, status="skipped", produced_at=before)
        )
        await persist_decision(pool, make_decision("d-st", decided_at=decided))
        await persist_review(pool, make_review_result("d-st", "urls", 80.0, produced_at=after))
        await persist_review(pool, make_review_result("d-st", "validator", 90.0, version=2))
    finally:
        await pool.close()

    code, out, err = await run_cli("status", "d-st")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("draft d-st v1: REJECTED, score 48.0/100, decided ")
    assert lines[0].endswith("[short_circuited]")
    assert "  reviews recorded: 4" in lines
    urls = next(line for line in lines if line.strip().startswith("urls"))
    assert urls.endswith("(after the decision)")
    vision = next(line for line in lines if line.strip().startswith("vision"))
    assert vision.endswith("(not counted)")
    validator = next(line for line in lines if line.strip().startswith("validator"))
    assert "after the decision" not in validator and "48.0" in validator
    assert "draft d-st v2: PENDING, no decision yet" in lines

    code, out, _ = await run_cli("status", "d-st", "--version", "2")
    assert code == 0 and "v1" not in out and "PENDING" in out


# --- db migrate --------------------------------------------------------------------------------


async def test_db_migrate_applies_then_reports_up_to_date(pg_dsn, run_cli, monkeypatch):
    code, out, _ = await run_cli("db", "migrate", "--dsn", pg_dsn)  # a fresh, empty database
    assert code == 0 and out.startswith("applied migrations 001, 002")
    code, out, _ = await run_cli("db", "migrate", "--dsn", pg_dsn)
    assert code == 0 and out.startswith("database is up to date")
    conn = await asyncpg.connect(pg_dsn)
    try:
        assert await conn.fetchval("SELECT to_regclass('qa_decisions') IS NOT NULL")
    finally:
        await conn.close()


# --- bad input: one clear line, exit 1, no traceback -------------------------------------------


def assert_one_error_line(result: subprocess.CompletedProcess[str], command: str, *parts: str):
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"multiqa {command}: error: ")
    for part in parts:
        assert part in lines[0]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "No such file or directory"),
        (b"", "is empty: there is nothing to review"),
        (b"  \n\t\n", "is empty: there is nothing to review"),
        (b"\x7fELF\x02\x01\x01\x00\x00\x00binary", "is a binary file, not markdown text"),
        (b"caf\xe9 latin-1 text", "is not UTF-8 text (invalid byte at offset 3)"),
        (b"no heading and no title", "no --title given and"),
    ],
    ids=["missing", "empty", "blank", "binary", "not-utf8", "no-title"],
)
async def test_submit_refuses_unreviewable_files(tmp_path, run_cli, content, expected):
    path = tmp_path / "draft.md"
    if content is not None:
        path.write_bytes(content)
    # An unreachable broker: the file must be refused before any connection is attempted.
    code, out, err = await run_cli("submit", str(path), "--bootstrap", "127.0.0.1:1")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and err.startswith("multiqa submit: error: ")
    assert expected in err


async def test_submit_refuses_a_directory_and_version_zero(tmp_path, run_cli):
    code, _, err = await run_cli("submit", str(tmp_path), "--title", "x")
    assert (
        code == 1
        and err == f"multiqa submit: error: {tmp_path} is a directory, not a markdown file\n"
    )
    path = tmp_path / "d.md"
    path.write_text("# T\ntext\n")
    code, _, err = await run_cli("submit", str(path), "--version", "0")
    assert code == 1 and err == "multiqa submit: error: --version must be 1 or more, not 0\n"


def test_binary_file_as_its_own_process_is_one_line(tmp_path, cli_subprocess):
    path = tmp_path / "image.md"
    path.write_bytes(bytes(range(256)) * 4)
    result = cli_subprocess("submit", str(path), "--bootstrap", "127.0.0.1:1")
    assert_one_error_line(result, "submit", "is a binary file")


def test_submit_with_the_broker_unreachable(tmp_path, cli_subprocess):
    path = tmp_path / "d.md"
    path.write_text("# T\ntext\n")
    result = cli_subprocess("submit", str(path), "--bootstrap", "127.0.0.1:1")
    assert_one_error_line(result, "submit", "cannot reach Kafka at 127.0.0.1:1")


def test_decisions_with_the_broker_unreachable(cli_subprocess):
    result = cli_subprocess("decisions", "--bootstrap", "127.0.0.1:1")
    assert_one_error_line(result, "decisions", "cannot reach Kafka at 127.0.0.1:1")


def test_status_and_migrate_with_the_database_unreachable(cli_subprocess):
    dsn = "postgresql://someone:secret@127.0.0.1:1/nowhere"
    for argv, command in ((["status", "d-1"], "status"), (["db", "migrate"], "db migrate")):
        result = cli_subprocess(*argv, "--dsn", dsn)
        assert_one_error_line(
            result, command, "cannot reach PostgreSQL at postgresql://127.0.0.1:1"
        )
        assert "secret" not in result.stderr


async def test_status_of_an_unknown_draft(cli_env, cli_subprocess):
    result = await asyncio.to_thread(cli_subprocess, "status", "no-such-draft", env=cli_env.env)
    assert_one_error_line(result, "status", "nothing recorded for draft 'no-such-draft'")


def test_bad_config_variable_is_one_line(cli_subprocess):
    result = cli_subprocess("decisions", env={"MULTIQA_PARTITIONS": "many"})
    assert_one_error_line(result, "decisions", "MULTIQA_PARTITIONS='many' is not an integer")


async def test_submit_refuses_drafts_over_the_size_limits(cli_env, run_cli, tmp_path):
    # Over the draft limit (MULTIQA_MAX_DRAFT_BYTES, 2 MiB): refused before anything is sent,
    # naming the limit and the setting that raises it.
    huge = tmp_path / "huge.md"
    huge.write_text("# Big\n\n" + "word " * 700_000)
    code, out, err = await run_cli("submit", str(huge))
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert err.startswith("multiqa submit: error: draft ") and "content is 3500007 bytes" in err
    assert "MULTIQA_MAX_DRAFT_BYTES=2097152 (2 MiB)" in err
    # Under it, but the topic (made by this test's fixture, not by multiqa) keeps the broker's
    # 1 MB default max.message.bytes: the broker refuses it, one line naming that limit.
    big = tmp_path / "big.md"
    big.write_text("# Big\n\n" + "word " * 300_000)
    code, out, err = await run_cli("submit", str(big))
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "max.message.bytes" in err
    assert f"on topic {cli_env.config.drafts_topic}" in err
    assert await read_nothing(cli_env)


async def read_nothing(cli_env) -> bool:
    """True when the test's drafts topic holds no message at all."""
    return await topic_is_empty(cli_env.config.bootstrap_servers, cli_env.config.drafts_topic)


async def topic_is_empty(bootstrap: str, topic: str) -> bool:
    from aiokafka import TopicPartition
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        [described] = await admin.describe_topics([topic])
    finally:
        await admin.close()
    tps = [TopicPartition(topic, p["partition"]) for p in described["partitions"]]
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        ends = await consumer.end_offsets(tps)
    finally:
        await consumer.stop()
    return bool(tps) and all(v == 0 for v in ends.values())
