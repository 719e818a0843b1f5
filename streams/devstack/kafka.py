"""A real Apache Kafka broker in KRaft mode (one JVM, broker + controller) on 127.0.0.1.

Jars come from Maven Central through deploy/local/pom.xml (`mvn dependency:copy-dependencies`) and
are cached in <cache>/kafka-dist/<version>/libs; the broker runs with `java -cp libs/* kafka.Kafka`
after `kafka.tools.StorageTool format` prepared its storage on first start.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import time
import uuid
from pathlib import Path

from streams.devstack._common import (
    HOST,
    DevStackError,
    PidRecord,
    Settings,
    last_lines,
    read_pid_file,
    require_free_port,
    terminate,
    write_pid_file,
)

MIN_JAVA = 17


@dataclasses.dataclass(frozen=True)
class KafkaInfo:
    bootstrap: str
    pid: int
    version: str
    started: bool  # False when an already running broker was reused


def _home(settings: Settings) -> Path:
    return settings.state_dir / "kafka"


def _pid_file(settings: Settings) -> Path:
    return _home(settings) / "kafka.pid"


def _meta_file(settings: Settings) -> Path:
    return _home(settings) / "kafka.json"


def _marker(settings: Settings) -> str:
    """A JVM argument that marks the broker of this cache dir (pid files check it)."""
    return f"-Dmultiqa.devstack={_home(settings)}"


def libs_dir(settings: Settings) -> Path:
    return settings.cache_dir / "kafka-dist" / settings.kafka_version / "libs"


def find_java() -> str:
    """The java executable: $JAVA_HOME/bin/java, else java on PATH; checked to be >= 17."""
    java_home = os.environ.get("JAVA_HOME", "").strip()
    candidates = [str(Path(java_home) / "bin" / "java")] if java_home else []
    on_path = shutil.which("java")
    if on_path:
        candidates.append(on_path)
    java = next((c for c in candidates if os.access(c, os.X_OK)), None)
    if java is None:
        raise DevStackError(
            "java not found (no $JAVA_HOME/bin/java, none on PATH): Kafka needs a JDK/JRE "
            f"{MIN_JAVA}+; install one (apt-get install -y openjdk-17-jre-headless) or set "
            "JAVA_HOME"
        )
    try:
        probe = subprocess.run(  # noqa: S603
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DevStackError(
            f"running `{java} -version` failed ({exc}); repair the Java "
            "installation or point JAVA_HOME at a working JDK 17+"
        ) from None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', probe.stderr + probe.stdout)
    if match:
        major = int(match.group(1))
        if major == 1 and match.group(2):  # "1.8.0_x" style
            major = int(match.group(2))
        if major < MIN_JAVA:
            raise DevStackError(
                f"{java} is Java {major}, Kafka {MIN_JAVA}+ is required; install "
                "openjdk-17-jre-headless (or newer) and put it first on PATH or in JAVA_HOME"
            )
    return java


def ensure_jars(settings: Settings) -> Path:
    """Download Kafka's jars once (then they are cached); returns the libs directory."""
    libs = libs_dir(settings)
    complete = libs / ".complete"
    if complete.is_file():
        return libs
    pom = settings.deploy_dir / "pom.xml"
    if not pom.is_file():
        raise DevStackError(
            f"{pom} is missing; run multiqa from its git checkout "
            "(deploy/local holds the Kafka pom)"
        )
    mvn = shutil.which("mvn")
    if mvn is None:
        raise DevStackError(
            "mvn not found on PATH: Maven is needed once to download the Kafka jars from Maven "
            "Central; install it (apt-get install -y maven) and run again"
        )
    dist = libs.parent
    dist.mkdir(parents=True, exist_ok=True)
    tmp = dist / "libs.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    log = dist / "download.log"
    print(
        f"multiqa dev: downloading Apache Kafka {settings.kafka_version} jars from Maven "
        f"Central into {libs} (first run only, log: {log})",
        flush=True,
    )
    cmd = [
        mvn,
        "-B",
        "-f",
        str(pom),
        "dependency:copy-dependencies",
        f"-DoutputDirectory={tmp}",
        "-DincludeScope=runtime",
        f"-Dkafka.version={settings.kafka_version}",
    ]
    with open(log, "w") as out:
        try:
            proc = subprocess.run(  # noqa: S603 (our own argv)
                cmd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                timeout=900,
                check=False,
            )
            code: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            code = "timeout after 900s"
    jars = list(tmp.glob(f"kafka_2.13-{settings.kafka_version}.jar")) if tmp.is_dir() else []
    if code != 0 or not jars:
        shutil.rmtree(tmp, ignore_errors=True)
        reason = _mvn_reason(log)
        raise DevStackError(
            f"downloading Apache Kafka {settings.kafka_version} from Maven Central failed "
            f"(mvn exit {code}: {reason}); check the network/proxy (~/.m2/settings.xml) and "
            f"MULTIQA_KAFKA_VERSION, then run again (full log: {log})"
        )
    shutil.rmtree(libs, ignore_errors=True)
    tmp.replace(libs)
    complete.write_text(settings.kafka_version + "\n")
    return libs


