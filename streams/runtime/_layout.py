"""The worker's runtime layout: which roles a process runs, and the one consumer group they share.

A role is `reviewer-<name>`, `aggregator` or `sinks`. A worker runs one Faust app hosting every
role it was given: one consumer, one producer, one consumer group, each event read and decoded
once however many roles use it (see streams.runtime.app). The group id is derived from the set of
roles, so every worker started with the same roles joins the same group and they share its
partitions:

    <prefix>-<role>                   a single role: multiqa-reviewer-critic, multiqa-aggregator
    <prefix>-<role>+<role>+...        several, in canonical order:
                                      multiqa-aggregator+sinks+reviewer-validator+...

Each role must be run by exactly one role set at a time: two groups holding the same role would
each do its work for every event (a reviewer would review every draft twice; two aggregators
would write one table from two groups). `overlapping_groups` finds such groups on the broker, and
the worker refuses to start next to one (streams.cli.worker).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from streams.runtime.config import StreamConfig

AGGREGATOR = "aggregator"
SINKS = "sinks"
REVIEWER = "reviewer-"


def reviewer_role(name: str) -> str:
    return f"{REVIEWER}{name}"


def roles(reviewers: Iterable[str], *, aggregator: bool, sinks: bool) -> list[str]:
    """The roles of a process, in canonical order (aggregator, sinks, reviewers by name), so the
    same roles always make the same group, however they were listed."""
    found = ([AGGREGATOR] if aggregator else []) + ([SINKS] if sinks else [])
    return found + [reviewer_role(name) for name in sorted(set(reviewers))]


def group_id(config: StreamConfig, process_roles: Sequence[str]) -> str:
    """The consumer group (and Faust app id) of a process running `process_roles`."""
    if not process_roles:
        raise ValueError("a worker runs at least one role")
    return f"{config.app_prefix}-{'+'.join(process_roles)}"


def roles_of(config: StreamConfig, group: str) -> set[str] | None:
    """The roles a group id of this deployment stands for (None: not one of ours)."""
    head = f"{config.app_prefix}-"
    if not group.startswith(head):
        return None
    found = set(group[len(head) :].split("+"))
    if all(r in (AGGREGATOR, SINKS) or r.startswith(REVIEWER) for r in found):
        return found
    return None


async def overlapping_groups(config: StreamConfig, mine: str) -> dict[str, Any]:
    """Groups with live members, other than `mine`, that run one of its roles:
    {group: sorted shared roles}."""
    from aiokafka.admin import AIOKafkaAdminClient

    wanted = roles_of(config, mine) or set()
    admin = AIOKafkaAdminClient(bootstrap_servers=config.bootstrap_servers)
    await admin.start()
    try:
        candidates = []
        for listed in await admin.list_consumer_groups():
            group = listed[0]
            held = roles_of(config, group)
            if group != mine and held is not None and held & wanted:
                candidates.append((group, sorted(held & wanted)))
        found: dict[str, Any] = {}
        for group, shared in candidates:
            (response,) = await admin.describe_consumer_groups([group])
            for described in response.to_object()["groups"]:
                if described["members"]:
                    found[group] = shared
        return found
    finally:
        await admin.close()
