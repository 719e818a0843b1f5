"""The aggregator's table (streams.runtime.aggregator) and what it keeps besides draft entries: the
input offsets (as `InputOffsets` sees them, streams.runtime._offsets) and the settings each entry
was opened under, by version (streams.runtime._entry)."""

from __future__ import annotations

import json
from collections.abc import Iterator, MutableMapping
from typing import Any

import faust

from agents.settings import Settings
from streams.runtime._cache import TableCache
from streams.runtime._entry import Entry, settings_key
from streams.runtime.topics import send_encoded


class DurableTable(faust.Table[str, dict[str, Any]]):
    """The aggregator's table. Written through `streams.runtime._cache.TableCache` (never by
    assignment: each changed key once per flush, to the changelog partition of its table
    partition). Its changelog topic is named after the deployment (`changelog_name`), not the
    app id, which names the worker's role set: a worker started with other roles keeps the same
    table."""

    changelog_name: str = ""

    def _changelog_topic_name(self) -> str:
        return self.changelog_name or super()._changelog_topic_name()

    async def write_changelog(self, partition: int, key: str, value: Any) -> Any:
        """Hand one change to the producer for changelog `partition` (None: a deletion) and
        return its delivery future: what Faust's `send_changelog` publishes (the key and value as
        the table's JSON serializer writes them), without its per-message machinery. Delivered,
        a RocksDB store records the offset as Faust's own callback does (what recovery reads
        back from there)."""
        data = None if value is None else _compact_json(value)
        topic = self.changelog_topic
        future = await send_encoded(topic, _compact_json(key), data, [], partition=partition)
        if hasattr(self.data, "_db_for_partition"):
            future.add_done_callback(self._on_written)
        return future

    def _on_written(self, future: Any) -> None:
        if not future.cancelled() and future.exception() is None:
            metadata = future.result()
            self.data.set_persisted_offset(metadata.topic_partition, metadata.offset)


def _compact_json(value: Any) -> bytes:
    # ASCII (escapes for the rest), as Faust's stdlib JSON writes it: never an encoding error.
    return json.dumps(value, separators=(",", ":")).encode("ascii")


class OffsetsView(MutableMapping[str, Any]):
    """The table as InputOffsets sees it: its offset keys, written through the cache after every
    entry of their flush (the key's last field is its input partition, which is also its table
    partition: the inputs are co-partitioned with the table)."""

    def __init__(self, cache: TableCache) -> None:
        self._cache = cache

    @staticmethod
    def _partition(key: str) -> int:
        return int(key.rsplit(":", 1)[1])

    def __getitem__(self, key: str) -> Any:
        value = self._cache.get(key, self._partition(key))
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        self._cache.set(key, self._partition(key), value, last=True)

    def __delitem__(self, key: str) -> None:
        self._cache.delete(key, self._partition(key))

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._cache.items() if key.startswith("__offsets__:"))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class SettingsVersions:
    """The settings entries are opened under, stored once per version and table partition
    (settings_key) and read back once per version."""

    def __init__(self, cache: TableCache) -> None:
        self.cache = cache
        # The settings last in force and their version: reused for every draft while the
        # settings do not change.
        self._last: tuple[Settings, str] | None = None
        self._by_version: dict[str, Settings] = {}
        self._stored: set[tuple[int, str]] = set()  # (table partition, version)

    def store(self, settings: Settings, partition: int) -> str:
        """The version of `settings`, their values stored under settings_key on the table
        partition (once: flushed with, and before, the first entry naming them)."""
        last = self._last
        if last is None or last[0] != settings:
            last = self._last = (settings, settings.version())
            self._by_version[last[1]] = settings
        version = last[1]
        if (partition, version) not in self._stored:
            key = settings_key(version, partition)
            if self.cache.get(key, partition) is None:
                self.cache.set(key, partition, {"settings": settings.to_mapping()})
            self._stored.add((partition, version))
        return version

    def forget_unflushed(self) -> None:
        """The cache's pending changes were dropped (`TableCache.discard`): a settings key
        stored since the last flush may be among them, so each is checked again."""
        self._stored.clear()

    def of(self, entry: Entry) -> Settings:
        """The settings `entry` was opened under."""
        if entry.settings is not None:  # an entry written before settings_key
            return entry.effective_settings()
        settings = self._by_version.get(entry.settings_version)
        if settings is None:
            stored = self.cache.get(
                settings_key(entry.settings_version, entry.partition), entry.partition
            )
            settings = entry.effective_settings(None if stored is None else stored["settings"])
            self._by_version[entry.settings_version] = settings
        return settings
