"""A local stand-in for DuckDuckGo, reached by the real `ddgs` library through its proxy setting.

ddgs posts searches to https://html.duckduckgo.com/html/ with its own HTTP client (primp). Given
`proxy=`, primp opens a CONNECT tunnel through the proxy; this proxy answers the tunnel itself:
TLS with a certificate for html.duckduckgo.com signed by the test CA (which the client is told to
trust through ddgs's `verify=` CA path), then an HTML page shaped like DuckDuckGo's html endpoint.
So the real ddgs request building, HTTP client, TLS and result parsing all run.
"""

from __future__ import annotations

import html
import socketserver
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qs

import pytest

DDG_HOST = "html.duckduckgo.com"


@dataclass
class FakeDuckDuckGo:
    proxy_url: str
    ca_path: str
    # lowercase phrase -> results (title, url, snippet) for any query containing it
    pages: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    mode: str = "ok"  # ok | ratelimit | refuse
    tunnels: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def page_for(self, query: str) -> str:
        rows = []
        for phrase, results in self.pages.items():
            if phrase in query.lower():
                rows.extend(results)
        return _serp(query, rows)


def _serp(query: str, rows: list[tuple[str, str, str]]) -> str:
    """DuckDuckGo's html endpoint, trimmed to its structure (what ddgs's XPaths read)."""
    items = []
    for title, url, snippet in rows:
        u = html.escape(url, quote=True)
        items.append(
            f"""<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="{u}">{html.escape(title)}</a>
    </h2>
    <div class="result__extras"><div class="result__extras__url">
      <a class="result__url" href="{u}">{u}</a></div></div>
    <a class="result__snippet" href="{u}">{snippet}</a>
    <div class="clear"></div>
  </div>
</div>"""
        )
    body = "\n".join(items) or '<div class="no-results">No results.</div>'
    return f"""<!DOCTYPE html>
<html><head><title>{html.escape(query)} at DuckDuckGo</title></head>
<body><div id="links" class="results">{body}</div></body></html>"""


@pytest.fixture
def fake_ddg(test_ca) -> Iterator[FakeDuckDuckGo]:
    tls = test_ca.server_context(DDG_HOST)
    state: dict[str, FakeDuckDuckGo] = {}

    class Tunnel(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            fake = state["fake"]
            request_line = self.rfile.readline().decode("latin-1").strip()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            fake.tunnels.append(request_line)
            if fake.mode == "refuse" or not request_line.startswith(f"CONNECT {DDG_HOST}:443"):
                self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with tls.wrap_socket(self.connection, server_side=True) as conn:
                reader = conn.makefile("rb")
                reader.readline()  # POST /html/ HTTP/1.1
                length = 0
                while (line := reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                form = parse_qs(reader.read(length).decode())
                query = form.get("q", [""])[0]
                fake.queries.append(query)
                if fake.mode == "ratelimit":
                    status, page = b"202 Accepted", "<html><body>anomaly-modal</body></html>"
                else:
                    status, page = b"200 OK", fake.page_for(query)
                data = page.encode()
                conn.sendall(
                    b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=UTF-8\r\n"
                    b"Content-Length: "
                    + str(len(data)).encode()
                    + b"\r\nConnection: close\r\n\r\n"
                    + data
                )

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Tunnel)
    server.daemon_threads = True
    server.block_on_close = False
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    fake = FakeDuckDuckGo(f"http://127.0.0.1:{server.server_address[1]}", test_ca.ca_path)
    state["fake"] = fake
    yield fake
    server.shutdown()
    server.server_close()
