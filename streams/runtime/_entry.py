"""The aggregator table's entries: one draft version's aggregation state, stored as a JSON dict
(key "<draft_id>:<version>"), and the caches that spare re-decoding what entries hold.

Results and the decision are kept as base64 of their Avro bytes (the changelog stores JSON). The
settings in force when the draft arrived are named by their version (`Settings.version`, a hash
of their values): the values themselves are stored once per version and table partition, under
`settings_key(version, partition)`, next to the entries that name them (they were 2.4 KB of
every entry, repeated in every changelog write). Entries written before that hold the values
themselves (`Entry.settings`) and are still read.
"""

from __future__ import annotations

import base64
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.settings import Settings
from schemas import QADecision, ReviewerResult, decode, encode

TABLE_NAME = "drafts"
SETTINGS_PREFIX = "__settings__:"
# Table keys that are not entries: input offsets (streams.runtime._offsets) and settings.
_META_PREFIXES = ("__offsets__:", SETTINGS_PREFIX)


def table_key(draft_id: str, version: int) -> str:
    return f"{draft_id}:{version}"


def settings_key(version: str, partition: int) -> str:
    """The table key of the settings values of `version` on table `partition` (stored as
    {"settings": mapping}). One per partition: the memory store holds every partition's keys in
    one dict, and a partition's keys must go (and come back) with it."""
    return f"{SETTINGS_PREFIX}{partition}:{version}"


def is_meta_key(key: str) -> bool:
    """True for the table's keys that are not draft entries."""
    return key.startswith(_META_PREFIXES)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"))


class _DecodedRecords:
    """Records stored in entries (b64 Avro text) by that text: an entry's results are read on
    every later event of the entry (is it settled yet?), and decoding them each time was a good
    part of the aggregator's CPU. Keyed by the stored text itself, so an entry rewritten by
    another worker or restored from the changelog can never be served another record."""

    def __init__(self, capacity: int = 8192) -> None:
        self._capacity = capacity
        self._by_text: OrderedDict[str, Any] = OrderedDict()

    def remember(self, text: str, record: Any) -> None:
        """`record` is what `text` decodes to (it was just encoded to it)."""
        by_text = self._by_text
        if len(by_text) >= self._capacity:
            # The oldest first: in a burst the entries still open are the recent ones (clearing
            # everything had every open draft's results decoded again at its decision).
            by_text.popitem(last=False)
        by_text[text] = record

    def get(self, text: str, record_type: type[Any]) -> Any:
        record = self._by_text.get(text)
        if type(record) is not record_type:
            record = decode(_unb64(text), record_type)
            self.remember(text, record)
        return record

    def clear(self) -> None:
        self._by_text.clear()


class _SettingsByVersion:
    """`Settings` read back from entries' stored settings, reused while the stored values are
    the same (compared in full: the version string alone is only a hint)."""

    def __init__(self, capacity: int = 64) -> None:
        self._capacity = capacity
        self._by_version: dict[str, tuple[dict[str, Any], Settings]] = {}

    def get(self, version: str, mapping: dict[str, Any]) -> Settings:
        hit = self._by_version.get(version)
        if hit is not None and hit[0] == mapping:
            return hit[1]
        settings = Settings.from_mapping(mapping)
        if len(self._by_version) >= self._capacity:
            self._by_version.clear()
        self._by_version[version] = (dict(mapping), settings)
        return settings

    def clear(self) -> None:
        self._by_version.clear()


_DECODED = _DecodedRecords()
_SETTINGS = _SettingsByVersion()


