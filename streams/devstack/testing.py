"""Where the test suite finds a real Kafka broker and a real PostgreSQL server.

Order, per service: the environment (KAFKA_BOOTSTRAP_SERVERS / DATABASE_URL) when set; else
testcontainers when a Docker engine answers (checked quickly: no socket, no wait); else the local
launchers of this package (`multiqa dev up`), which reuse an already running stack.
tests/conftest.py turns these into session fixtures.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streams.devstack import kafka as kafka_mod
from streams.devstack import postgres as pg_mod
from streams.devstack._common import DEFAULT_KAFKA_VERSION, DevStackError

KAFKA_IMAGE_ENV = "MULTIQA_TC_KAFKA_IMAGE"
POSTGRES_IMAGE_ENV = "MULTIQA_TC_POSTGRES_IMAGE"


def docker_engine_answers(timeout: float = 2.0) -> bool:
    """True when a Docker engine answers a ping. Without DOCKER_HOST and without
    /var/run/docker.sock this returns at once; MULTIQA_NO_DOCKER=1 skips the check."""
    if os.environ.get("MULTIQA_NO_DOCKER", "").strip() not in ("", "0"):
        return False
    if not os.environ.get("DOCKER_HOST") and not Path("/var/run/docker.sock").exists():
        return False
    try:
        import docker

        client = docker.from_env(timeout=int(max(1, timeout)))
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def kafka_bootstrap() -> Iterator[str]:
    """Yields a bootstrap address of a real broker (see the module docstring for the order)."""
    from_env = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip()
    if from_env:
        yield from_env
        return
    if docker_engine_answers():
        with _kafka_container() as bootstrap:
            yield bootstrap
        return
    from streams.devstack.stack import ensure_kafka

    yield ensure_kafka()


@contextlib.contextmanager
def postgres_dsn() -> Iterator[str]:
    """Yields a DSN of a real PostgreSQL database whose role may CREATE DATABASE."""
    from_env = os.environ.get("DATABASE_URL", "").strip()
    if from_env:
        yield from_env
        return
    if docker_engine_answers():
        with _postgres_container() as dsn:
            yield dsn
        return
    from streams.devstack.stack import ensure_postgres

    yield ensure_postgres()


@contextlib.contextmanager
def _kafka_container() -> Iterator[str]:
    """apache/kafka (the image docker-compose uses) in KRaft mode, one node, advertised on a host
    port chosen up front so that clients outside the container can reach it."""
    from testcontainers.core.container import DockerContainer

    image = os.environ.get(KAFKA_IMAGE_ENV, "").strip() or f"apache/kafka:{DEFAULT_KAFKA_VERSION}"
    port = _free_port()
    container: Any = DockerContainer(image)
    container.with_bind_ports(9092, port)
    for key, value in kraft_env(f"PLAINTEXT://localhost:{port}").items():
        container.with_env(key, value)
    container.start()
    try:
        host = container.get_container_host_ip()
        deadline = time.monotonic() + 120
        while not kafka_mod.metadata_ok(port, host=host):
            if time.monotonic() > deadline:
                raise DevStackError(
                    f"the {image} container did not answer on {host}:{port} "
                    "within 120s; check `docker logs` of the container"
                )
            time.sleep(0.5)
        yield f"{host}:{port}"
    finally:
        container.stop()


def kraft_env(advertised: str) -> dict[str, str]:
    """The apache/kafka image's documented KAFKA_* settings for one broker+controller node."""
    return {
        "KAFKA_NODE_ID": "1",
        "KAFKA_PROCESS_ROLES": "broker,controller",
        "KAFKA_LISTENERS": "PLAINTEXT://:9092,CONTROLLER://:9093",
        "KAFKA_ADVERTISED_LISTENERS": advertised,
        "KAFKA_CONTROLLER_LISTENER_NAMES": "CONTROLLER",
        "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "KAFKA_CONTROLLER_QUORUM_VOTERS": "1@localhost:9093",
        "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR": "1",
        "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
        "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR": "1",
        "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS": "0",
        "KAFKA_NUM_PARTITIONS": "1",
        "KAFKA_AUTO_CREATE_TOPICS_ENABLE": "false",  # as the local stack: no topic by accident
    }


@contextlib.contextmanager
def _postgres_container() -> Iterator[str]:
    from testcontainers.postgres import PostgresContainer

    image = os.environ.get(POSTGRES_IMAGE_ENV, "").strip() or "postgres:15"
    container: Any = PostgresContainer(
        image, username=pg_mod.ROLE, password=pg_mod.PASSWORD, dbname=pg_mod.DB_NAME, driver=None
    )
    container.start()
    try:
        yield str(container.get_connection_url())
    finally:
        container.stop()
