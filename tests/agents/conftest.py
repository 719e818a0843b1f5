"""Fixtures shared by the reviewer tests under tests/agents/.

Local web servers (issue 6): the network reviewers and the URL guard are tested against real HTTP
and HTTPS servers on 127.0.0.x, since the web cannot be reached from here. Linux routes all of
127.0.0.0/8 to loopback, so tests bind 127.0.0.2, 127.0.0.3, ... to have distinct "hosts" that an
allowlist can tell apart.
"""

from __future__ import annotations

import datetime
import http.server
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# The LLM reviewers' fake servers and settings, as fixtures for every test under tests/agents/.
from tests.agents.fakes import fake_anthropic, fake_ollama, llm_deps, llm_settings  # noqa: F401


# --- a test certificate authority -------------------------------------------------------------
@dataclass
class TestCA:
    """A throwaway CA: `ca_path` is what clients trust; `issue()` makes server certificates."""

    directory: Path
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate

    @property
    def ca_path(self) -> str:
        return str(self.directory / "ca.pem")

    def issue(self, *hostnames: str) -> tuple[str, str]:
        now = datetime.datetime.now(datetime.UTC)
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostnames[0])]))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in hostnames]), False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), False
            )
            .sign(self.key, hashes.SHA256())
        )
        stem = self.directory / hostnames[0].replace("*", "_")
        cert_path, key_path = stem.with_suffix(".pem"), stem.with_suffix(".key")
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        return str(cert_path), str(key_path)

    def server_context(self, *hostnames: str) -> ssl.SSLContext:
        cert_path, key_path = self.issue(*hostnames)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert_path, key_path)
        context.set_alpn_protocols(["http/1.1"])
        return context


@pytest.fixture(scope="session")
def test_ca(tmp_path_factory: pytest.TempPathFactory) -> TestCA:
    directory = tmp_path_factory.mktemp("ca")
    now = datetime.datetime.now(datetime.UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "multiqa test CA")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    (directory / "ca.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return TestCA(directory, key, cert)


# --- a local web server ------------------------------------------------------------------------
@dataclass
class Seen:
    method: str
    path: str
    host_header: str


@dataclass
class LocalWeb:
    """A real HTTP(S) server on `host`; `seen` records every request it answered."""

    host: str
    port: int
    scheme: str
    seen: list[Seen] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str, *, host: str | None = None) -> str:
        return f"{self.scheme}://{host or self.host}:{self.port}{path}"


_STOP = threading.Event()


class _Handler(http.server.BaseHTTPRequestHandler):
    """Routes: /ok 200, /missing 404, /error 500, /no-head (HEAD 405, GET 200), /head-501,
    /moved (301 to /ok), /redirect?to=URL (302 to URL), /loop (302 to itself), /slow (answers
    after the test is over), /huge (endless body; HEAD 405 so the GET path is exercised),
    /bytes?n=N (N bytes, Content-Length), /stream?n=N (N bytes, no Content-Length), /hold (200
    after a short pause, counting how many requests are in flight at once)."""

    protocol_version = "HTTP/1.1"
    web: LocalWeb

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        self._route(head=True)

    def do_GET(self) -> None:
        self._route(head=False)

    def _route(self, *, head: bool) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.web.seen.append(Seen(self.command, self.path, self.headers.get("Host", "")))
        path = parts.path
        if path == "/ok":
            self._reply(200, b"hello", head=head)
        elif path == "/missing":
            self._reply(404, b"not here", head=head)
        elif path == "/error":
            self._reply(500, b"boom", head=head)
        elif path == "/no-head":
            self._reply(405 if head else 200, b"get only", head=head)
        elif path == "/head-501":
            self._reply(501 if head else 200, b"get only", head=head)
        elif path == "/moved":
            self._reply(301, b"", head=head, location="/ok")
        elif path == "/redirect":
            self._reply(302, b"", head=head, location=query["to"])
        elif path == "/loop":
            self._reply(302, b"", head=head, location="/loop")
        elif path == "/slow":
            deadline = time.monotonic() + 30
            while not _STOP.is_set() and time.monotonic() < deadline:
                time.sleep(0.02)
            self._reply(200, b"late", head=head)
        elif path == "/huge":
            if head:
                self._reply(405, b"", head=True)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(10**12))
            self.end_headers()
            try:
                while not _STOP.is_set():
                    self.wfile.write(b"x" * 65536)
            except OSError:
                pass  # the client hung up, which is the point
            self.close_connection = True
        elif path == "/hold":
            with self.web.lock:
                self.web.in_flight += 1
                self.web.max_in_flight = max(self.web.max_in_flight, self.web.in_flight)
            time.sleep(0.05)
            with self.web.lock:
                self.web.in_flight -= 1
            self._reply(200, b"held", head=head)
        elif path == "/bytes":
            self._reply(200, b"b" * int(query["n"]), head=head)
        elif path == "/stream":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            if not head:
                self.wfile.write(b"s" * int(query["n"]))
            self.close_connection = True
        else:
            self._reply(404, b"no route", head=head)

    def _reply(self, status: int, body: bytes, *, head: bool, location: str | None = None) -> None:
        self.send_response(status)
        if location is not None:
            self.send_header("Location", location)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)


WebFactory = Callable[..., LocalWeb]


@pytest.fixture
def local_web() -> Iterator[WebFactory]:
    """`local_web(host="127.0.0.1", tls=None, port=0)` starts a server (HTTPS when given an
    ssl.SSLContext) and returns its LocalWeb; all are stopped after the test."""
    servers: list[http.server.ThreadingHTTPServer] = []
    _STOP.clear()

    def start(
        host: str = "127.0.0.1", tls: ssl.SSLContext | None = None, port: int = 0
    ) -> LocalWeb:
        web = LocalWeb(host, port, "https" if tls else "http")
        handler = type("Handler", (_Handler,), {"web": web})
        server = http.server.ThreadingHTTPServer((host, port), handler)
        server.block_on_close = False
        if tls is not None:
            server.socket = tls.wrap_socket(server.socket, server_side=True)
        web.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        servers.append(server)
        return web

    yield start
    _STOP.set()
    for server in servers:
        server.shutdown()
        server.server_close()
