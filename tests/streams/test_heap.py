"""The worker freezes its start-up heap out of the collector's full passes once it is first ready
(streams.runtime._heap), and only then."""

from __future__ import annotations

import gc

import pytest

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
