import logging
import re

import pytest

from streams.runtime.config import ConfigError, StreamConfig


def test_defaults_are_the_documented_topics_and_groups():
    config = StreamConfig.from_env({})
    assert config.topic_names() == ("qa.drafts", "qa.reviews", "qa.decisions", "qa.dead-letters")
    assert config.reviewer_group_id("critic") == "multiqa-reviewer-critic"
    assert config.aggregator_group_id == "multiqa-aggregator"
    assert config.sinks_group_id == "multiqa-sinks"
    assert config.deployed_reviewers() is None


def test_environment_overrides_each_field_by_its_upper_case_name():
    config = StreamConfig.from_env(
        {
            "MULTIQA_BOOTSTRAP_SERVERS": "10.0.0.1:9092, 10.0.0.2:9092",
            "MULTIQA_DRAFTS_TOPIC": "drafts.v2",
            "MULTIQA_PARTITIONS": "12",
            "MULTIQA_AGGREGATOR_TICK_SECONDS": "0.25",
            "MULTIQA_REVIEWERS": "validator, critic",
            "UNRELATED": "x",
        }
    )
    assert config.drafts_topic == "drafts.v2"
    assert config.partitions == 12
    assert config.aggregator_tick_seconds == 0.25
    assert config.broker_url() == "kafka://10.0.0.1:9092;kafka://10.0.0.2:9092"
    assert config.deployed_reviewers() == ("validator", "critic")


def test_keyword_overrides_win_over_environment():
    config = StreamConfig.from_env({"MULTIQA_PARTITIONS": "3"}, partitions=2)
    assert config.partitions == 2


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MULTIQA_PARTITIONS": "six"}, "MULTIQA_PARTITIONS='six' is not an integer"),
        ({"MULTIQA_PARTITIONS": "0"}, "MULTIQA_PARTITIONS=0"),
        ({"MULTIQA_AGGREGATOR_TICK_SECONDS": "nan"}, "not a finite number"),
        ({"MULTIQA_AGGREGATOR_TICK_SECONDS": "-1"}, "MULTIQA_AGGREGATOR_TICK_SECONDS"),
        ({"MULTIQA_REVIEWS_TOPIC": "qa.drafts"}, "must differ"),
        ({"MULTIQA_DECISIONS_TOPIC": " "}, "must not be empty"),
        ({"MULTIQA_WEB_PORT": "70000"}, "MULTIQA_WEB_PORT"),
        ({"MULTIQA_BROKER_FETCH_WAIT": "0"}, "MULTIQA_BROKER_FETCH_WAIT"),
    ],
)
def test_bad_values_name_the_variable(env, message):
    with pytest.raises(ConfigError, match=message):
        StreamConfig.from_env(env)


def test_to_env_is_read_back_as_the_same_config():
    config = StreamConfig.from_env({}, partitions=3, aggregate_timeout_seconds=2.5, reviewers="a")
    assert config.to_env()["MULTIQA_PARTITIONS"] == "3"
    assert StreamConfig.from_env(config.to_env()) == config


# --- discover: where a command-line tool finds the broker and the database --------------------

_LOCATIONS = (
    "MULTIQA_BOOTSTRAP_SERVERS",
    "MULTIQA_DATABASE_URL",
    "KAFKA_BOOTSTRAP_SERVERS",
    "DATABASE_URL",
    "MULTIQA_KAFKA_PORT",
)


@pytest.fixture
def dev_stack_file(tmp_path, monkeypatch):
    """A dev-stack cache dir of the test's own, with its devstack.env (empty at first)."""
    for name in _LOCATIONS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MULTIQA_CACHE_DIR", str(tmp_path))
    return tmp_path / "devstack.env"


def _where(config: StreamConfig) -> tuple[str, str]:
    return config.bootstrap_servers, config.database_url


def test_discover_without_anything_is_the_defaults(dev_stack_file):
    assert _where(StreamConfig.discover()) == ("127.0.0.1:19092", "")


