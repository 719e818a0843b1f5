"""The fake-HTTP server kit: a real threaded HTTP/1.1 (or HTTPS) server on 127.0.0.x whose
answers a test scripts, so the real client code (httpx, the URL guard, the SDKs) runs over real
sockets.

A server is a `FakeServer` subclass that implements `respond(seen) -> Reply`; `StaticSite` serves
fixed replies by path. It runs in its own threads, outside the test's event loop, so a reply that
is slow or never comes behaves exactly like a remote server that is slow or hung: the client's
own timeouts must end it. `close()` (or leaving the `with`) releases every held reply.
"""

from __future__ import annotations

import http.server
import json
import ssl
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

# What a `Reply(endless=True)` declares as its length: more than any client may read.
ENDLESS_LENGTH = 10**12


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    delay: float = 0.0  # seconds before answering (no answer if the server closes first)
    hang: bool = False  # never answer (until the server shuts down)
    chunked: bool = False  # no Content-Length; the body streams in chunks
    until_close: bool = False  # no Content-Length; the body ends when the connection closes
    endless: bool = False  # declares ENDLESS_LENGTH and repeats the body until the client leaves
    headers: Mapping[str, str] = field(default_factory=dict)  # more headers (Location, ...)

    @classmethod
    def json(cls, payload: Any, status: int = 200, **kwargs: Any) -> Reply:
        return cls(status=status, body=json.dumps(payload).encode(), **kwargs)


@dataclass
class Seen:
    method: str
    path: str  # without the query
    headers: dict[str, str]  # names lower-cased
    body: bytes
    query: dict[str, str] = field(default_factory=dict)  # the first value of each name

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    @property
    def host_header(self) -> str:
        return self.headers.get("host", "")


Responder = Callable[[Seen], Reply]


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-reply (a size cap, a timeout: what many tests are about)
        # breaks the pipe when the buffered reply is flushed; that is no server error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class FakeServer:
    """Subclasses implement `respond(seen) -> Reply` (called in the server's handler thread).

    `host` may be any 127.0.0.x (Linux routes all of 127/8 to loopback: distinct "hosts" an
    allowlist can tell apart); `port` 0 picks a free one; `tls` serves HTTPS with that context.
    """

    host: str = "127.0.0.1"
    port_wanted: int = 0
    tls: ssl.SSLContext | None = None
    seen: list[Seen] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closing: threading.Event = field(default_factory=threading.Event)
    _server: _Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def scheme(self) -> str:
        return "https" if self.tls is not None else "http"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"

    def url_for(self, path: str, *, host: str | None = None) -> str:
        """This server's URL for `path`, optionally under another name for it (a test DNS)."""
        return f"{self.scheme}://{host or self.host}:{self.port}{path}"

    @property
    def closing(self) -> threading.Event:
        """Set when the server closes: a responder that waits should wait on this."""
        return self._closing

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
                target = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(target.query).items()}
                seen = Seen(self.command, target.path, headers, body, query)
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
                    self._send(reply, with_body=self.command != "HEAD")
                except OSError:
                    self.close_connection = True  # the client gave up first (size cap, timeout)

            def _send(self, reply: Reply, *, with_body: bool) -> None:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    if with_body:
                        for start in range(0, len(reply.body), 65536):
                            chunk = reply.body[start : start + 65536]
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        self.wfile.write(b"0\r\n\r\n")
                elif reply.until_close:
                    self.send_header("Connection", "close")
                    self.end_headers()
                    if with_body:
                        self.wfile.write(reply.body)
                    self.close_connection = True
                elif reply.endless:
                    self.send_header("Content-Length", str(ENDLESS_LENGTH))
                    self.end_headers()
                    while with_body and not owner._closing.is_set():
                        self.wfile.write(reply.body or b"x" * 65536)
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    if with_body:
                        self.wfile.write(reply.body)

            do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _handle

        server = _Server((self.host, self.port_wanted), Handler)
        if self.tls is not None:
            server.socket = self.tls.wrap_socket(server.socket, server_side=True)
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
