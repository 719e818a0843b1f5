"""The readers of the aggregator's stored entries (streams.runtime._entry) agree with Entry, the
format's writer: the timer's due time, the status counts and `multiqa status`'s description."""

from __future__ import annotations

from streams.cli.ops import _describe_entry
from streams.runtime._entry import Entry, due_at, entry_status, is_undecided, stored_partition

RETENTION, GRACE = 600.0, 2.0


def opened(**changes: object) -> dict[str, object]:
    entry = Entry(key="d:1", partition=3, created_at=100.0, expected=["validator", "critic"])
    for name, value in changes.items():
        setattr(entry, name, value)
    return entry.to_json()


def test_due_time_follows_the_entry_through_its_life():
    waiting_for_draft = opened()
    assert due_at(waiting_for_draft, retention=RETENTION, publish_grace=GRACE) == 700.0
    with_deadline = opened(deadline=160.0)
    assert due_at(with_deadline, retention=RETENTION, publish_grace=GRACE) == 160.0
    unpublished = opened(deadline=160.0, decision="AAAA", decided_at=150.0, decided_by="complete")
    assert due_at(unpublished, retention=RETENTION, publish_grace=GRACE) == 152.0
    published = opened(decision="AAAA", decided_at=150.0, decided_by="complete", published=True)
    assert due_at(published, retention=RETENTION, publish_grace=GRACE) == 750.0
    assert is_undecided(with_deadline) and not is_undecided(published)
    assert stored_partition(published) == 3


def test_status_of_a_stored_entry_and_its_description():
    entry = Entry(key="d:1", partition=0, created_at=1.0, expected=["validator", "critic"])
    entry.results["validator"] = "AAAA"
    entry.deadline = 10**12
    status = entry_status(entry.to_json())
    assert (status.expected, status.answered, status.waiting) == (
        ["validator", "critic"],
        ["validator"],
        ["critic"],
    )
    assert status.decided_by is None and status.deadline == 10**12
    text = _describe_entry(1, entry.to_json())
    assert text.startswith("aggregator v1: expects validator, critic; answered validator;")
    assert "waiting for critic; deadline in" in text
    entry.decision, entry.decided_by, entry.late = "AAAA", "timeout", {"critic": "AAAA"}
    assert _describe_entry(1, entry.to_json()) == (
        "aggregator v1: expects validator, critic; decided (timeout), not yet published; "
        "late: critic"
    )


def test_an_entry_from_another_version_is_described_not_refused():
    assert _describe_entry(2, {"expected": ["validator"]}) == (
        "aggregator v2: expects validator; answered none; waiting for validator"
    )