def test_discover_precedence_flags_then_multiqa_then_dev_variables_then_file(
    dev_stack_file, monkeypatch
):
    dev_stack_file.write_text(
        "# written by multiqa dev up\n"
        "KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:4\n"
        "DATABASE_URL=postgresql://file/db\n"
    )
    assert _where(StreamConfig.discover()) == ("127.0.0.1:4", "postgresql://file/db")

    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:3")
    monkeypatch.setenv("DATABASE_URL", "postgresql://dev-env/db")
    assert _where(StreamConfig.discover()) == ("127.0.0.1:3", "postgresql://dev-env/db")

    monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", "127.0.0.1:2")
    monkeypatch.setenv("MULTIQA_DATABASE_URL", "postgresql://multiqa-env/db")
    assert _where(StreamConfig.discover()) == ("127.0.0.1:2", "postgresql://multiqa-env/db")

    flags = StreamConfig.discover(bootstrap="127.0.0.1:1", database_url="postgresql://flag/db")
    assert _where(flags) == ("127.0.0.1:1", "postgresql://flag/db")
    # An empty flag (`--dsn ""`) is no flag; each location is decided on its own.
    mixed = StreamConfig.discover(bootstrap="", database_url="postgresql://flag/db")
    assert _where(mixed) == ("127.0.0.1:2", "postgresql://flag/db")


def test_discover_takes_each_location_from_its_own_first_source(dev_stack_file, monkeypatch):
    dev_stack_file.write_text("KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:4\n")  # Kafka-only dev stack
    monkeypatch.setenv("DATABASE_URL", "postgresql://dev-env/db")
    assert _where(StreamConfig.discover()) == ("127.0.0.1:4", "postgresql://dev-env/db")


def test_discover_reads_every_other_field_like_from_env(dev_stack_file, monkeypatch):
    monkeypatch.setenv("MULTIQA_PARTITIONS", "3")
    assert StreamConfig.discover(bootstrap="127.0.0.1:1").partitions == 3
    monkeypatch.setenv("MULTIQA_PARTITIONS", "three")
    with pytest.raises(ConfigError, match="MULTIQA_PARTITIONS='three' is not an integer"):
        StreamConfig.discover()


def test_discover_ignores_a_dev_stack_it_cannot_locate(dev_stack_file, monkeypatch):
    dev_stack_file.write_text("KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:4\n")
    # A bad dev-stack variable makes its settings unreadable: no file, not a crash.
    monkeypatch.setenv("MULTIQA_KAFKA_PORT", "not-a-port")
    assert _where(StreamConfig.discover()) == ("127.0.0.1:19092", "")


def test_an_installed_multiqa_reads_no_dev_stack_from_its_working_folder(
    dev_stack_file, tmp_path, monkeypatch
):
    """Without MULTIQA_CACHE_DIR, only the source checkout's .cache/devstack.env counts: an
    installed multiqa run in some project's folder ignores that project's file."""
    from streams.devstack import _common

    monkeypatch.delenv("MULTIQA_CACHE_DIR")
    elsewhere = tmp_path / "some-project"
    (elsewhere / ".cache").mkdir(parents=True)
    (elsewhere / ".cache" / "devstack.env").write_text("KAFKA_BOOTSTRAP_SERVERS=10.9.9.9:1\n")
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(_common, "_REPO_ROOT", tmp_path / "site-packages")  # not a checkout
    assert _where(StreamConfig.discover()) == ("127.0.0.1:19092", "")
    # Run from a checkout, its own .cache is read (the working folder still is not).
    checkout = tmp_path / "checkout"
    (checkout / "deploy" / "local").mkdir(parents=True)
    (checkout / "deploy" / "local" / "pom.xml").write_text("<project/>")
    (checkout / ".cache").mkdir()
    (checkout / ".cache" / "devstack.env").write_text("KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:7\n")
    monkeypatch.setattr(_common, "_REPO_ROOT", checkout)
    assert _where(StreamConfig.discover()) == ("127.0.0.1:7", "")
    # Installed from a checkout and run in it: that checkout's file (where `dev up` wrote it).
    monkeypatch.setattr(_common, "_REPO_ROOT", tmp_path / "site-packages")
    monkeypatch.chdir(checkout)
    assert _where(StreamConfig.discover()) == ("127.0.0.1:7", "")


def test_a_value_from_the_dev_stack_file_is_named_with_its_path(dev_stack_file, caplog):
    dev_stack_file.write_text("KAFKA_BOOTSTRAP_SERVERS=not-an-address\n")
    with pytest.raises(
        ConfigError, match=rf"of the dev stack \({re.escape(str(dev_stack_file))}\)"
    ):
        StreamConfig.discover()
    dev_stack_file.write_text("KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:4\n")
    with caplog.at_level(logging.INFO, logger="streams.runtime.config"):
        StreamConfig.discover()
    assert f"of the dev stack ({dev_stack_file}): 127.0.0.1:4" in caplog.text
