"""Shared pieces of the local development stack: settings from the environment, the file lock,
pid files that survive crashes, port checks and the one error type the CLI reports."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from agents.values import parse_value
from schemas import OperatorError

HOST = "127.0.0.1"
DEFAULT_KAFKA_VERSION = "4.1.2"
DEFAULT_KAFKA_PORT = 19092
DEFAULT_PG_PORT = 15432

# streams/devstack/_common.py -> repository root (editable install / checkout).
_REPO_ROOT = Path(__file__).resolve().parents[2]


class DevStackError(OperatorError, RuntimeError):
    """A failure the user can act on. str(error) is ONE line naming the cause and the fix."""


def source_checkout() -> Path | None:
    """The source checkout holding deploy/local (the launcher's build files): the one this code
    runs from, else the working directory when it is one (a checkout with multiqa installed
    from it); None otherwise."""
    for root in (_REPO_ROOT, Path.cwd()):
        if (root / "deploy" / "local" / "pom.xml").is_file():
            return root
    return None


def repo_root() -> Path:
    """The checkout that holds deploy/local (falls back to the working directory)."""
    return source_checkout() or Path.cwd()


def _env_port(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        port: int = parse_value(raw, 0)
    except ValueError:
        raise DevStackError(
            f"{name}={raw!r} is not a port number; set it to an integer between 1024 and 65535"
        ) from None
    if not 0 < port < 65536:
        raise DevStackError(f"{name}={port} is out of range; set it between 1024 and 65535")
    return port


def _controller_default(kafka_port: int) -> int:
    """The KRaft controller's port when none is set: next to the broker's. A user who moves the
    broker (MULTIQA_KAFKA_PORT) to run a second stack beside the first must not collide with the
    first stack's controller on the fixed default."""
    return kafka_port + 1 if kafka_port < 65535 else kafka_port - 1


def _env_seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value: float = parse_value(raw, 0.0)
    except ValueError:  # not a number, or not finite
        value = -1.0
    if not 0 < value <= 3600:
        raise DevStackError(
            f"{name}={raw!r} is not a number of seconds; set it between 1 and 3600 or unset it"
        )
    return value


@dataclasses.dataclass(frozen=True)
class Settings:
    """Everything the launchers need, read from the environment (see README, Operations)."""

    cache_dir: Path
    deploy_dir: Path
    kafka_version: str
    kafka_port: int
    controller_port: int
    kafka_heap: str
    pg_port: int
    pg_bindir: str | None
    pg_options: str
    start_timeout: float

    @classmethod
    def from_env(cls) -> Settings:
        cache = os.environ.get("MULTIQA_CACHE_DIR", "").strip()
        cache_dir = Path(cache).expanduser() if cache else repo_root() / ".cache"
        kafka_port = _env_port("MULTIQA_KAFKA_PORT", DEFAULT_KAFKA_PORT)
        return cls(
            cache_dir=cache_dir.resolve(),
            deploy_dir=repo_root() / "deploy" / "local",
            kafka_version=os.environ.get("MULTIQA_KAFKA_VERSION", "").strip()
            or DEFAULT_KAFKA_VERSION,
            kafka_port=kafka_port,
            controller_port=_env_port(
                "MULTIQA_KAFKA_CONTROLLER_PORT", _controller_default(kafka_port)
            ),
            kafka_heap=os.environ.get("MULTIQA_KAFKA_HEAP", "").strip() or "512m",
            pg_port=_env_port("MULTIQA_PG_PORT", DEFAULT_PG_PORT),
            pg_bindir=os.environ.get("MULTIQA_PG_BINDIR", "").strip() or None,
            pg_options=os.environ.get("MULTIQA_PG_OPTIONS", "").strip(),
            start_timeout=_env_seconds("MULTIQA_START_TIMEOUT", 90.0),
        )

    @property
    def state_dir(self) -> Path:
        """Where running services keep their data, logs and pid files."""
        return self.cache_dir / "devstack"

    @property
    def env_file(self) -> Path:
        return self.cache_dir / "devstack.env"

    @property
    def lock_file(self) -> Path:
        return self.cache_dir / "devstack.lock"


@contextlib.contextmanager
def stack_lock(settings: Settings, timeout: float = 600.0) -> Iterator[None]:
    """Serialise `up`/`down` across processes (two pytest runs starting the stack at once).

    flock is released by the kernel when the holder dies, so a crashed run never blocks the next.
    """
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    with open(settings.lock_file, "a+") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise DevStackError(
                        f"another `multiqa dev` holds {settings.lock_file} for over "
                        f"{timeout:.0f}s; wait for it to finish or stop it"
                    ) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def port_is_free(port: int, host: str = HOST) -> bool:
    """True when nothing listens on host:port (a TIME_WAIT leftover does not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def require_free_port(port: int, what: str, env_name: str) -> None:
    if not port_is_free(port):
        raise DevStackError(
            f"port {HOST}:{port} needed by {what} is already in use by another process; "
            f"stop that process or pick another port with {env_name}=<port>"
        )


def process_start_time(pid: int) -> int | None:
    """The kernel's start time of pid (clock ticks since boot), None when it does not exist.

    Together with the pid it identifies one process: a pid reused after a crash has another
    start time, so a stale pid file never makes us wait for or kill a stranger.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may contain spaces; fields after the last ')' are fixed.
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":  # zombie: exited, not yet reaped
        return None
    return int(fields[19])


def process_cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


@dataclasses.dataclass(frozen=True)
class PidRecord:
    pid: int
    start_time: int
    marker: str

    def alive(self) -> bool:
        """The recorded process still runs: same pid and start time, and the marker on its
        command line. /proc/<pid>/cmdline of a busy JVM now and then reads empty for a moment:
        an empty read is retried, and when it stays empty the start time alone decides."""
        for _ in range(5):
            if process_start_time(self.pid) != self.start_time:
                return False
            args = process_cmdline(self.pid)
            if args:
                return any(self.marker in part for part in args)
            time.sleep(0.02)
        return process_start_time(self.pid) == self.start_time


def write_pid_file(path: Path, pid: int, marker: str) -> PidRecord:
    start = process_start_time(pid)
    if start is None:
        raise DevStackError(
            f"process {pid} exited right after it was started; see the logs beside {path}"
        )
    record = PidRecord(pid=pid, start_time=start, marker=marker)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dataclasses.asdict(record)))
    tmp.replace(path)
    return record


def read_pid_file(path: Path) -> PidRecord | None:
    """The live process recorded in path; a stale or unreadable pid file is removed."""
    try:
        data = json.loads(path.read_text())
        record = PidRecord(
            pid=int(data["pid"]), start_time=int(data["start_time"]), marker=str(data["marker"])
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        path.unlink(missing_ok=True)
        return None
    if record.alive():
        return record
    path.unlink(missing_ok=True)
    return None


def terminate(record: PidRecord, grace: float = 30.0) -> None:
    """SIGTERM the process group of record, SIGKILL it after grace seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        if not record.alive():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(record.pid, sig)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(record.pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            _reap(record.pid)
            if not record.alive():
                return
            time.sleep(0.1)


def _reap(pid: int) -> None:
    """Collect our own exited child so it does not linger as a zombie."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def last_lines(path: Path, count: int = 200) -> list[str]:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 65536))
            data = handle.read().decode(errors="replace")
    except OSError:
        return []
    return data.splitlines()[-count:]
