"""`multiqa topics create`: create multiqa's topics on the broker, with the configured partition
count (MULTIQA_PARTITIONS) and message size (MULTIQA_MAX_DRAFT_BYTES), before any worker or writer
uses them. A worker does the same when it starts; a writer (`multiqa submit`, `submit_draft`)
never creates a topic, so that a broker with auto-creation on cannot make one with its own
default partition count. Existing topics are kept; one with another partition count is an error.
"""

from __future__ import annotations

import argparse
from typing import Any

from streams.cli._command import bootstrap_option, discover_config, run_command


async def _create(args: argparse.Namespace) -> int:
    from aiokafka.errors import KafkaError

    from streams.client import BrokerUnavailableError
    from streams.runtime.topics import ensure_topics, topic_configs

    config = discover_config(args)
    if args.partitions is not None:
        config = config.with_overrides(partitions=args.partitions)
    try:
        created = await ensure_topics(config, request_timeout=15)
    except KafkaError as exc:
        raise BrokerUnavailableError.at(config.bootstrap_servers, exc) from exc
    for name, configs in topic_configs(config).items():
        state = "created" if name in created else "exists"
        extra = ", ".join(f"{k}={v}" for k, v in configs.items())
        print(f"{name:<40} {state:<8} {config.partitions} partitions  {extra}")
    return 0


def _partitions(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def add_parser(subparsers: Any) -> None:
    topics = subparsers.add_parser(
        "topics",
        help="create multiqa's topics (partitions, message size) before anything uses them",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = topics.add_subparsers(dest="topics_command", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create", parents=[bootstrap_option()], help="create the topics that are missing"
    )
    create.add_argument(
        "--partitions",
        type=_partitions,
        help="partitions of every topic (default: MULTIQA_PARTITIONS, else 6)",
    )
    create.set_defaults(func=run_command("multiqa topics create", _create))