def _mvn_reason(log: Path) -> str:
    errors = [
        line.removeprefix("[ERROR]").strip()
        for line in last_lines(log, 400)
        if line.startswith("[ERROR]") and line.removeprefix("[ERROR]").strip()
    ]
    if not errors:
        return "no error message, see the log"
    reason = errors[0]
    return reason if len(reason) <= 300 else reason[:297] + "..."


def render_properties(settings: Settings) -> Path:
    template = (settings.deploy_dir / "server.properties.template").read_text()
    home = _home(settings)
    values = {
        "host": HOST,
        "port": settings.kafka_port,
        "controller_port": settings.controller_port,
        "data_dir": home / "data",
    }
    text = template
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    path = home / "server.properties"
    path.write_text(text)
    return path


def _cluster_id() -> str:
    """A random cluster id in Kafka's format (base64url of 16 bytes). Like Kafka's own
    Uuid.randomUuid it never starts with "-", which command-line parsers take for an option."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


def _java_cmd(java: str, settings: Settings, libs: Path, *jvm_opts: str) -> list[str]:
    home = _home(settings)
    return [
        java,
        *jvm_opts,
        _marker(settings),
        "-Djava.awt.headless=true",
        f"-Dlog4j2.configurationFile={settings.deploy_dir / 'log4j2.properties'}",
        f"-Dkafka.logs.dir={home / 'logs'}",
        "-cp",
        f"{libs}/*",
    ]


def _format_storage(java: str, settings: Settings, libs: Path, props: Path) -> None:
    data = _home(settings) / "data"
    if (data / "meta.properties").is_file():
        return
    data.mkdir(parents=True, exist_ok=True)
    cmd = [
        *_java_cmd(java, settings, libs),
        "kafka.tools.StorageTool",
        "format",
        "--ignore-formatted",
        f"--cluster-id={_cluster_id()}",
        "--config",
        str(props),
    ]
    proc = subprocess.run(  # noqa: S603 (our own argv)
        cmd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
        reason = lines[-1].strip() if lines else f"exit {proc.returncode}"
        raise DevStackError(
            f"formatting Kafka storage in {data} failed ({reason}); delete "
            f"{_home(settings)} and run `multiqa dev up` again"
        )


def metadata_ok(port: int, host: str = HOST, timeout: float = 2.0) -> bool:
    """True when a Kafka broker on host:port answers a Metadata (v4) request with >= 1 broker."""
    client_id = b"multiqa-devstack"
    correlation = 0x5EED
    # header v1: api_key=3 (Metadata), api_version=4, correlation_id, client_id
    # body v4: topics = null (-1 -> all topics), allow_auto_topic_creation = false
    payload = struct.pack(">hhih", 3, 4, correlation, len(client_id)) + client_id
    payload += struct.pack(">ib", -1, 0)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(struct.pack(">i", len(payload)) + payload)
            head = _recv_exact(sock, 4)
            (size,) = struct.unpack(">i", head)
            body = _recv_exact(sock, size)
    except OSError:
        return False
    if len(body) < 12:
        return False
    got_correlation, _throttle, brokers = struct.unpack(">iii", body[:12])
    return bool(got_correlation == correlation and brokers >= 1)


def group_coordinator_ok(port: int, host: str = HOST, timeout: float = 2.0) -> bool:
    """True when the broker on host:port names a coordinator for consumer groups (FindCoordinator
    v1 answers error 0). A broker answers metadata requests a moment before that: until its
    __consumer_offsets partitions are loaded, every group operation fails with
    COORDINATOR_NOT_AVAILABLE, which is what a client that starts right after `up` would see."""
    client_id = b"multiqa-devstack"
    correlation = 0x5EEE
    group = b"multiqa-devstack-probe"
    # header v1: api_key=10 (FindCoordinator), api_version=1; body: key, key_type=0 (group)
    payload = struct.pack(">hhih", 10, 1, correlation, len(client_id)) + client_id
    payload += struct.pack(">h", len(group)) + group + struct.pack(">b", 0)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(struct.pack(">i", len(payload)) + payload)
            (size,) = struct.unpack(">i", _recv_exact(sock, 4))
            body = _recv_exact(sock, size)
    except OSError:
        return False
    if len(body) < 10:
        return False
    # correlation_id, throttle_time_ms, error_code, ...
    got_correlation, _throttle, error_code = struct.unpack(">iih", body[:10])
    return bool(got_correlation == correlation and error_code == 0)


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise ConnectionError("connection closed")
        chunks += chunk
    return bytes(chunks)


def running(settings: Settings) -> PidRecord | None:
    return read_pid_file(_pid_file(settings))


def _read_meta(settings: Settings) -> dict[str, object]:
    try:
        data = json.loads(_meta_file(settings).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def check_prerequisites(settings: Settings) -> None:
    """Fail early (before anything starts) when this broker could not be started."""
    if running(settings) is not None:
        return
    find_java()
    if not (libs_dir(settings) / ".complete").is_file() and shutil.which("mvn") is None:
        ensure_jars(settings)  # raises the "mvn not found" error
    require_free_port(settings.kafka_port, "Kafka", "MULTIQA_KAFKA_PORT")
    require_free_port(
        settings.controller_port, "the Kafka controller", "MULTIQA_KAFKA_CONTROLLER_PORT"
    )


def start(settings: Settings) -> KafkaInfo:
    """Start the broker, or reuse the one this cache dir already runs. Caller holds the lock."""
    bootstrap = f"{HOST}:{settings.kafka_port}"
    record = running(settings)
    if record is not None:
        meta = _read_meta(settings)
        if meta.get("port") != settings.kafka_port:
            raise DevStackError(
                f"the dev Kafka broker of {settings.cache_dir} already runs on port "
                f"{meta.get('port')}, not {settings.kafka_port}; run `multiqa dev down` first or "
                "unset MULTIQA_KAFKA_PORT"
            )
        _wait_ready(settings, record)
        return KafkaInfo(
            bootstrap=bootstrap,
            pid=record.pid,
            version=str(meta.get("version", "?")),
            started=False,
        )

    java = find_java()
    libs = ensure_jars(settings)
    require_free_port(settings.kafka_port, "Kafka", "MULTIQA_KAFKA_PORT")
    require_free_port(
        settings.controller_port, "the Kafka controller", "MULTIQA_KAFKA_CONTROLLER_PORT"
    )
    home = _home(settings)
    (home / "logs").mkdir(parents=True, exist_ok=True)
    props = render_properties(settings)
    _format_storage(java, settings, libs, props)

    cmd = [
        *_java_cmd(
            java,
            settings,
            libs,
            f"-Xmx{settings.kafka_heap}",
            "-Xms128m",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:+ExitOnOutOfMemoryError",
            *os.environ.get("MULTIQA_KAFKA_JVM_OPTS", "").split(),
        ),
        "kafka.Kafka",
        str(props),
    ]
    stdout_log = home / "logs" / "stdout.log"
    with open(stdout_log, "ab") as out:
        proc = subprocess.Popen(  # noqa: S603 (our own argv)
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            cwd=home,
        )
    try:
        record = write_pid_file(_pid_file(settings), proc.pid, _marker(settings))
        _meta_file(settings).write_text(
            json.dumps(
                {
                    "version": settings.kafka_version,
                    "port": settings.kafka_port,
                    "controller_port": settings.controller_port,
                    "started_at": time.time(),
                }
            )
        )
        _wait_ready(settings, record, proc)
    except BaseException:
        stop_process(settings, proc.pid)
        raise
    return KafkaInfo(
        bootstrap=bootstrap, pid=proc.pid, version=settings.kafka_version, started=True
    )


def _wait_ready(
    settings: Settings, record: PidRecord, proc: subprocess.Popen[bytes] | None = None
) -> None:
    """Until the broker answers metadata AND names a group coordinator (bounded by
    MULTIQA_START_TIMEOUT), so that consumer groups work as soon as `up` returns."""
    deadline = time.monotonic() + settings.start_timeout
    answered = False
    while time.monotonic() < deadline:
        answered = answered or metadata_ok(settings.kafka_port)
        if answered and group_coordinator_ok(settings.kafka_port):
            return
        if (proc is not None and proc.poll() is not None) or not record.alive():
            raise DevStackError(
                f"the Kafka broker exited during start-up ({_failure_reason(settings)}); fix "
                f"that and run again (log: {_home(settings) / 'logs' / 'server.log'})"
            )
        time.sleep(0.2)
    log = _home(settings) / "logs" / "server.log"
    if answered:
        raise DevStackError(
            f"the Kafka broker on {HOST}:{settings.kafka_port} answers but its group coordinator "
            f"was not available within {settings.start_timeout:.0f}s; see {log} "
            "(raise MULTIQA_START_TIMEOUT on a slow machine)"
        )
    raise DevStackError(
        f"the Kafka broker did not answer a metadata request on {HOST}:{settings.kafka_port} "
        f"within {settings.start_timeout:.0f}s; see {log} "
        "(raise MULTIQA_START_TIMEOUT on a slow machine)"
    )


def _failure_reason(settings: Settings) -> str:
    logs = _home(settings) / "logs"
    for path in (logs / "server.log", logs / "stdout.log"):
        for line in reversed(last_lines(path)):
            if " ERROR " in line or "Exception" in line or "Error:" in line:
                text = line.strip()
                return text if len(text) <= 300 else text[:297] + "..."
    return "no error in the logs"


def stop_process(settings: Settings, pid: int) -> None:
    record = read_pid_file(_pid_file(settings))
    if record is not None and record.pid == pid:
        terminate(record)
    else:
        # Not recorded yet (failed before the pid file was written): it is our own child.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    _pid_file(settings).unlink(missing_ok=True)


def stop(settings: Settings) -> bool:
    """Stop the broker this cache dir started; False when none ran."""
    record = running(settings)
    if record is None:
        return False
    terminate(record)
    _pid_file(settings).unlink(missing_ok=True)
    return True


def status(settings: Settings) -> dict[str, object]:
    record = running(settings)
    meta = _read_meta(settings)
    if record is None:
        return {"running": False}
    port = meta.get("port", settings.kafka_port)
    port_int = port if isinstance(port, int) else settings.kafka_port
    return {
        "running": True,
        "pid": record.pid,
        "version": meta.get("version"),
        "bootstrap": f"{HOST}:{port_int}",
        "answers_metadata": metadata_ok(port_int),
        "log": str(_home(settings) / "logs" / "server.log"),
    }
