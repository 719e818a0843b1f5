"""The worker's heap: its start-up objects kept out of the cyclic garbage collector's full passes,
and the memory a flood took given back once it is over.

A worker imports Faust, aiokafka, asyncpg, OpenTelemetry and every reviewer, builds its app and
recovers its table before it reads the first event: about a million objects that live as long as
the process. CPython's collector walks every tracked object on each full (generation 2) pass, and
a flood allocates fast enough to trigger one every few seconds: in bench/bench_flood.py each pass
took 0.35-0.45 s of the worker's CPU, 10-18% of the CPU a flood of 10,000 bad drafts cost.
`gc.freeze()` moves the objects alive at that point to a permanent generation the collector never
walks (what it was made for: long-lived start-up state), so the full passes only walk what the
stream allocated since. It is done once, when the worker is first ready (partitions assigned, the
table recovered), after one last full collection so no garbage is frozen with it.

After a flood. Parking 10,000 bad drafts holds a few fetches of records, their dead letters and
the audit lane's backlog at once (streams.runtime.deadletter: each bounded); once freed, the C
allocator keeps most of the pages (RSS 139 MB before, 169 MB after, in bench/bench_flood.py).
`release_after_burst` is told how many records each parked or audited batch held; when at least
`BURST` came and then none for `QUIET_SECONDS`, it runs one full collection and glibc's
`malloc_trim(0)` (`Release.trim`, the seam tests replace), which returns the free pages to the
system. Nothing is done for a trickle of bad events.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
from typing import Any

from streams.runtime.worker_log import when_first_ready

log = logging.getLogger(__name__)


def freeze_startup_heap() -> int:
    """Collect, then freeze every object alive now; returns how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def freeze_when_ready(app: Any) -> None:
    """`freeze_startup_heap` once, when `app` first completes a rebalance."""
    when_first_ready(
        app,
        lambda: log.debug(
            "froze %d start-up objects out of the collector's passes", freeze_startup_heap()
        ),
    )


BURST = 2000  # records parked or audited before a release is worth one
QUIET_SECONDS = 2.0  # ... and this long without more


class Release:
    """Gives a flood's memory back once it is over (module docstring)."""

    def __init__(self, *, burst: int = BURST, quiet: float = QUIET_SECONDS) -> None:
        self.burst = burst
        self.quiet = quiet
        self.pending = 0  # records seen since the last release
        self.releases = 0
        self._timer: asyncio.TimerHandle | None = None

    def note(self, records: int) -> None:
        self.pending += records
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.quiet, self._quiet)

    def _quiet(self) -> None:
        self._timer = None
        if self.pending >= self.burst:
            self.pending = 0
            self.releases += 1
            gc.collect()
            self.trim()
        # a trickle below `burst` keeps counting: many small batches add up to a flood too

    def trim(self) -> None:
        _malloc_trim()


def _malloc_trim() -> None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        trim = libc.malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc: nothing to give back this way
        return
    trim(0)


RELEASE = Release()


def release_after_burst(records: int) -> None:
    """`records` of a parked or audited batch are done with (`RELEASE.note`)."""
    if records:
        RELEASE.note(records)
