"""The worker's consumer asks the broker to hold a fetch for at most MULTIQA_BROKER_FETCH_WAIT
(streams.runtime._fetch), Faust's 1.5 s unless set."""

from __future__ import annotations

from streams.runtime._fetch import QuickFetchConsumer
from streams.runtime.app import make_faust_app
from tests.streams.stream_helpers import stream_config


def built_consumer(app):  # the aiokafka consumer the worker's consumer thread would start
    consumer = app.consumer
    assert isinstance(consumer, QuickFetchConsumer)
    return consumer._thread._create_worker_consumer(app.transport)


async def test_the_worker_consumer_fetches_with_the_configured_wait(tmp_path):
    config = stream_config("127.0.0.1:9", str(tmp_path)).with_overrides(broker_fetch_wait=0.05)
    app = make_faust_app(config, "t-fetch")
    kafka = built_consumer(app)
    try:
        assert kafka._fetch_max_wait_ms == 50
    finally:
        await kafka.stop()


async def test_the_default_wait_is_faust_s(tmp_path):
    app = make_faust_app(stream_config("127.0.0.1:9", str(tmp_path)), "t-fetch-default")
    kafka = built_consumer(app)
    try:
        assert kafka._fetch_max_wait_ms == 1500  # the measured better choice here (see _fetch)
    finally:
        await kafka.stop()
