"""`multiqa dev up` returns only once the broker can serve consumer groups: the raw
FindCoordinator probe it waits on, against the real broker and against nothing."""

from __future__ import annotations

import socket

from streams.devstack.kafka import group_coordinator_ok


def test_the_probe_sees_the_real_brokers_coordinator(kafka_bootstrap: str) -> None:
    host, port = kafka_bootstrap.rsplit(":", 1)
    assert group_coordinator_ok(int(port), host=host)


def test_the_probe_is_false_when_nothing_or_no_kafka_answers() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        assert not group_coordinator_ok(port)  # bound, not listening: refused
        sock.listen()
        assert not group_coordinator_ok(port, timeout=0.5)  # listens, never answers
