"""When each table entry is due for the aggregator's timer, without walking the whole table.

The timer (streams.runtime.aggregator.Aggregator.scan) nudges every entry whose deadline passed,
whose decision is stored but not published, or whose retention ended. Walking every entry each
tick cost the worker time in proportion to the table, which keeps decided entries for
`decided_retention_seconds` (a week by default): ~1% of the worker's CPU in a 1,500-draft
bench_stream burst, and growing with every draft kept.

`DueTimes` keeps each entry's due time (`streams.runtime._entry.due_at`, the one definition) in
a heap, updated by the aggregator whenever it stores or forgets an entry, and `take_due` pops only
what is due. Entries the aggregator did not write itself (read back from the changelog after a
restart or a rebalance) and changes it dropped (`TableCache.discard` after a crash of its agent)
are not in the heap: `rebuild` walks the table once, which the aggregator does whenever its
partitions, its consumer generation or its cache changed under it, and every `REBUILD_SECONDS`
anyway (a bound on any update this bookkeeping might miss).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

# A full walk at least this often, whatever else happens.
REBUILD_SECONDS = 60.0


class DueTimes:
    """Entry keys by due time (a heap with lazy deletion: a key's latest time is in `_due`)."""

    def __init__(self) -> None:
        self._due: dict[str, float] = {}
        self._partition: dict[str, int] = {}
        self._heap: list[tuple[float, str]] = []
        self.rebuilt_at: float | None = None  # None: never walked, or invalidated
        self.rebuilds = 0

    def __len__(self) -> int:
        return len(self._due)

    def set(self, key: str, due: float, partition: int) -> None:
        """`key` (an entry of table `partition`) is due at `due`."""
        self._partition[key] = partition
        if self._due.get(key) == due:
            return
        self._due[key] = due
        heapq.heappush(self._heap, (due, key))
        if len(self._heap) > 4 * len(self._due) + 1024:
            self._compact()

    def discard(self, key: str) -> None:
        self._due.pop(key, None)
        self._partition.pop(key, None)

    def invalidate(self) -> None:
        """The table changed in ways not reported here: the next scan walks it."""
        self.rebuilt_at = None

    def needs_rebuild(self, now: float) -> bool:
        return self.rebuilt_at is None or now - self.rebuilt_at >= REBUILD_SECONDS

    def rebuild(self, entries: Iterable[tuple[str, float, int]], now: float) -> None:
        """Replace everything with `entries` ((key, due time, partition) of every entry)."""
        self._due, self._partition = {}, {}
        for key, due, partition in entries:
            self._due[key] = due
            self._partition[key] = partition
        self._heap = [(due, key) for key, due in self._due.items()]
        heapq.heapify(self._heap)
        self.rebuilt_at = now
        self.rebuilds += 1

    def take_due(self, now: float) -> list[tuple[str, int]]:
        """(key, partition) of the entries due at `now`, each once, removed (the caller sets
        them again to be looked at later)."""
        taken = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            due, key = heapq.heappop(heap)
            if self._due.get(key) == due:  # else: a stale time, superseded or discarded
                del self._due[key]
                taken.append((key, self._partition.pop(key)))
        return taken

    def _compact(self) -> None:
        self._heap = [(due, key) for key, due in self._due.items()]
        heapq.heapify(self._heap)
