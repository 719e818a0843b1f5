"""`multiqa dev up|down|status` on their own cache dirs and ports (never the shared stack):
idempotency, concurrent starts, stale pid files, and every failure mode ending in one error line
with nothing left running."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from streams.devstack import Settings
from streams.devstack import kafka as kafka_mod
from streams.devstack import postgres as pg_mod
from streams.devstack._common import port_is_free, process_start_time
from tests.helpers.ports import free_ports

# These start (and fail to start) real brokers and servers of their own.
pytestmark = [pytest.mark.kafka, pytest.mark.postgres]

_SERVICE_ENV = (
    "KAFKA_BOOTSTRAP_SERVERS",
    "DATABASE_URL",
    "JAVA_HOME",
    "MULTIQA_KAFKA_VERSION",
    "MULTIQA_PG_BINDIR",
    "MULTIQA_PG_OPTIONS",
)


class Stack:
    """A private cache dir + ports, and the CLI run against them."""

    def __init__(self, share_jars: bool = True) -> None:
        self.cache = Path(tempfile.mkdtemp(prefix="multiqa-devstack-test-", dir="/tmp"))
        self.cache.chmod(0o755)  # the postgres user must reach its data dir
        if share_jars:
            shared = kafka_mod.ensure_jars(Settings.from_env()).parent.parent  # <cache>/kafka-dist
            (self.cache / "kafka-dist").symlink_to(shared)
        kafka_port, controller_port, pg_port = free_ports(3)
        self.env = {k: v for k, v in os.environ.items() if k not in _SERVICE_ENV}
        self.env.update(
            MULTIQA_CACHE_DIR=str(self.cache),
            MULTIQA_KAFKA_PORT=str(kafka_port),
            MULTIQA_KAFKA_CONTROLLER_PORT=str(controller_port),
            MULTIQA_PG_PORT=str(pg_port),
        )
        self.kafka_port, self.pg_port = kafka_port, pg_port

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "streams.cli", "dev", *args],
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "streams.cli", "dev", *args],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def jvms(self) -> list[int]:
        """Pids of JVMs started for this cache dir (any still running is a leak)."""
        marker = f"-Dmultiqa.devstack={self.cache / 'devstack' / 'kafka'}".encode()
        found = set()
        for _ in range(2):  # a busy JVM's cmdline can read empty for a moment: look twice
            for proc in Path("/proc").iterdir():
                if proc.name.isdigit():
                    try:
                        args = (proc / "cmdline").read_bytes().split(b"\0")
                        if marker in args and process_start_time(int(proc.name)) is not None:
                            found.add(int(proc.name))
                    except OSError:
                        pass
        return sorted(found)

    def postgres_running(self) -> bool:
        settings = Settings.from_env()
        settings = type(settings)(**{**settings.__dict__, "cache_dir": self.cache})
        return bool(pg_mod.status(settings).get("running"))

    def cleanup(self) -> None:
        self.run("down")
        for pid in self.jvms():
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.cache, ignore_errors=True)


@pytest.fixture
def stack():
    s = Stack()
    yield s
    s.cleanup()


@pytest.fixture
def bare_stack():
    """No cached jars: the first `up` would have to download them."""
    s = Stack(share_jars=False)
    yield s
    s.cleanup()


def _pids(output: str) -> dict[str, tuple[int, str]]:
    found = {}
    for line in output.splitlines():
        match = re.match(r"(kafka|postgres):\s.*pid (\d+), (started|already running)\)", line)
        if match:
            found[match.group(1)] = (int(match.group(2)), match.group(3))
    return found


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("multiqa dev: error: ")
    return lines[0]


def test_up_is_idempotent_concurrent_and_survives_a_crash(stack):
    # Two `up` at once from nothing: one starts each service, the other waits and reuses it.
    first, second = stack.popen("up"), stack.popen("up")
    outs = [p.communicate(timeout=300) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outs
    a, b = _pids(outs[0][0]), _pids(outs[1][0])
    for service in ("kafka", "postgres"):
        assert a[service][0] == b[service][0]
        assert sorted([a[service][1], b[service][1]]) == ["already running", "started"]
    assert len(stack.jvms()) == 1

    # Reused, not restarted (no timed assertion: speed belongs in bench/).
    again = stack.run("up")
    assert again.returncode == 0
    assert {s: v for s, (_, v) in _pids(again.stdout).items()} == {
        "kafka": "already running",
        "postgres": "already running",
    }
    env_file = (stack.cache / "devstack.env").read_text()
    assert f"KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:{stack.kafka_port}" in env_file
    assert f"@127.0.0.1:{stack.pg_port}/multiqa" in env_file
    assert stack.run("status").returncode == 0

    # The broker dies hard: its pid file goes stale, and the next `up` starts a new one.
    old_pid = a["kafka"][0]
    os.kill(old_pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while process_start_time(old_pid) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert stack.run("status").returncode == 3
    restarted = stack.run("up")
    assert restarted.returncode == 0, restarted.stderr
    pids = _pids(restarted.stdout)
    assert pids["kafka"][1] == "started" and pids["kafka"][0] != old_pid
    assert pids["postgres"] == (a["postgres"][0], "already running")

    down = stack.run("down")
    assert down.returncode == 0 and "stopped: kafka, postgres" in down.stdout
    assert stack.jvms() == [] and not stack.postgres_running()
    assert port_is_free(stack.kafka_port) and port_is_free(stack.pg_port)
    assert stack.run("status").returncode == 3
    assert "nothing was running" in stack.run("down").stdout
    assert "KAFKA_BOOTSTRAP_SERVERS" not in (stack.cache / "devstack.env").read_text()


def test_down_never_touches_a_process_it_did_not_start(stack):
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        pid_file = stack.cache / "devstack" / "kafka" / "kafka.pid"
        pid_file.parent.mkdir(parents=True)
        # A stale pid file whose pid now belongs to another program.
        pid_file.write_text(
            json.dumps(
                {
                    "pid": stranger.pid,
                    "start_time": process_start_time(stranger.pid),
                    "marker": "-Dmultiqa.devstack=elsewhere",
                }
            )
        )
        down = stack.run("down", "--kafka-only")
        assert down.returncode == 0 and "nothing was running" in down.stdout
        assert stranger.poll() is None
        assert not pid_file.exists()  # recognised as stale and removed
    finally:
        stranger.kill()
        stranger.wait()


def test_kafka_port_taken(stack):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", stack.kafka_port))
        squatter.listen()
        line = _one_error_line(stack.run("up"))
    assert f"port 127.0.0.1:{stack.kafka_port}" in line and "MULTIQA_KAFKA_PORT" in line
    assert stack.jvms() == [] and not stack.postgres_running()


def test_postgres_port_taken_starts_nothing(stack):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", stack.pg_port))
        squatter.listen()
        line = _one_error_line(stack.run("up"))
    assert f"port 127.0.0.1:{stack.pg_port}" in line and "MULTIQA_PG_PORT" in line
    assert stack.jvms() == []  # checked before anything started


def test_no_java(stack):
    line = _one_error_line(stack.run("up", "--kafka-only", PATH="/nonexistent"))
    assert "java not found" in line and "openjdk-17" in line


def test_no_java_on_a_full_up_starts_not_even_postgres(stack):
    line = _one_error_line(stack.run("up", PATH="/nonexistent"))
    assert "java not found" in line
    assert stack.jvms() == [] and not stack.postgres_running()  # checked before anything started
    assert port_is_free(stack.pg_port)


@pytest.mark.parametrize(
    ("variable", "value", "why"),
    [
        ("MULTIQA_KAFKA_PORT", "kafka", "is not a port number"),
        ("MULTIQA_PG_PORT", "70000", "is out of range"),
        ("MULTIQA_START_TIMEOUT", "soon", "is not a number of seconds"),
    ],
)
def test_bad_setting_is_one_line_naming_the_variable(stack, variable, value, why):
    line = _one_error_line(stack.run("up", **{variable: value}))
    assert variable in line and why in line
    assert stack.jvms() == [] and not stack.postgres_running()


def test_no_maven_when_jars_are_not_cached(bare_stack, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").symlink_to(shutil.which("java"))
    line = _one_error_line(bare_stack.run("up", "--kafka-only", PATH=str(bin_dir)))
    assert "mvn not found" in line and "apt-get install -y maven" in line
    assert bare_stack.jvms() == []


def test_failed_download(bare_stack):
    proc = bare_stack.run("up", "--kafka-only", MULTIQA_KAFKA_VERSION="0.0.1-no-such-version")
    line = _one_error_line(proc)
    assert "downloading Apache Kafka 0.0.1-no-such-version from Maven Central failed" in line
    assert "MULTIQA_KAFKA_VERSION" in line
    dist = bare_stack.cache / "kafka-dist" / "0.0.1-no-such-version"
    assert not (dist / "libs").exists() and not (dist / "libs.partial").exists()
    assert bare_stack.jvms() == []


def test_postgres_not_installed(stack):
    line = _one_error_line(stack.run("up", MULTIQA_PG_BINDIR="/nonexistent/bin"))
    assert "PostgreSQL server programs not found" in line and "apt-get install" in line
    assert stack.jvms() == []


def test_postgres_that_will_not_start_leaves_nothing_running(stack):
    proc = stack.run("up", MULTIQA_PG_OPTIONS="-c no_such_setting=1")
    line = _one_error_line(proc)
    assert "did not start" in line and "no_such_setting" in line
    assert "MULTIQA_PG_OPTIONS" in line
    # Kafka had started in this `up`; it was stopped again.
    assert stack.jvms() == [] and not stack.postgres_running()
    assert port_is_free(stack.kafka_port) and port_is_free(stack.pg_port)


def test_postgres_started_first_on_a_fresh_cache_is_found_again(stack):
    """The test harness starts PostgreSQL through the module API, possibly before anything made
    the cache's devstack folder; `status` and `down` from fresh processes must then agree on where
    the data directory is (a first decision taken before the folder existed once put it in /tmp,
    and `down` left the server running)."""
    assert not (stack.cache / "devstack").exists()
    start = subprocess.run(
        [sys.executable, "-c", "from streams.devstack import Settings, postgres as p; "
         "p.start(Settings.from_env())"],
        env=stack.env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert start.returncode == 0, start.stderr
    (stack.cache / "devstack" / "kafka").mkdir(parents=True, exist_ok=True)  # Kafka starts next
    status = stack.run("status")
    assert re.search(r"^postgres: running", status.stdout, re.M), status.stdout
    down = stack.run("down")
    assert down.returncode == 0, down.stderr
    assert "postgres" in down.stdout
    assert not stack.postgres_running()
    assert port_is_free(stack.pg_port)


@pytest.mark.parametrize(
    ("env", "broker", "controller"),
    [
        ({}, 19092, 19093),  # the documented defaults
        ({"MULTIQA_KAFKA_PORT": "24092"}, 24092, 24093),  # a moved broker moves its controller
        ({"MULTIQA_KAFKA_PORT": "65535"}, 65535, 65534),  # no port above the last one
        ({"MULTIQA_KAFKA_PORT": "24092", "MULTIQA_KAFKA_CONTROLLER_PORT": "25000"}, 24092, 25000),
    ],
)
def test_the_controller_port_follows_a_moved_broker(monkeypatch, env, broker, controller):
    # A second stack started with only MULTIQA_KAFKA_PORT moved (a CI run beside a developer's
    # stack) used to collide with the first stack's controller on the fixed 19093.
    for name in ("MULTIQA_KAFKA_PORT", "MULTIQA_KAFKA_CONTROLLER_PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings.from_env()
    assert (settings.kafka_port, settings.controller_port) == (broker, controller)
