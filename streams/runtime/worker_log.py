"""What a worker's log says: one "ready" line, no noise from a normal rebalance, and expected
outages at most one line per reason every few seconds, with a count, without a traceback.

- `announce_ready(app, roles, ...)`: once the worker's Faust app has finished its first
  rebalance (partitions assigned, tables recovered: Faust's `on_rebalance_complete`), one INFO
  line on this module's logger naming the roles, the broker and the database (no password).
- `OutageFilter`: installed on the root handlers by `install(worker)` once mode has configured
  logging. Records of an expected outage (a broker or database away: the loggers in `OUTAGE`)
  pass once per reason per `window` seconds; the next one that passes says how many were held
  back. Their tracebacks are dropped (the reason is in the line; a bug elsewhere keeps its
  traceback). Faust's, mode's and aiokafka's INFO chatter (every service's "Starting...",
  twelve "Worker ready", group joins, partition tables) is DEBUG here, and aiokafka's "Heartbeat
  failed ... because it is rebalancing" (a normal rebalance, e.g. a second worker joining) is not
  a warning.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

log = logging.getLogger(__name__)

# Loggers whose warnings and errors mean "something we depend on is away for now" (every
# module logs under its own name: logging.getLogger(__name__)).
OUTAGE = (
    "agents.settings_service",
    "streams.runtime.sinks",
    "streams.cli.worker",
    "aiokafka",
    "asyncpg",
)
# Per-service lifecycle and group-membership chatter of Faust, mode and aiokafka, below WARNING:
# DEBUG, not INFO (a worker's INFO is multiqa's own lines).
CHATTY = ("faust", "mode", "aiokafka")
# mode logs every service's start and stop under the service's own module's logger.
_LIFECYCLE = re.compile(r"\]: (Starting|Stopping|Restarting|Shutting down)\.\.\.\s*$")
# A normal rebalance, which aiokafka reports as a warning per group.
_REBALANCING = re.compile(r"because it is rebalancing|Heartbeat session expired|rejoin", re.I)


def _under(name: str, roots: Iterable[str]) -> bool:
    return any(name == root or name.startswith(root + ".") for root in roots)


class OutageFilter(logging.Filter):
    """See the module docstring. `clock` is the seam tests replace."""

    def __init__(self, window: float = 5.0, *, clock: Callable[[], float] = time.monotonic):
        super().__init__("multiqa-outages")
        self.window = window
        self._clock = clock
        self._last: dict[tuple[str, str, str], tuple[float, int]] = {}  # reason -> (since, held)

    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        if record.levelno < logging.WARNING and (
            _under(name, CHATTY) or _LIFECYCLE.search(str(record.msg))
        ):
            return logging.getLogger().getEffectiveLevel() <= logging.DEBUG
        if _under(name, ("aiokafka",)) and _REBALANCING.search(str(record.msg)):
            return False  # a normal rebalance (the group simply re-joins)
        if record.levelno < logging.WARNING or not _under(name, OUTAGE):
            return True
        exc_type = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        reason = (name, str(record.msg), exc_type)
        now = self._clock()
        since, held = self._last.get(reason, (float("-inf"), 0))
        if now - since < self.window:
            self._last[reason] = (since, held + 1)
            return False
        self._last[reason] = (now, 0)
        if held:
            record.msg = f"{record.msg} [{held} more like this in the last {now - since:.0f} s]"
        if record.exc_info:
            # The reason is in the line; an outage's traceback says nothing more.
            summary = f"{exc_type}: {record.exc_info[1]}"
            if summary not in record.getMessage():
                record.msg = f"{record.msg} ({summary})"
            record.exc_info = None
            record.exc_text = None
        return True


def install(worker: Any, *, window: float = 5.0) -> OutageFilter:
    """Add the filter to every root handler once mode has set logging up (its
    `on_setup_root_logger` hook); returns the filter."""
    outage = OutageFilter(window)
    setup = worker.on_setup_root_logger

    def on_setup_root_logger(logger: logging.Logger, level: int) -> None:
        setup(logger, level)
        for handler in logging.getLogger().handlers:
            handler.addFilter(outage)

    worker.on_setup_root_logger = on_setup_root_logger
    return outage


def when_first_ready(app: Any, call: Callable[[], None]) -> None:
    """Run `call` once, the first time `app` (a Faust app) completes a rebalance: partitions
    assigned, tables recovered, streams resumed (Faust's `on_rebalance_complete`)."""
    done = False

    async def on_rebalance_complete(sender: Any = None, **_: Any) -> None:
        nonlocal done
        if done:
            return
        done = True
        call()

    app.on_rebalance_complete.connect(on_rebalance_complete, weak=False)


def announce_ready(app: Any, roles: Sequence[str], bootstrap: str, database: str) -> None:
    """Log one line the first time `app` (the worker's Faust app) completes a rebalance:
    partitions assigned, tables recovered, streams resumed."""
    where_db = re.sub(r"//[^@/]*@", "//", database) if database else "none (default settings)"
    when_first_ready(
        app,
        lambda: log.info(
            "worker ready: roles %s; broker %s; database %s", ", ".join(roles), bootstrap, where_db
        ),
    )
