"""Consumer groups as the broker sees them: is every group a worker runs joined and stable?

Used to know that a freshly started worker is consuming, without sending it anything (a warm-up
draft would leave a decision behind). The broker's group coordinator may not be available yet
right after the broker started (COORDINATOR_NOT_AVAILABLE / COORDINATOR_LOAD_IN_PROGRESS):
that is retried, within the caller's deadline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import (
    CoordinatorLoadInProgressError,
    CoordinatorNotAvailableError,
    KafkaConnectionError,
    NotCoordinatorError,
    for_code,
)
from aiokafka.protocol.admin import (
    DescribeGroupsRequest_v0,
    DescribeGroupsRequest_v1,
    DescribeGroupsRequest_v2,
)
from aiokafka.protocol.api import Request

from schemas import OperatorError

# Worth asking again a moment later: the coordinator is still starting or moving.
RETRIABLE = (
    CoordinatorNotAvailableError,
    CoordinatorLoadInProgressError,
    NotCoordinatorError,
    KafkaConnectionError,
)


class GroupsNotReadyError(OperatorError, RuntimeError):
    """The groups did not all become stable in time; str() is one line saying which."""


@dataclass(frozen=True)
class GroupState:
    group: str
    state: str  # "Stable", "PreparingRebalance", "CompletingRebalance", "Empty", "Dead"
    members: int

    @property
    def ready(self) -> bool:
        return self.state == "Stable" and self.members > 0


# aiokafka's protocol classes are untyped for mypy here (Any).
_Structs = DescribeGroupsRequest_v0 | DescribeGroupsRequest_v1 | DescribeGroupsRequest_v2


class _DescribeGroups(Request[_Structs]):  # type: ignore[misc]
    """DescribeGroups up to v2 only: aiokafka 0.14 decodes the v3 answer with the v2 layout
    (its `describe_consumer_groups` fails with "Buffer underrun" against Kafka 4)."""

    API_KEY = 15

    def __init__(self, groups: list[str]) -> None:
        self._groups = groups

    def build(self, request_struct_class: Any) -> Any:
        return request_struct_class(self._groups)


async def group_states(admin: AIOKafkaAdminClient, groups: Sequence[str]) -> list[GroupState]:
    """The state of each group (raises the retriable errors above while the coordinator is not
    there yet)."""
    found: list[GroupState] = []
    for group in groups:
        node = await admin.find_coordinator(group)
        response = await admin._send_request(_DescribeGroups([group]), node)
        for error_code, name, state, _ptype, _protocol, members, *_ in response.groups:
            if error_code:
                raise for_code(error_code)(f"describing group {name}")
            found.append(GroupState(str(name), str(state), len(members)))
    return found


async def wait_for_stable_groups(
    bootstrap: str,
    groups: Sequence[str],
    *,
    within: float,
    alive: Callable[[], bool] = lambda: True,
    poll: float = 0.5,
) -> list[GroupState]:
    """Until every group is Stable with a member; GroupsNotReadyError after `within` seconds,
    or as soon as `alive()` turns false (the process that should join them exited)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    last: list[GroupState] = []
    problem = ""
    try:
        await admin.start()
        while True:
            if not alive():
                raise GroupsNotReadyError("the worker exited before its consumer groups joined")
            try:
                last = await group_states(admin, groups)
                problem = ""
                if all(state.ready for state in last):
                    return last
            except RETRIABLE as exc:
                problem = f"{type(exc).__name__}"
            if loop.time() > deadline:
                break
            await asyncio.sleep(poll)
    except KafkaConnectionError as exc:
        raise GroupsNotReadyError(f"cannot reach Kafka at {bootstrap}: {exc}") from exc
    finally:
        await admin.close()
    if problem:
        raise GroupsNotReadyError(
            f"the broker's group coordinator did not answer within {within:g} s ({problem}); "
            "is the broker still starting? see its log (multiqa dev status)"
        )
    waiting = ", ".join(f"{s.group} ({s.state}, {s.members} members)" for s in last if not s.ready)
    raise GroupsNotReadyError(f"consumer groups not stable within {within:g} s: {waiting}")
