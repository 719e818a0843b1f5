"""`multiqa rescore` runs as an operator meets them: progress on stderr, empty and corrupt topics,
more --jobs than partitions, and Ctrl-C in the middle (real broker, the real command)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer

from agents.settings import Settings
from bench.rescore_history import make_history
from schemas import encode
from streams.cli import main
from streams.runtime.config import StreamConfig
from tests.streams.test_replay import _env, _history, _produce

ROOT = Path(__file__).resolve().parents[2]


def _config(kafka_bootstrap: str, unique_topics) -> StreamConfig:
    return StreamConfig(
        bootstrap_servers=kafka_bootstrap,
        decisions_topic=unique_topics("qa.decisions"),
        reviews_topic=unique_topics("qa.reviews"),
    )


def _bar(err: str, label: str) -> list[str]:
    lines = [line for line in err.splitlines() if re.match(rf"{label} +\d+/\d+ ", line)]
    assert lines, f"no {label!r} progress line in:\n{err}"
    return lines


def _last(err: str, label: str) -> str:
    return _bar(err, label)[-1]


@pytest.mark.parametrize("jobs", ["1", "2"])
async def test_progress_on_stderr_counts_what_was_read_and_rescored(
    jobs, kafka_bootstrap, unique_topics, create_topics, monkeypatch, capsys
) -> None:
    """A read bar over every event of both topics and a rescore bar over the decisions, each
    ending at its total; the report itself stays on stdout."""
    config = _config(kafka_bootstrap, unique_topics)
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=2)
    decisions, reviews = await _history(Settings())
    await _produce(kafka_bootstrap, config.reviews_topic, reviews)  # each + one junk event
    await _produce(kafka_bootstrap, config.decisions_topic, decisions)
    _env(config, monkeypatch)
    code = await asyncio.to_thread(main, ["rescore", "--defaults", "--jobs", jobs])
    captured = capsys.readouterr()
    assert code == 0
    events = len(reviews) + len(decisions) + 2
    assert re.match(rf"read {events}/{events} \[=+\] 100% .* done$", _last(captured.err, "read"))
    rescored = _last(captured.err, "rescore")
    n = len(decisions)  # the decisions that decode (not the junk event)
    if jobs == "1":  # each bar starts at 0: its clock (rate, eta) starts with the work
        assert re.match(rf"read +0/{events} ", _bar(captured.err, "read")[0])
        assert re.match(rf"rescore +0/{n} ", _bar(captured.err, "rescore")[0])
    assert re.match(rf"rescore {n}/{n} \[=+\] 100% .* done$", rescored)
    assert "read " not in captured.out and "rescore " not in captured.out
    assert f"{len(decisions)} draft versions; re-scored {len(decisions)}" in captured.out


@pytest.mark.parametrize("jobs", ["1", "2"])
async def test_empty_topics_are_an_empty_report(
    jobs, kafka_bootstrap, unique_topics, create_topics, monkeypatch, capsys
) -> None:
    config = _config(kafka_bootstrap, unique_topics)
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=3)
    _env(config, monkeypatch)
    code = await asyncio.to_thread(main, ["rescore", "--defaults", "--jobs", jobs, "--json"])
    captured = capsys.readouterr()
    assert code == 0
    (summary,) = [json.loads(line) for line in captured.out.splitlines()]
    assert summary["type"] == "summary" and summary["drafts"] == 0, summary
    assert summary["undecodable_events"] == 0
    assert "does not exist" not in captured.err and "Traceback" not in captured.err
    assert "read 0 decisions" in captured.err


async def test_more_jobs_than_partitions_report_as_one_process(
    kafka_bootstrap, unique_topics, create_topics, monkeypatch, capsys
) -> None:
    """--jobs 5 on two partitions: three processes find nothing to read, and the report is the
    one process's, with no fallback."""
    config = _config(kafka_bootstrap, unique_topics)
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=2)
    decisions, reviews = await _history(Settings())
    await _produce(kafka_bootstrap, config.reviews_topic, reviews)
    await _produce(kafka_bootstrap, config.decisions_topic, decisions)
    _env(config, monkeypatch)
    outputs = {}
    for jobs in ("1", "5"):
        argv = ["rescore", "--defaults", "--json", "--set", "qa_final_score_threshold=60"]
        code = await asyncio.to_thread(main, [*argv, "--jobs", jobs])
        captured = capsys.readouterr()
        assert code == 0 and "re-scoring in one process" not in captured.err
        outputs[jobs] = captured.out
    assert outputs["1"] == outputs["5"] and '"flipped": 1' in outputs["5"]


