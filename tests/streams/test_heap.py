"""The worker freezes its start-up heap out of the collector's full passes once it is first ready
(streams.runtime._heap), and only then."""

from __future__ import annotations

import asyncio
import gc

import pytest

from streams.runtime._heap import Release
from streams.runtime.app import make_faust_app
from tests.streams.stream_helpers import stream_config

pytestmark = pytest.mark.asyncio


async def test_the_start_up_heap_is_frozen_at_the_first_rebalance_only(tmp_path):
    app = make_faust_app(stream_config("127.0.0.1:9", str(tmp_path)), "t-heap")
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0  # building the app freezes nothing
        await app.on_rebalance_complete.send()
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the imported modules, the app, ...: what lives for the process
        gc.unfreeze()
        await app.on_rebalance_complete.send()  # a later rebalance (a flood's objects alive)
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


class Counted(Release):
    def trim(self) -> None:
        self.trimmed = getattr(self, "trimmed", 0) + 1


async def test_a_flood_s_memory_is_released_once_after_it_and_a_trickle_releases_nothing():
    release = Counted(burst=100, quiet=0.05)
    for _ in range(10):
        release.note(30)  # a flood: 300 records, batch after batch
    assert release.releases == 0  # not while it goes on
    async with asyncio.timeout(30):
        while not release.releases:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
    assert (release.releases, release.trimmed, release.pending) == (1, 1, 0)
    release.note(5)  # a few bad events later: below the burst, nothing to give back
    await asyncio.sleep(0.2)
    assert release.releases == 1 and release.pending == 5


async def test_the_real_trim_runs_here():
    Release().trim()  # glibc's malloc_trim (or nothing where there is none); never raises
