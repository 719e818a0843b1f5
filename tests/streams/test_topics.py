"""`ensure_topics` creates every topic a worker needs before any worker starts, the aggregator
table's changelog included (left to Faust, the first worker's group could form before the new
changelog had partitions in metadata, and every table write then failed)."""

from __future__ import annotations

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from streams.runtime.topics import TopicSetupError, ensure_topics, partition_counts
from tests.streams.stream_helpers import delete_topics, stream_config


async def _cleanup_policy(admin: AIOKafkaAdminClient, topic: str) -> str:
    (response,) = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
    ((_code, _message, _type, _name, entries),) = response.resources
    return {entry[0]: entry[1] for entry in entries}["cleanup.policy"]


async def test_the_table_changelog_is_created_compacted_with_the_partitions(
    kafka_bootstrap, tmp_path
):
    config = stream_config(kafka_bootstrap, str(tmp_path), partitions=3)
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        created = await ensure_topics(config)
        assert config.changelog_topic in created
        assert config.changelog_topic == f"{config.aggregator_group_id}-drafts-changelog"
        counts = await partition_counts(admin, [config.changelog_topic, config.drafts_topic])
        assert counts == {config.changelog_topic: 3, config.drafts_topic: 3}
        assert await _cleanup_policy(admin, config.changelog_topic) == "compact"
        assert await ensure_topics(config) == []  # existing topics are kept
    finally:
        await admin.close()
        await delete_topics(config)


async def test_a_changelog_with_another_partition_count_is_refused(kafka_bootstrap, tmp_path):
    config = stream_config(kafka_bootstrap, str(tmp_path), partitions=2)
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(config.changelog_topic, 1, 1)])
        with pytest.raises(TopicSetupError, match="changelog"):
            await ensure_topics(config)
    finally:
        await admin.close()
        await delete_topics(config)
