"""A small threaded HTTP/1.1 server on 127.0.0.1 whose answers tests script.

It runs in its own threads, outside the test's event loop, so a reply that is slow or never comes
behaves exactly like a remote server that is slow or hung: the client's own timeouts must end it.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    delay: float = 0.0  # seconds before answering
    hang: bool = False  # never answer (until the server shuts down)
    chunked: bool = False  # no Content-Length; the body streams in chunks

    @classmethod
    def json(cls, payload: Any, status: int = 200, **kwargs: Any) -> Reply:
        return cls(status=status, body=json.dumps(payload).encode(), **kwargs)


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"null")


Responder = Callable[[Seen], Reply]


@dataclass
class FakeServer:
    """Subclasses implement `respond(seen) -> Reply`."""

    host: str = "127.0.0.1"
    seen: list[Seen] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closing: threading.Event = field(default_factory=threading.Event)
    _server: http.server.ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def respond(self, seen: Seen) -> Reply:
        raise NotImplementedError

    def requests_to(self, path: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.path == path]

    def start(self) -> Self:
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body leave in one write: separate small writes on a kept-alive
            # connection meet Nagle + delayed ACK and add 40 ms to every reply.
            wbufsize = 1 << 16

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                seen = Seen(self.command, self.path.split("?", 1)[0], headers, body)
                with owner._lock:
                    owner.seen.append(seen)
                reply = owner.respond(seen)
                if reply.hang:
                    owner._closing.wait(60)
                    self.close_connection = True
                    return
                if reply.delay and owner._closing.wait(reply.delay):
                    return
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    if reply.chunked:
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        for start in range(0, len(reply.body), 65536):
                            chunk = reply.body[start : start + 65536]
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        self.wfile.write(b"0\r\n\r\n")
                    else:
                        self.send_header("Content-Length", str(len(reply.body)))
                        self.end_headers()
                        self.wfile.write(reply.body)
                except OSError:
                    self.close_connection = True  # the client gave up first (size cap, timeout)

            do_GET = do_POST = do_HEAD = _handle

        server = http.server.ThreadingHTTPServer((self.host, 0), Handler)
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class StaticSite(FakeServer):
    """Serves fixed replies by path (pages, images); anything else is a 404."""

    pages: dict[str, Reply] = field(default_factory=dict)

    def respond(self, seen: Seen) -> Reply:
        return self.pages.get(seen.path, Reply(404, b"not found", "text/plain"))
