"""Ports on 127.0.0.1 that nothing listens on, for servers a test starts and for refusals."""

from __future__ import annotations

import contextlib
import socket

HOST = "127.0.0.1"


def free_ports(count: int, host: str = HOST) -> list[int]:
    """`count` distinct ports free right now: all are held open until every one is chosen, so
    the kernel cannot hand the same port out twice. Free now, not reserved: a test binds them
    at once (another process could take one in between; ephemeral ports make that rare)."""
    with contextlib.ExitStack() as held:
        ports = []
        for _ in range(count):
            sock = held.enter_context(socket.socket())
            sock.bind((host, 0))
            ports.append(int(sock.getsockname()[1]))
    return ports


def free_port(host: str = HOST) -> int:
    """One port free right now (see `free_ports`)."""
    return free_ports(1, host)[0]


def closed_port_url() -> str:
    """An http://127.0.0.1:PORT URL where nothing listens (connection refused)."""
    return f"http://{HOST}:{free_port()}"
