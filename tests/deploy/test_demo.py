"""`make demo` (python -m streams.cli.demo) as a new user runs it: from scratch (an empty cache dir
of its own, so the Kafka jars are fetched, the broker's storage formatted and PostgreSQL initdb'd;
ports nobody uses; a brand-new database), it prints the three decisions the README shows. Then the
ways it must fail: one line, exit 1, nothing started or changed: a second demo while one runs, a
port taken by another program, Java or PostgreSQL missing."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from streams.devstack._common import process_start_time
from tests.helpers.ports import free_ports

# Starts (or fails to start) a broker and a server of its own, never the shared ones.
pytestmark = [pytest.mark.kafka, pytest.mark.postgres]

REPO = Path(__file__).resolve().parents[2]
_SERVICE_ENV = (
    "KAFKA_BOOTSTRAP_SERVERS",
    "DATABASE_URL",
    "JAVA_HOME",
    "MULTIQA_BOOTSTRAP_SERVERS",
    "MULTIQA_DATABASE_URL",
    "MULTIQA_KAFKA_VERSION",
    "MULTIQA_PG_BINDIR",
    "MULTIQA_PG_OPTIONS",
)


class Fresh:
    """An empty cache dir and three unused ports: what a fresh clone on a fresh machine has."""

    def __init__(self) -> None:
        self.cache = Path(tempfile.mkdtemp(prefix="multiqa-demo-test-", dir="/tmp"))
        self.cache.chmod(0o755)  # the postgres user must reach its data dir
        self.kafka_port, controller, self.pg_port = free_ports(3)
        self.env = {k: v for k, v in os.environ.items() if k not in _SERVICE_ENV}
        self.env.update(
            MULTIQA_CACHE_DIR=str(self.cache),
            MULTIQA_KAFKA_PORT=str(self.kafka_port),
            MULTIQA_KAFKA_CONTROLLER_PORT=str(controller),
            MULTIQA_PG_PORT=str(self.pg_port),
            PYTHONUNBUFFERED="1",
        )

    def demo(
        self, *args: str, timeout: float = 600, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "streams.cli.demo", *args],
            env={**self.env, **env},
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "streams.cli", *args],
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def jvms(self) -> list[int]:
        marker = f"-Dmultiqa.devstack={self.cache / 'devstack' / 'kafka'}".encode()
        found = []
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    args = (proc / "cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if marker in args and process_start_time(int(proc.name)) is not None:
                    found.append(int(proc.name))
        return found

    def running(self) -> bool:
        return self.cli("dev", "status").returncode == 0 or bool(self.jvms())

    def cleanup(self) -> None:
        self.cli("dev", "down")
        for pid in self.jvms():
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.cache, ignore_errors=True)


@pytest.fixture
def fresh() -> Iterator[Fresh]:
    machine = Fresh()
    yield machine
    machine.cleanup()


def _decisions(out: str) -> dict[str, tuple[str, str]]:
    """draft name (clean, statistic, dead-link) -> (APPROVED/REJECTED, the decision's text)."""
    found = {}
    for block in out.split("\ndecision ")[1:]:
        match = re.match(
            r"\S+: (APPROVED|REJECTED), score [\d.]+/100 \(draft demo-\w+-([\w-]+) v1\)", block
        )
        assert match, block[:200]
        found[match.group(2)] = (match.group(1), block.split("\n\n")[0])
    return found


def test_demo_from_scratch_prints_the_three_decisions(fresh: Fresh) -> None:
    proc = fresh.demo("--timeout", "240")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    decisions = _decisions(proc.stdout)
    assert set(decisions) == {"clean", "statistic", "dead-link"}
    assert decisions["clean"][0] == "APPROVED"
    verdict, text = decisions["statistic"]
    assert verdict == "REJECTED" and "flags: short-circuit" in text
    assert "validator critical: fabricated_study, unsourced_statistic" in text
    verdict, text = decisions["dead-link"]
    # Decided early on the first dead-link veto (the URL verifier's or the citation check's,
    # whichever answers first): its score depends on who else had answered by then.
    vetoes = next(line for line in text.splitlines() if line.startswith("vetoes: "))
    assert verdict == "REJECTED"
    assert "urls: 1 dead link" in vetoes or "citations: 1 of 1 checked citations dead" in vetoes
    # ...persisted by the sinks, and nothing else: no warm-up draft, the setting restored.
    persisted = proc.stdout.split("5. persisted")[1]
    assert len(re.findall(r"^   demo-\w+-[\w-]+ +(?:approved|rejected)", persisted, re.M)) == 3
    assert "warmup" not in proc.stdout and "warm-up" not in proc.stdout
    got = fresh.cli("settings", "get", "qa_url_allowlist")
    assert got.returncode == 0 and got.stdout.strip() == "", got.stderr
    listed = fresh.cli("settings", "list")
    assert "* qa_url_allowlist" not in listed.stdout
    # What it tells the user to run exists as written (`make demo` puts nothing on PATH).
    stop = re.search(r"stop it with: (\S+) dev down$", proc.stdout, re.M)
    assert stop, proc.stdout[-1000:]
    assert (REPO / stop.group(1)).is_file() or shutil.which(stop.group(1), path=fresh.env["PATH"])
    # The worker's log says once that it is ready, naming its roles.
    log = (fresh.cache / "demo" / "worker.log").read_text()
    assert len(re.findall(r"worker ready: roles \S", log)) == 1, log[-3000:]


def test_the_demo_names_multiqa_as_the_user_can_run_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from streams.cli.demo import multiqa_command

    script = Path(sys.prefix) / "bin" / "multiqa"
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # not activated: the script's own path
    named = multiqa_command()
    assert named != "multiqa" and Path(named).resolve() == script.resolve()
    monkeypatch.setenv("PATH", f"{script.parent}:/usr/bin:/bin")  # activated
    assert multiqa_command() == "multiqa"


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("demo: error: "), proc.stderr
    return lines[0]


def test_a_second_demo_while_one_runs_is_refused(fresh: Fresh) -> None:
    lock = fresh.cache / "demo" / "demo.lock"
    lock.parent.mkdir(parents=True)
    with open(lock, "a+") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        held.write("4242")
        held.flush()
        line = _one_error_line(fresh.demo(timeout=60))
    assert "another demo is running (pid 4242" in line
    assert not fresh.running()  # refused before it started anything


def test_a_port_taken_by_another_program(fresh: Fresh) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", fresh.kafka_port))
        squatter.listen()
        line = _one_error_line(fresh.demo(timeout=120))
    assert f"port 127.0.0.1:{fresh.kafka_port}" in line and "MULTIQA_KAFKA_PORT" in line
    assert not fresh.running()


def test_java_missing(fresh: Fresh) -> None:
    line = _one_error_line(fresh.demo(timeout=120, PATH="/nonexistent"))
    assert "java not found" in line and "openjdk-17" in line
    assert not fresh.running()


def test_postgresql_missing(fresh: Fresh) -> None:
    line = _one_error_line(fresh.demo(timeout=120, MULTIQA_PG_BINDIR="/nonexistent/bin"))
    assert "PostgreSQL server programs not found" in line and "apt-get install" in line
    assert not fresh.running()
