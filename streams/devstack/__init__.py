"""The local development stack: a real Kafka broker (KRaft) and a real PostgreSQL server on
127.0.0.1, started from folders of the checkout, without Docker (`multiqa dev up|down|status`).

The test fixtures (tests/conftest.py) use `ensure_kafka()` / `ensure_postgres()` from here. The
launchers load on first use (PEP 562), so `multiqa --help` does not import them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streams.devstack._common import DevStackError, Settings

if TYPE_CHECKING:
    from streams.devstack.stack import (
        StackInfo,
        down,
        ensure_kafka,
        ensure_postgres,
        status,
        up,
    )

__all__ = [
    "DevStackError",
    "Settings",
    "StackInfo",
    "down",
    "ensure_kafka",
    "ensure_postgres",
    "status",
    "up",
]

_FROM_STACK = {"StackInfo", "down", "ensure_kafka", "ensure_postgres", "status", "up"}


def __getattr__(name: str) -> Any:
    if name not in _FROM_STACK:
        raise AttributeError(f"module 'streams.devstack' has no attribute {name!r}")
    from streams.devstack import stack

    value = getattr(stack, name)
    globals()[name] = value
    return value
