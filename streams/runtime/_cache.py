"""A write-behind cache over the aggregator's Faust table: each key changed between two flushes
reaches the store and the changelog once, at the flush (what Kafka Streams' record cache does).

Faust writes a table's changelog on every assignment (`table[key] = value`), one message per
change, and only to the partition of the event being processed. The aggregator changes an entry
several times per draft (the draft, each result, the decision, "published") and its input offsets
after every event: 17 changelog messages per draft, each the whole entry as JSON. Here changes
wait in `_dirty` (readers see them first) and `flush()` writes each dirty key once, into the
local store (memory, or the RocksDB database of the key's partition) and to the changelog
partition of the key's table partition, given explicitly, straight to the producer (the table's
`write_changelog`: Faust's `send_changelog` goes through its per-message machinery, a
FutureMessage, the producer buffer and a delivery callback per write, ~5% of the worker's CPU in a
bench/bench_stream.py burst). It returns the changelog futures; the caller acknowledges the
input events only once they are delivered (streams.runtime.aggregator), so a crash between two
flushes loses nothing: the events after the last delivered flush are read again from the
committed offsets and applied again.

Keys set with `last=True` (the input offsets) are sent after every other key of their flush: a
changelog cut short by a crash never holds an input offset ahead of the entries it covers
(within a partition Kafka keeps the order they were sent in).

Recovery is Faust's: the changelog is read back into the store when partitions are assigned
(RocksDB's persisted offsets are set as Faust's delivery callback sets them, by `write_changelog`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_ABSENT = object()


class TableCache:
    """Reads through the pending changes to the table's store; `flush()` writes them."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._dirty: dict[str, tuple[int, Any]] = {}  # key -> (partition, value; None: delete)
        self._last: dict[str, tuple[int, Any]] = {}  # sent after every other key of a flush
        self.flushes = 0
        self.writes = 0

    def __len__(self) -> int:
        """How many keys wait for the next flush."""
        return len(self._dirty) + len(self._last)

    # --- reading ---------------------------------------------------------------------------------
    def get(self, key: str, partition: int | None = None) -> Any:
        """The value of `key` (None: absent or deleted), pending changes first. With the key's
        table `partition`, RocksDB reads only that partition's database (Faust's own lookup
        uses the current event's partition, or searches every database without one)."""
        pending = self._dirty.get(key, _ABSENT)
        if pending is _ABSENT:
            pending = self._last.get(key, _ABSENT)
        if pending is not _ABSENT:
            return pending[1]  # type: ignore[index]
        store = self.table.data
        db_for = getattr(store, "_db_for_partition", None)
        if db_for is None:
            return store.data.get(key)  # the memory store's dict
        if partition is None:
            return store.get(key)
        raw = db_for(partition).get(store._encode_key(key))
        return None if raw is None else store._decode_value(raw)

    def items(self) -> Iterator[tuple[str, Any]]:
        """Every key of the local store and every pending one, each once, with its value."""
        dirty, last = self._dirty, self._last
        store = self.table.data
        stored = store.data.items() if not hasattr(store, "_db_for_partition") else store.items()
        for key, value in list(stored):
            if key not in dirty and key not in last:
                yield key, value
        for key, (_, value) in [*dirty.items(), *last.items()]:
            if value is not None:
                yield key, value

    # --- changing --------------------------------------------------------------------------------
    def set(self, key: str, partition: int, value: Any, *, last: bool = False) -> None:
        """Change `key` (of table partition `partition`) at the next flush; None deletes it.
        `value` must not be changed afterwards (it is written as it is then)."""
        target = self._last if last else self._dirty
        target[key] = (partition, value)

    def delete(self, key: str, partition: int) -> None:
        self.set(key, partition, None)

    def discard(self) -> None:
        """Forget every pending change (their events are unacknowledged: read again)."""
        self._dirty, self._last = {}, {}

    async def flush(self) -> list[Any]:
        """Write every pending change into the store and hand it to the producer for the
        changelog (`table.write_changelog`); returns the delivery futures in the order sent
        (empty when nothing was pending)."""
        if not self._dirty and not self._last:
            return []
        pending = self._dirty
        for key, change in self._last.items():
            pending.pop(key, None)
            pending[key] = change  # after every other key
        self._dirty, self._last = {}, {}
        table = self.table
        store = table.data
        db_for = getattr(store, "_db_for_partition", None)
        for key, (partition, value) in pending.items():
            # The store first, for every key, then the changelog: a reader never sees a key
            # vanish between the two.
            if db_for is None:
                if value is None:
                    store.data.pop(key, None)
                    store._key_partition.pop(key, None)
                else:
                    store.data[key] = value
                    store._key_partition[key] = partition
            else:
                encoded = store._encode_key(key)
                db = db_for(partition)
                if value is None:
                    db.delete(encoded)
                    store._key_index.pop(encoded, None)
                else:
                    db.put(encoded, store._encode_value(value))
                    store._key_index[encoded] = partition
        write = table.write_changelog
        sent = [await write(partition, key, value) for key, (partition, value) in pending.items()]
        self.flushes += 1
        self.writes += len(pending)
        return sent
