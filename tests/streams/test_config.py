import pytest

from streams.config import ConfigError, StreamConfig


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
    ],
)
def test_bad_values_name_the_variable(env, message):
    with pytest.raises(ConfigError, match=message):
        StreamConfig.from_env(env)