@pytest.mark.parametrize("jobs", ["1", "3"])
async def test_corrupt_events_are_named_and_skipped(
    jobs, kafka_bootstrap, unique_topics, create_topics, monkeypatch, capsys
) -> None:
    """A result cut short, one well formed but out of range (score 500), bytes that are no
    event, a decision cut short: each named with its partition and offset, counted, and the
    decision whose counted result is gone reported as not re-scored, never guessed."""
    config = _config(kafka_bootstrap, unique_topics)
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=3)
    decisions, reviews = await _history(Settings())
    good = next(d for d in decisions if d.draft_id == "d-good")
    critic = next(r for r in reviews if r.draft_id == "d-good" and r.reviewer == "critic")
    # every critic result of d-good (its duplicate too): only the corrupt copies below remain
    kept = [r for r in reviews if not (r.draft_id == "d-good" and r.reviewer == "critic")]
    await _produce(kafka_bootstrap, config.reviews_topic, kept)
    await _produce(kafka_bootstrap, config.decisions_topic, decisions)
    out_of_range = bytearray(encode(critic))
    score_at = 10 + 1 + len(critic.reviewer) + 1  # header, reviewer (length byte), approved
    out_of_range[score_at : score_at + 8] = struct.pack("<d", 500.0)
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
    await producer.start()
    try:
        key = critic.draft_id.encode()
        await producer.send(config.reviews_topic, encode(critic)[:-3], key=key)
        await producer.send(config.reviews_topic, bytes(out_of_range), key=key)
        await producer.send(config.decisions_topic, encode(good)[:25], key=key)
        await producer.flush()
    finally:
        await producer.stop()
    _env(config, monkeypatch)
    code = await asyncio.to_thread(main, ["rescore", "--defaults", "--jobs", jobs, "--json"])
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.err
    skipped = [line for line in captured.err.splitlines() if "skipped undecodable" in line]
    assert len(skipped) == 5, captured.err  # the two junk events of _produce, and these three
    assert any("score must be within 0-100" in line for line in skipped)
    assert all(re.search(r"\[\d\]@\d+: ", line) for line in skipped)
    *items, summary = [json.loads(line) for line in captured.out.splitlines()]
    assert summary["undecodable_events"] == 5
    (gone,) = [i for i in items if i["draft_id"] == "d-good"]
    assert gone["approved_after"] is None and "critic" in gone["problem"]


@pytest.mark.parametrize("jobs", ["1", "2"])
async def test_ctrl_c_mid_run_stops_every_process_with_code_130(
    jobs, kafka_bootstrap, unique_topics, create_topics
) -> None:
    """Ctrl-C (SIGINT to the terminal's process group) while the command reads (--jobs 1: in
    librdkafka's consume loop; --jobs 2: in the processes): exit code 130, no traceback, no
    process of the run left behind, no report."""
    config = _config(kafka_bootstrap, unique_topics)
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=4)
    history = await make_history(1500)
    await _produce(kafka_bootstrap, config.reviews_topic, history.reviews)
    await _produce(kafka_bootstrap, config.decisions_topic, history.decisions)
    env = {
        **os.environ,
        "MULTIQA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "MULTIQA_DECISIONS_TOPIC": config.decisions_topic,
        "MULTIQA_REVIEWS_TOPIC": config.reviews_topic,
    }
    env.pop("MULTIQA_DATABASE_URL", None)
    env.pop("DATABASE_URL", None)
    command = [sys.executable, "-m", "streams.cli", "rescore", "--defaults", "--jobs", jobs]
    # A terminal's Ctrl-C reaches a foreground command whose SIGINT is at its default. A test
    # run started in the background (`make test &`, some CI runners) has SIGINT ignored, and a
    # child inherits an ignored signal through exec (a handled one is reset to the default): so
    # handle it here while the child starts, as a shell does for its foreground job.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        run = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True, text=True,
        )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    assert run.stderr is not None
    first = run.stderr.readline()  # the read bar, drawn once the children know their totals
    assert first.startswith("read "), first
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, (out, first + err)
    assert "Traceback" not in err and "draft versions" not in out
    assert _session_members(run.pid) == []


def _session_members(session: int) -> list[int]:
    """Processes still alive in the session the run led."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == session and fields[0] != "Z":
                found.append(int(entry.name))
    return found
