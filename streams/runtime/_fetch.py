"""The worker's Kafka consumer: Faust's, with a short broker-side fetch wait.

aiokafka keeps one fetch request in flight per broker, and a partition whose fetched records
the app has not taken yet is left out of it; once they are taken, that partition can only be
fetched again when the request in flight returns. The broker holds a fetch until one of its
partitions has new data or `fetch_max_wait_ms` passed, which Faust 0.15.3 fixes at 1500 ms. So
the reviewer results of a draft that arrive right after the first one are fetched only when some
other partition receives something, or 1.5 s later: at 20 drafts/s the aggregator saw the last
result of a draft 40 ms (p50) to 380 ms (p99) after it was written (bench/bench_stream.py,
paced). A short wait bounds that delay; an idle worker then sends one cheap empty fetch per wait.
"""

from __future__ import annotations

from typing import Any

from faust.transport.drivers import aiokafka as faust_aiokafka


class _QuickFetchThread(faust_aiokafka.AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        wait = getattr(self.app, "fetch_wait_seconds", None)
        if wait is not None:
            # Read by AIOKafkaConsumer.start() when it builds its Fetcher.
            consumer._fetch_max_wait_ms = max(1, int(wait * 1000))
        return consumer


class QuickFetchConsumer(faust_aiokafka.Consumer):
    """Faust's aiokafka consumer whose fetches wait at most `app.fetch_wait_seconds`."""

    def _new_consumer_thread(self) -> faust_aiokafka.AIOKafkaConsumerThread:
        return _QuickFetchThread(self, loop=self.loop, beacon=self.beacon)
