"""What every agent of a worker process shares (`Runtime`), apart from the app that builds them,
so that the agents' modules can name it without importing the app (streams.runtime.app)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agents.base import Deps
from agents.settings import Settings
from streams.runtime.config import StreamConfig
from streams.runtime.deadletter import DeadLetterAudit

SettingsSource = Callable[[], Awaitable[Settings]]


async def default_settings() -> Settings:
    return Settings()


@dataclass
class Runtime:
    """What every agent in the process shares: configuration, the settings in force, the
    reviewers' clients, and where dead letters are audited."""

    config: StreamConfig
    settings: SettingsSource = default_settings
    deps: Deps = field(default_factory=Deps)
    dead_letter_audit: DeadLetterAudit | None = None
    pool: Any = None  # asyncpg.Pool when config.database_url is set
    clock: Callable[[], float] = time.time
