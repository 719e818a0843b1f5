"""streams.cli._command: every known failure of a `multiqa` command is one line and exit code 1."""

from __future__ import annotations

import argparse

import asyncpg
import pytest
from aiokafka.errors import KafkaConnectionError

from agents.settings import Settings, SettingsError
from schemas import CodecError
from streams.cli._command import CommandError, connect_database, require_database, run_command
from streams.client import BrokerUnavailableError
from streams.devstack import DevStackError
from streams.runtime.config import ConfigError, StreamConfig
from streams.runtime.db import MigrationError
from streams.runtime.topics import TopicSetupError

ARGS = argparse.Namespace()


def _settings_error() -> BaseException:
    try:
        Settings.from_mapping({"qa_final_score_threshold": "500"})
    except SettingsError as exc:
        return exc
    raise AssertionError("a threshold of 500 was accepted")


@pytest.mark.parametrize(
    ("failure", "line"),
    [
        (CommandError("no such draft"), "no such draft"),
        (BrokerUnavailableError("cannot reach Kafka at h:1: down"), "cannot reach Kafka at h:1"),
        (ConfigError("MULTIQA_PARTITIONS='x' is not an integer"), "MULTIQA_PARTITIONS='x'"),
        (CodecError("content is too long"), "content is too long"),
        (DevStackError("port 19092 is in use"), "port 19092 is in use"),
        (MigrationError("002 failed"), "002 failed"),
        (_settings_error(), "qa_final_score_threshold"),
        (TopicSetupError("qa.drafts has 3 partitions"), "qa.drafts has 3 partitions"),
        (KafkaConnectionError("refused"), "Kafka error: "),
        (asyncpg.PostgresError("relation missing"), "PostgreSQL error: relation missing"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else "",
)
@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
def test_known_failures_are_one_line_and_exit_1(failure, line, is_async, capsys):
    async def async_command(args: argparse.Namespace) -> int:
        raise failure

    def sync_command(args: argparse.Namespace) -> int:
        raise failure

    func = run_command("multiqa thing", async_command if is_async else sync_command)
    assert func(ARGS) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("multiqa thing: error: ") and line in captured.err
    assert captured.err.count("\n") == 1


def test_results_pass_through_and_ctrl_c_is_130(capsys):
    async def three(args: argparse.Namespace) -> int:
        return 3

    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    assert run_command("multiqa x", three)(ARGS) == 3
    assert run_command("multiqa x", lambda args: 0)(ARGS) == 0
    assert run_command("multiqa x", interrupted)(ARGS) == 130
    assert capsys.readouterr().err == ""


def test_a_bug_is_not_hidden_behind_one_line():
    async def broken(args: argparse.Namespace) -> int:
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        run_command("multiqa x", broken)(ARGS)


def test_require_database_says_how_to_configure_one():
    assert require_database(StreamConfig(database_url="postgresql://h/db")) == "postgresql://h/db"
    with pytest.raises(CommandError, match="pass --dsn, set MULTIQA_DATABASE_URL or DATABASE_URL"):
        require_database(StreamConfig())


async def test_an_unreachable_database_is_named_without_its_password():
    with pytest.raises(CommandError) as caught:
        async with connect_database("postgresql://me:secret@127.0.0.1:1/db"):
            raise AssertionError("connected to nothing")
    message = str(caught.value)
    assert message.startswith("cannot reach PostgreSQL at postgresql://127.0.0.1:1/db: ")
    assert "secret" not in message and not message.endswith(": ")


async def test_the_pool_is_closed_after_the_block(pg_dsn):
    async with connect_database(pg_dsn) as pool:
        assert await pool.fetchval("SELECT 1") == 1
    assert pool.is_closing()
