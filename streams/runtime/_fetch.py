"""The worker's Kafka consumer: Faust's aiokafka consumer with a short broker-side fetch wait
(`QuickFetchConsumer`), and each fetched batch screened before Faust's per-message delivery
(`ScreeningConsumer`, streams.runtime._screen).

The fetch wait. aiokafka keeps one fetch request in flight per broker, and a partition whose
fetched records the app has not taken yet is left out of it; once they are taken, that partition
can only be fetched again when the request in flight returns. The broker holds a fetch until one of
its partitions has new data or `fetch_max_wait_ms` passed, which Faust 0.15.3 fixes at 1500 ms. So
the reviewer results of a draft that arrive right after the first one are fetched only when some
other partition receives something, or 1.5 s later: at 20 drafts/s the aggregator saw the last
result of a draft 40 ms (p50) to 380 ms (p99) after it was written (bench/bench_stream.py, paced).
A short wait bounds that delay, but an idle worker then sends an empty fetch per wait: with 20 ms,
at 0.5 drafts/s the consumer thread's fetches were half the worker's CPU, and on this machine's
loaded, shared cores paced latency got worse (5 drafts/s, two A/B pairs: p50 372 and 849 ms
against 187 and 214 ms with 1.5 s). So the default stays Faust's 1.5 s
(MULTIQA_BROKER_FETCH_WAIT): a deployment with cores to spare may lower it. After a flood the
same wait delays the valid drafts queued behind it (each hop, draft -> reviews -> decision, can
wait for a fetch in flight): one A/B in bench/bench_flood.py (load 9, `--engines
multiqa,multiqa/broker_fetch_wait=0.05`) decided them 8.3-10.9 s after the flood instead of
12.0-16.3 s. One run, and no paced A/B on a machine quiet enough to trust: the default stays.
`bench_stream.py --engines aiokafka,multiqa,multiqa/broker_fetch_wait=0.05` is the A/B to run.

The screen. Faust 0.15.3 delivers every fetched record on its own: a message object, the read-
offset and gap bookkeeping, `wait_first` on two tasks per message, the conductor's lock, the
agents' queues. For a bad event, or a dead letter the sinks only store, that machinery was most of
its cost (py-spy, bench/bench_flood.py). `ScreeningConsumer.getmany` hands the whole batch to the
app's `Screen` first, which decodes each record of a screened topic once and takes out what no
agent must (or need) see, acknowledging those offsets itself once they are dealt with
(`ack_offsets`: Faust's own ack bookkeeping, so commits move over them as over any acked message).
The rest is delivered as Faust does, each with its decoded value remembered for the agents.

Offsets taken out must not look like gaps to Faust's drain loop (it would mark them committable as
soon as a later offset is acked, whatever became of them): before delivering a record that follows
taken-out offsets, the partition's read offset is moved up to them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any

from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP
from faust.types.tuples import Message, ack_lock
from mode.utils.futures import notify

from streams.runtime._batch import Batch, BatchMessage
from streams.runtime.serde import remember_decoded


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


class ScreeningConsumer(QuickFetchConsumer):
    """See the module docstring."""

    # The first offset fetched per partition in this consumer generation: where a group with
    # nothing committed (or 0) starts (`_new_offset`).
    _first_fetched: dict[TP, int] | None = None
    # Partitions sought back by the aggregator, and to where (streams.runtime._offsets.seek_back).
    sought: dict[TP, int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sought = {}

    _first_generation: int | None = None

    def _new_offset(self, tp: TP) -> int | None:
        """Faust's, except with nothing (or 0) committed: Faust then commits the first run of
        acked offsets wherever it starts, so offsets the screen acked (bad events, taken out)
        after a draft an agent still holds got that draft committed past
        (tests/streams/test_batch_delivery.py). Here acked offsets only count once they run from
        the first offset this generation fetched."""
        acked = self._acked[tp]
        started = (self._first_fetched or {}).get(tp)
        if not self._committed_offset[tp] and started is not None and acked:
            gaps = self._gap.get(tp)
            low = min(acked)
            if gaps:
                low = min(low, min(gap.begin for gap in gaps))
            if low > started:
                return None
        offset: int | None = super()._new_offset(tp)
        return offset

    def committed_offset(self, tp: TP) -> int | None:
        """The offset last committed (or read from the group at assignment) for `tp`."""
        committed: int | None = self._committed_offset[tp]
        return committed

    def ack_offsets(self, tp: TP, offsets: Iterable[int]) -> None:
        """Acknowledge offsets of `tp` that were never delivered as messages (what `ack` does for
        a message, under the same lock). Offsets below the committed one are ignored."""
        if not self.app.topics.acks_enabled_for(tp.topic):
            return
        with ack_lock:
            committed = self._committed_offset[tp]
            index = self._acked_index[tp]
            acked = self._acked[tp]
            for offset in offsets:
                if (committed is None or offset >= committed) and offset not in index:
                    index.add(offset)
                    acked.append(offset)
                    self._n_acked += 1
            notify(self._waiting_for_ack)

    def ack(self, message: Message) -> bool:
        """Faust's ack; acknowledging a batch message acknowledges every offset of its batch
        (streams.runtime._batch), in the same step.

        A message fetched in an earlier consumer generation is not acknowledged. Faust's stream
        acknowledges the events it skips, those taken from an agent's queue after a rebalance
        (flow stopped, or another generation: `Stream._py_aiter`), even on a manual-ack stream,
        although the agent never handled them. With several agents on one message, the slow
        agent's skip then released a batch whose other agents were done: its offsets were
        committed although, say, the critic never reviewed it, and a crash before the copy read
        again was reviewed lost the critic's results (issue 13's crash test, 17 drafts decided
        by their deadline). Every assignment seeks back to the committed offsets, so such a
        message is read again in the new generation and acknowledged then: a duplicate at worst.
        """
        generation = message.generation_id
        if generation is not None and generation != self.app.consumer_generation_id:
            return False
        with ack_lock:
            done: bool = super().ack(message)
            if done and type(message) is BatchMessage:
                self.ack_offsets(message.tp, message.item_offsets())
            return done

    async def getmany(self, timeout: float) -> AsyncIterator[tuple[TP, Message]]:  # noqa: ASYNC109
        """Faust's `Consumer.getmany`, with the batch screened first (module docstring)."""
        records, active_partitions = await self._wait_next_records(timeout)
        generation_id = self.app.consumer_generation_id
        if records is None or self.should_stop:
            return
        if not self.flow_active:
            self.log.dev("getmany called while flow not active. Seek back to committed offsets.")
            try:
                await self.perform_seek()
            except Exception as ex:
                self.log.warning(f"exception performing seek when flow not active {ex}")
            return
        if self._first_fetched is None or self._first_generation != generation_id:
            self._first_fetched, self._first_generation = {}, generation_id
        sought = self.sought
        for tp, batch in records.items():
            if batch and tp not in self._first_fetched:
                self._first_fetched[tp] = batch[0].offset
            if batch and sought and tp in sought and batch[0].offset <= sought[tp]:
                # The records a seek of ours asked for (streams.runtime._offsets.seek_back):
                # never dropped as re-reads below a read offset set after the seek.
                del sought[tp]
                self._read_offset[tp] = None
        screen = getattr(self.app, "screen", None)
        values: dict[tuple[TP, int], Any] = {}
        removed: dict[TP, set[int]] = {}
        if screen is not None and records and any(screen.screens(tp.topic) for tp in records):
            records, values, removed = await screen.sift(self, records)
            if self.app.consumer_generation_id != generation_id or not self.flow_active:
                return  # a rebalance meanwhile: Faust seeks to the committed offsets again
        # Each partition of a batched topic is one message (streams.runtime._batch): the loop
        # below sees its last record only.
        batched = screen.batched if screen is not None else frozenset()
        whole = {tp: batch for tp, batch in records.items() if tp.topic in batched and batch}
        if whole:
            records = {
                tp: [whole[tp][-1]] if tp in whole else batch for tp, batch in records.items()
            }
        read_offset = self._read_offset
        to_message = self._to_message
        complete = True
        for tp, record in self.scheduler.iterate(records):
            if not self.flow_active or self.app.consumer_generation_id != generation_id:
                complete = False
                break
            if (
                active_partitions is None
                or tp in active_partitions
                or (tp in self._buffered_partitions)
            ):
                offset = record.offset
                gone = removed.get(tp)
                last = read_offset.get(tp)
                message: Message
                if tp.topic in batched:
                    one = self._batch(tp, whole[tp], values, generation_id)
                    if one is None:
                        continue  # every record re-read (what Faust's drain loop drops)
                    message, first = one, one.first
                else:
                    message = to_message(tp, record)
                    first = offset
                    value = values.get((tp, offset))
                    if value is not None:
                        remember_decoded(message, value)
                if (
                    gone
                    and last is not None
                    and first - last > 1
                    and all(o in gone for o in range(last + 1, first))
                ):
                    last = read_offset[tp] = first - 1  # no gap: those offsets are acked by us
                if type(message) is BatchMessage and last is not None and offset - last > 1:
                    if last and first - last > 1:
                        # Offsets never fetched before the batch: a gap, as Faust records one
                        # (not after a read offset of 0, as Faust's drain loop does not).
                        await self._add_gap(tp, last + 1, first - 1)
                    # The batch's own offsets are acknowledged with it, never gaps.
                    read_offset[tp] = offset - 1
                self.app.monitor.track_tp_end_offset(tp, self.highwater(tp))
                yield tp, message
        if complete:
            for tp, gone in removed.items():
                last = read_offset.get(tp)
                top = max(gone)
                if last is None or top > last:
                    read_offset[tp] = top

    def _batch(
        self, tp: TP, batch: list[Any], values: dict[tuple[TP, int], Any], generation_id: int
    ) -> BatchMessage | None:
        """One message for the records of `tp` in this fetch (streams.runtime._batch), without
        those below the read offset (delivered already: Faust's drain loop would drop them)."""
        last = self._read_offset.get(tp)
        if last is not None:
            batch = [r for r in batch if r.offset >= last]
            if not batch:
                return None
        to_message = self._to_message
        items = [(to_message(tp, r), values.get((tp, r.offset))) for r in batch]
        return BatchMessage.of(tp, batch[-1], Batch(items), batch[0].offset, generation_id)