def _stored_copy(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with its containers copied: the memory store hands out the stored dict itself, and
    a change must not be visible before `_store` writes it (and sends it to the changelog). The
    containers hold only strings and numbers, so one level of copying is a deep copy."""
    copied = dict(data)
    for name in _CONTAINERS:
        value = copied.get(name)
        if value is not None:
            copied[name] = value.copy()
    return copied


@dataclass
class Entry:
    """One draft version's aggregation state (stored as a JSON dict in the table)."""

    key: str
    partition: int
    created_at: float
    draft: dict[str, Any] | None = None  # draft_id, version, task_id, title: what decisions need
    traceparent: str | None = None  # the submission span's
    arrived_at: float | None = None
    deadline: float | None = None
    expected: list[str] = field(default_factory=list)
    settings: dict[str, Any] | None = None  # entries written before settings_key: the values
    settings_version: str = ""
    results: dict[str, str] = field(default_factory=dict)  # reviewer -> b64 Avro, first one counts
    result_spans: dict[str, str] = field(default_factory=dict)  # reviewer -> traceparent
    late: dict[str, str] = field(default_factory=dict)  # results that came after the decision
    decision: str | None = None  # b64 Avro QADecision, stored before it is published
    decided_by: str | None = None  # "complete" | "settled" | "timeout"
    decided_at: float | None = None
    published: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        """The entry stored as `data` (which it does not share any container with)."""
        return cls(**_stored_copy(data))

    def to_json(self) -> dict[str, Any]:
        """The entry as a JSON dict sharing no container with the entry (not dataclasses.asdict,
        which copies recursively and was the aggregator's largest single cost)."""
        return _stored_copy(self.__dict__)

    def pending(self) -> list[str]:
        return [name for name in self.expected if name not in self.results]

    def add_result(
        self, result: ReviewerResult, *, late: bool = False, encoded: bytes | None = None
    ) -> None:
        """Record `result`; `encoded`: the bytes it was decoded from, stored as they are
        (encoding it again would give the same record, at a cost)."""
        text = _b64(encode(result) if encoded is None else encoded)
        _DECODED.remember(text, result)
        (self.late if late else self.results)[result.reviewer] = text

    def counted_results(self) -> list[ReviewerResult]:
        """The first result of each expected reviewer."""
        return [
            _DECODED.get(self.results[name], ReviewerResult)
            for name in self.expected
            if name in self.results
        ]

    def effective_settings(self, stored: dict[str, Any] | None = None) -> Settings:
        """The settings the entry was opened under: its own values (older entries), else
        `stored`, the values stored under `settings_key(self.settings_version, partition)`."""
        values = self.settings if self.settings is not None else stored
        if values is None:
            raise KeyError(f"{self.key}: no settings stored for version {self.settings_version}")
        return _SETTINGS.get(self.settings_version, values)

    def set_decision(self, decision: QADecision) -> None:
        self.decision = _b64(encode(decision))
        _DECODED.remember(self.decision, decision)

    def decision_bytes(self) -> bytes | None:
        """The stored decision's wire bytes (what the codec encoded when it was decided)."""
        return None if self.decision is None else _unb64(self.decision)

    def decision_record(self) -> QADecision | None:
        if self.decision is None:
            return None
        record: QADecision = _DECODED.get(self.decision, QADecision)
        return record


# Entry fields holding a dict or a list (what `_stored_copy` copies).
_CONTAINERS = ("draft", "expected", "settings", "results", "result_spans", "late")


# --- reading stored entries without loading them ----------------------------------------------
# The timer scans every entry each tick, the worker's status counts the undecided ones and
# `multiqa status` describes one from the aggregator's web view: they read the stored dict itself
# (Entry.from_json copies it), through these, so the stored format is read in this module only.


def stored_partition(data: Mapping[str, Any]) -> int:
    """The table partition of the entry stored as `data`."""
    return int(data["partition"])


def is_undecided(data: Mapping[str, Any]) -> bool:
    return data.get("decision") is None


def due_at(data: Mapping[str, Any], *, retention: float, publish_grace: float) -> float:
    """When the aggregator's timer must nudge the entry stored as `data`: at its deadline (none
    yet: `retention` after it was opened, a draft whose reviews never came), `publish_grace`
    after its decision while that is unpublished, else `retention` after the decision (then it
    is forgotten)."""
    if data.get("decision") is None:
        deadline = data.get("deadline")
        return float(deadline) if deadline is not None else float(data["created_at"]) + retention
    if not data.get("published"):
        return float(data["decided_at"]) + publish_grace
    return float(data["decided_at"]) + retention


@dataclass(frozen=True)
class EntryStatus:
    """What an operator is told about one stored entry (`multiqa status`)."""

    expected: list[str]
    answered: list[str]
    decided_by: str | None  # None: undecided
    published: bool
    late: list[str]
    deadline: float | None

    @property
    def waiting(self) -> list[str]:
        return [name for name in self.expected if name not in self.answered]


def entry_status(data: Mapping[str, Any]) -> EntryStatus:
    """The entry stored as `data` (e.g. as the aggregator's web view serves it), tolerating
    fields it lacks: a worker of another version may serve it."""
    expected = [str(name) for name in data.get("expected") or []]
    results = data.get("results") or {}
    decided = bool(data.get("decision"))
    return EntryStatus(
        expected=expected,
        answered=[name for name in expected if name in results],
        decided_by=(str(data.get("decided_by") or "?")) if decided else None,
        published=bool(data.get("published")),
        late=sorted(data.get("late") or {}),
        deadline=None if data.get("deadline") is None else float(data["deadline"]),
    )
