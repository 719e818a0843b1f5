"""The worker's heap: its start-up objects kept out of the cyclic garbage collector's full passes.

A worker imports Faust, aiokafka, asyncpg, OpenTelemetry and every reviewer, builds its app and
recovers its table before it reads the first event: about a million objects that live as long as
the process. CPython's collector walks every tracked object on each full (generation 2) pass, and
a flood allocates fast enough to trigger one every few seconds: in bench/bench_flood.py each pass
took 0.35-0.45 s of the worker's CPU, 10-18% of the CPU a flood of 10,000 bad drafts cost.
`gc.freeze()` moves the objects alive at that point to a permanent generation the collector never
walks (what it was made for: long-lived start-up state), so the full passes only walk what the
stream allocated since. It is done once, when the worker is first ready (partitions assigned, the
table recovered), after one last full collection so no garbage is frozen with it.
"""

from __future__ import annotations

import gc
import logging
from typing import Any

log = logging.getLogger(__name__)


def freeze_startup_heap() -> int:
    """Collect, then freeze every object alive now; returns how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def freeze_when_ready(app: Any) -> None:
    """`freeze_startup_heap` once, when `app` first completes a rebalance."""
    done = False

    async def on_rebalance_complete(sender: Any = None, **_: Any) -> None:
        nonlocal done
        if done:
            return
        done = True
        log.debug("froze %d start-up objects out of the collector's passes", freeze_startup_heap())

    app.on_rebalance_complete.connect(on_rebalance_complete, weak=False)
