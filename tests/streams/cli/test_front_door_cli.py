"""The CLI's bad inputs from issue 10, against the real broker and database: malformed broker
addresses and DSNs, a topic that does not exist, a topic with the wrong partition count, drafts
up to and over the size limit, a version that is already decided, `multiqa topics create`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from agents.registry import get_reviewer
from schemas import Codec, DraftSubmitted, OversizeError
from streams.client import DraftSubmitter, TopicMissingError, submit_draft
from streams.runtime.app import create_app
from streams.runtime.config import StreamConfig
from streams.runtime.topics import ensure_topics
from tests.streams.cli.test_ops_cli import assert_one_error_line, topic_is_empty

MIB = 1024 * 1024


# --- where the broker and the database are -----------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "command", "parts"),
    [
        (["db", "migrate", "--dsn", "mysql://u:secret@h/db"], "db migrate", ["--dsn", "mysql"]),
        (
            ["status", "d-1", "--dsn", "postgresql://u:secret@h:port/db"],
            "status",
            ["--dsn", "its port is not a number"],
        ),
        (["decisions", "--bootstrap", "localhost"], "decisions", ["--bootstrap", "host:port"]),
        (["submit", "-", "--bootstrap", "h:99999"], "submit", ["port '99999'"]),
        (["settings", "get", "qa_gate_weight", "--dsn", "not a dsn"], "settings get", ["--dsn"]),
        (["rescore", "--defaults", "--bootstrap", "a:1,,b:2"], "rescore", ["--bootstrap"]),
    ],
)
def test_a_malformed_address_is_one_line_naming_it(cli_subprocess, argv, command, parts):
    result = cli_subprocess(*argv, stdin=b"# T\n\ntext\n")
    assert_one_error_line(result, command, *parts)
    assert "secret" not in result.stderr  # a password is never printed


def test_a_malformed_address_from_the_environment_names_the_variable(cli_subprocess):
    result = cli_subprocess("decisions", env={"MULTIQA_BOOTSTRAP_SERVERS": "kafka-without-port"})
    assert_one_error_line(result, "decisions", "MULTIQA_BOOTSTRAP_SERVERS", "host:port")
    result = cli_subprocess("db", "migrate", env={"DATABASE_URL": "http://db.example/x"})
    assert_one_error_line(result, "db migrate", "DATABASE_URL", "not a PostgreSQL URL")


@pytest.mark.parametrize(
    ("argv", "part"),
    [
        (["--bootstrap", "localhost"], "--bootstrap 'localhost' is not a Kafka address"),
        (["--dsn", "mysql://x/y"], "--dsn 'mysql://x/y' is not a PostgreSQL URL"),
    ],
)
def test_the_worker_takes_bootstrap_and_dsn_and_refuses_malformed_ones(cli_subprocess, argv, part):
    result = cli_subprocess("worker", *argv)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"multiqa worker: error: {part}")


# --- topics ------------------------------------------------------------------------------------


async def _topics(bootstrap: str) -> set[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return set(await admin.list_topics())
    finally:
        await admin.close()


async def test_submitting_to_a_missing_topic_says_so_and_creates_nothing(
    kafka_bootstrap, unique_topics, tmp_path, cli_subprocess
):
    topic = unique_topics("qa.drafts")
    post = tmp_path / "p.md"
    post.write_text("# T\n\ntext\n")
    env = {"MULTIQA_BOOTSTRAP_SERVERS": kafka_bootstrap, "MULTIQA_DRAFTS_TOPIC": topic}
    result = await asyncio.to_thread(cli_subprocess, "submit", str(post), env=env)
    assert_one_error_line(
        result, "submit", f"topic {topic!r} does not exist", "multiqa topics create"
    )
    draft = DraftSubmitted("d-1", 1, "T", "text\n")
    with pytest.raises(TopicMissingError, match="start a worker"):
        await submit_draft(kafka_bootstrap, draft, topic=topic)
    assert topic not in await _topics(kafka_bootstrap)  # not auto-created either way


async def test_topics_create_makes_them_once_with_partitions_and_message_size(
    kafka_bootstrap, unique_topics, cli_subprocess
):
    names = {k: unique_topics(k) for k in ("qa.drafts", "qa.reviews", "qa.decisions", "qa.dl")}
    prefix = unique_topics("mq").replace(".", "-")
    env = {
        "MULTIQA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "MULTIQA_DRAFTS_TOPIC": names["qa.drafts"],
        "MULTIQA_REVIEWS_TOPIC": names["qa.reviews"],
        "MULTIQA_DECISIONS_TOPIC": names["qa.decisions"],
        "MULTIQA_DEAD_LETTERS_TOPIC": names["qa.dl"],
        "MULTIQA_APP_PREFIX": prefix,
    }
    try:
        first = await asyncio.to_thread(
            cli_subprocess, "topics", "create", "--partitions", "3", env=env
        )
        assert first.returncode == 0, first.stderr
        assert first.stdout.count(" created ") == 6 and "3 partitions" in first.stdout
        assert "max.message.bytes=4259840" in first.stdout
        again = await asyncio.to_thread(
            cli_subprocess, "topics", "create", "--partitions", "3", env=env
        )
        assert again.returncode == 0 and again.stdout.count(" exists ") == 6
        # The broker holds what was asked for.
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            [described] = await admin.describe_topics([names["qa.drafts"]])
            [response] = await admin.describe_configs(
                [ConfigResource(ConfigResourceType.TOPIC, names["qa.drafts"])]
            )
        finally:
            await admin.close()
        assert len(described["partitions"]) == 3
        configs = {entry[0]: entry[1] for entry in response.resources[0][4]}
        assert configs["max.message.bytes"] == str(4 * MIB + 64 * 1024)
        # Asked for another partition count: one line naming the topic, both counts, the fix.
        wrong = await asyncio.to_thread(
            cli_subprocess, "topics", "create", "--partitions", "2", env=env
        )
        assert_one_error_line(
            wrong, "topics create", "has 3 partitions", "configured for 2", "MULTIQA_PARTITIONS=3"
        )
    finally:
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            ours = [
                t for t in await admin.list_topics() if t in names.values() or t.startswith(prefix)
            ]
            await admin.delete_topics(ours)
        finally:
            await admin.close()


async def test_a_worker_facing_a_topic_with_the_wrong_partition_count_stops_in_one_line(
    cli_env, tmp_path, repo_root
):
    # cli_env's topics have 2 partitions; this worker is configured for 4.
    env = {
        **os.environ,
        **cli_env.env,
        "MULTIQA_PARTITIONS": "4",
        "MULTIQA_DATADIR": str(tmp_path),
        "MULTIQA_OPS_PORT": "0",
        "PYTHONPATH": str(repo_root),
    }
    result = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "streams.cli", "worker", "--reviewers", "validator"],
        env=env,
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "multiqa worker: error:" in line]
    assert len(errors) == 1 and errors[0].startswith("multiqa worker: error: topic ")
    assert "has 2 partitions" in errors[0] and "configured for 4" in errors[0]
    assert "MULTIQA_PARTITIONS=2" in errors[0] and "multiqa topics create" in errors[0]


# --- sizes -------------------------------------------------------------------------------------


def _draft_file(path, size: int) -> str:
    """A markdown file whose content (the draft's `content`) is exactly `size` UTF-8 bytes."""
    head = "# A long read\n\n"
    body = ("All work and no play makes a long draft. " * (size // 40 + 1))[: size - len(head)]
    path.write_text(head + body)
    assert len(path.read_bytes()) == size
    return str(path)


async def test_drafts_up_to_the_limit_go_through_the_stream(
    cli_env, run_cli, tmp_path, monkeypatch
):
    """1.5 MB (the issue's failing case) and exactly 2 MiB: submitted, reviewed by a real
    validator agent in a real Faust app, decided; on topics multiqa made (max.message.bytes)."""
    config = await cli_env.worker_config(
        tmp_path / "faust",
        drafts_topic=cli_env.config.drafts_topic + ".sized",
        decisions_topic=cli_env.config.decisions_topic + ".sized",
        reviews_topic=cli_env.config.reviews_topic + ".sized",
    )
    monkeypatch.setenv("MULTIQA_DRAFTS_TOPIC", config.drafts_topic)
    monkeypatch.setenv("MULTIQA_DECISIONS_TOPIC", config.decisions_topic)
    stream = create_app(config, with_sinks=False, roster=[get_reviewer("validator")])
    await stream.start()
    try:
        for name, size in (("d-1500k", 1_500_000), ("d-2mib", 2 * MIB)):
            path = _draft_file(tmp_path / f"{name}.md", size)
            code, out, err = await run_cli(
                "submit", path, "--draft-id", name, "--wait", "--timeout", "120"
            )
            assert (code, err) == (0, ""), err
            assert f"(draft {name} v1)" in out
    finally:
        await stream.stop()


async def test_one_byte_over_the_limit_is_one_line_and_nothing_is_sent(cli_env, run_cli, tmp_path):
    path = _draft_file(tmp_path / "over.md", 2 * MIB + 1)
    code, out, err = await run_cli("submit", path)
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert f"content is {2 * MIB + 1} bytes, over the maximum of {2 * MIB}" in err
    assert "raise it on the writer and on every worker" in err
    assert await topic_is_empty(cli_env.config.bootstrap_servers, cli_env.config.drafts_topic)


async def test_a_raised_limit_is_honoured_by_writer_and_topics(kafka_bootstrap, unique_topics):
    config = StreamConfig(
        bootstrap_servers=kafka_bootstrap,
        drafts_topic=unique_topics("qa.drafts"),
        reviews_topic=unique_topics("qa.reviews"),
        decisions_topic=unique_topics("qa.decisions"),
        dead_letters_topic=unique_topics("qa.dl"),
        app_prefix=unique_topics("mq").replace(".", "-"),
        partitions=1,
        max_draft_bytes=3 * MIB,
    )
    await ensure_topics(config)
    draft = DraftSubmitted("d-big", 1, "Big", "x" * (2 * MIB + 500_000))
    async with DraftSubmitter(
        kafka_bootstrap, topic=config.drafts_topic, max_draft_bytes=config.max_draft_bytes
    ) as submitter:
        landed = await submitter.submit(draft)
    consumer = AIOKafkaConsumer(bootstrap_servers=kafka_bootstrap, group_id=None)
    await consumer.start()
    try:
        tp = TopicPartition(config.drafts_topic, landed.partition)
        consumer.assign([tp])
        consumer.seek(tp, landed.offset)
        record = await asyncio.wait_for(consumer.getone(), 60)
    finally:
        await consumer.stop()
    # The worker's codec for this config reads it back (the default 2 MiB one would refuse it).
    assert Codec(limits=config.limits()).decode(record.value, DraftSubmitted) == draft
    with pytest.raises(OversizeError):
        Codec().decode(record.value, DraftSubmitted)


# --- an already decided version ----------------------------------------------------------------


async def test_submit_wait_of_a_decided_version_prints_that_decision(
    cli_env, run_cli, tmp_path, make_decision
):
    await cli_env.publish_decision(make_decision("someone-else"))
    await cli_env.publish_decision(make_decision("d-done", 1))
    post = tmp_path / "p.md"
    post.write_text("# Stats\n\nA 2024 study shows a 47% increase.\n")
    code, out, err = await run_cli(
        "submit", str(post), "--draft-id", "d-done", "--wait", "--timeout", "5"
    )
    assert (code, err) == (0, "")
    assert out.startswith("draft d-done v1 was already decided at ")
    assert "not submitted again" in out and "--version" in out
    assert "REJECTED, score 48.0/100 (draft d-done v1)" in out
    assert await topic_is_empty(cli_env.config.bootstrap_servers, cli_env.config.drafts_topic)
    # Another version of the same draft is not decided: it is submitted and waited for.
    code, out, err = await run_cli(
        "submit", str(post), "--draft-id", "d-done", "--version", "2", "--wait", "--timeout", "1"
    )
    assert code == 1 and "submitted draft d-done v2" in out and "no decision on" in err
