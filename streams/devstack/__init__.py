"""The local development stack: a real Kafka broker (KRaft) and a real PostgreSQL server on
127.0.0.1, started from folders of the checkout, without Docker (`multiqa dev up|down|status`).

The test fixtures (tests/conftest.py) use `ensure_kafka()` / `ensure_postgres()` from here.
"""

from streams.devstack._common import DevStackError, Settings
from streams.devstack.stack import StackInfo, down, ensure_kafka, ensure_postgres, status, up

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
