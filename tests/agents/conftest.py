"""Fixtures shared by the reviewer tests under tests/agents/.

Local web servers (issue 6): the network reviewers and the URL guard are tested against real HTTP
and HTTPS servers on 127.0.0.x, since the web cannot be reached from here. Linux routes all of
127.0.0.0/8 to loopback, so tests bind 127.0.0.2, 127.0.0.3, ... to have distinct "hosts" that an
allowlist can tell apart.
"""

from __future__ import annotations

import contextlib
import datetime
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# The LLM reviewers' fake servers and settings, as fixtures for every test under tests/agents/.
from tests.agents.fakes import fake_anthropic, fake_ollama, llm_deps, llm_settings  # noqa: F401
from tests.helpers.http import FakeServer, Reply, Seen


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
class LocalWeb(FakeServer):
    """Routes (on the shared kit, tests.helpers.http): /ok 200, /missing 404, /error 500,
    /no-head (HEAD 405, GET 200), /head-501, /moved (301 to /ok), /redirect?to=URL (302 to URL),
    /loop (302 to itself), /slow (answers after the test is over), /huge (endless body; HEAD 405
    so the GET path is exercised), /bytes?n=N (N bytes, Content-Length), /stream?n=N (N bytes, no
    Content-Length), /hold (200 after a short pause, counting how many requests are in flight at
    once)."""

    in_flight: int = 0
    max_in_flight: int = 0

    def respond(self, seen: Seen) -> Reply:
        head = seen.method == "HEAD"
        text = "text/plain"
        match seen.path:
            case "/ok":
                return Reply(200, b"hello", text)
            case "/missing":
                return Reply(404, b"not here", text)
            case "/error":
                return Reply(500, b"boom", text)
            case "/no-head":
                return Reply(405 if head else 200, b"get only", text)
            case "/head-501":
                return Reply(501 if head else 200, b"get only", text)
            case "/moved":
                return Reply(301, content_type=text, headers={"Location": "/ok"})
            case "/redirect":
                return Reply(302, content_type=text, headers={"Location": seen.query["to"]})
            case "/loop":
                return Reply(302, content_type=text, headers={"Location": "/loop"})
            case "/slow":
                return Reply(200, b"late", text, delay=30)
            case "/huge":
                return Reply(405, content_type=text) if head else Reply(200, endless=True)
            case "/bytes":
                return Reply(200, b"b" * int(seen.query["n"]), text)
            case "/stream":
                return Reply(200, b"s" * int(seen.query["n"]), text, until_close=True)
            case "/hold":
                with self._lock:
                    self.in_flight += 1
                    self.max_in_flight = max(self.max_in_flight, self.in_flight)
                self.closing.wait(0.05)
                with self._lock:
                    self.in_flight -= 1
                return Reply(200, b"held", text)
        return Reply(404, b"no route", text)


WebFactory = Callable[..., LocalWeb]


@pytest.fixture
def local_web() -> Iterator[WebFactory]:
    """`local_web(host="127.0.0.1", tls=None, port=0)` starts a server (HTTPS when given an
    ssl.SSLContext) and returns its LocalWeb; all are stopped after the test."""
    with contextlib.ExitStack() as servers:

        def start(
            host: str = "127.0.0.1", tls: ssl.SSLContext | None = None, port: int = 0
        ) -> LocalWeb:
            return servers.enter_context(LocalWeb(host, port, tls))

        yield start
