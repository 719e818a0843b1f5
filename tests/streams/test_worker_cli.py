"""`multiqa worker`: arguments and refusals that happen before anything is contacted."""

from __future__ import annotations

import asyncio

import pytest

from streams import cli
from streams.cli import worker
from streams.runtime import _layout as layout
from streams.runtime.app import create_app, select_reviewers
from streams.runtime.config import StreamConfig


def test_worker_is_a_multiqa_command_with_its_options(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["worker", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for option in ("--reviewers", "--no-aggregator", "--no-sinks", "--loglevel"):
        assert option in out


@pytest.mark.parametrize(
    ("env", "argv", "message"),
    [
        ({"MULTIQA_PARTITIONS": "zero"}, [], "MULTIQA_PARTITIONS='zero' is not an integer"),
        ({}, ["--reviewers", "validator,nosuch"], "unknown reviewers ['nosuch']"),
        ({}, ["--reviewers", "none", "--no-aggregator", "--no-sinks"], "nothing to run"),
        ({"MULTIQA_REVIEWERS": "validator,ghost"}, [], "MULTIQA_REVIEWERS names unknown"),
    ],
)
def test_bad_configuration_exits_2_with_the_reason_before_any_connection(
    monkeypatch, capsys, env, argv, message
):
    for name in ("MULTIQA_DATABASE_URL", "MULTIQA_REVIEWERS", "MULTIQA_PARTITIONS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # A broker address nothing listens on: reaching it would hang, not exit 2.
    monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", "127.0.0.1:9")
    assert cli.main(["worker", *argv]) == 2
    assert message in capsys.readouterr().err


def test_reviewer_names_none_means_no_reviewers():
    assert worker._reviewer_names(None) is None
    assert worker._reviewer_names("none") == []
    assert worker._reviewer_names(" critic , validator ") == ["critic", "validator"]


def test_one_faust_app_and_consumer_group_per_process_named_by_its_roles(tmp_path):
    config = StreamConfig(app_prefix="mq", datadir=str(tmp_path), reviewers="validator,critic")
    stream = create_app(config, with_sinks=False)
    assert stream.group_id == "mq-aggregator+reviewer-critic+reviewer-validator"
    assert set(stream.reviewers) == {"validator", "critic"} and stream.aggregator is not None
    # The same roles listed in another order are the same group (they share its partitions).
    again = create_app(config, reviewers=["critic", "validator"], with_sinks=False)
    assert again.group_id == stream.group_id
    only_critic = create_app(config, reviewers=["critic"], with_aggregator=False)
    assert only_critic.group_id == "mq-reviewer-critic" == config.reviewer_group_id("critic")
    assert layout.roles_of(config, stream.group_id) == {
        "aggregator",
        "reviewer-critic",
        "reviewer-validator",
    }
    assert layout.roles_of(config, "mq-publisher") is None  # not one of ours
    assert layout.roles_of(config, "other-aggregator") is None
    deployed, selected = select_reviewers(config, [])
    assert [s.name for s in deployed] == ["validator", "critic"] and selected == []


async def test_worker_waits_for_an_unreachable_broker(monkeypatch):
    from aiokafka.errors import KafkaConnectionError

    attempts = []
    slept = []

    async def flaky(config):
        attempts.append(config)
        if len(attempts) < 3:
            raise KafkaConnectionError("broker down")
        return ["qa.drafts"]

    async def no_sleep(seconds):
        slept.append(seconds)

    monkeypatch.setattr(worker, "ensure_topics", flaky)
    monkeypatch.setattr(asyncio, "sleep", no_sleep)  # worker.asyncio is this module
    assert await worker.wait_for_topics(StreamConfig()) == ["qa.drafts"]
    assert len(attempts) == 3 and slept == [0.5, 1.0]


def test_a_rocksdb_table_without_the_binding_is_refused_up_front(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "rocksdict" else real(name, *a),
    )
    config = StreamConfig(table_store="rocksdb://", reviewers="validator")
    with pytest.raises(ValueError, match=r"multiqa\[rocksdb\]"):
        select_reviewers(config, None)
    select_reviewers(config, None, with_aggregator=False)  # only the aggregator has a table


@pytest.mark.parametrize("loglevel", ["warning", "error"])
def test_a_quiet_worker_does_not_turn_on_debug_logging(tmp_path, loglevel):
    """Faust's startup spinner would set the root logger to DEBUG at loglevel warning and above:
    every debug call of aiokafka and Faust (several per Kafka message) would build a record."""
    import logging

    root = logging.getLogger()
    saved = (root.level, list(root.handlers))
    config = StreamConfig(app_prefix="mq", datadir=str(tmp_path), reviewers="validator")
    stream = create_app(config, with_sinks=False)
    faust_worker = stream.worker(loglevel=loglevel)
    try:
        faust_worker._setup_logging()
        assert not logging.getLogger("aiokafka.conn").isEnabledFor(logging.DEBUG)
        assert not root.isEnabledFor(logging.INFO)
    finally:
        root.setLevel(saved[0])
        root.handlers[:] = saved[1]
