"""A PostgreSQL server from the machine's Debian packages, with its own data directory.

initdb refuses to run as root, so as root every server command runs as the `postgres` system user
(`runuser -u postgres --`), in a data directory owned by that user. The server listens on TCP
127.0.0.1 only (no Unix socket, so long cache paths do not matter); a role and a database named
`multiqa` are created on first start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

from streams.devstack._common import HOST, DevStackError, Settings, last_lines, require_free_port

DB_NAME = "multiqa"
ROLE = "multiqa"
PASSWORD = "multiqa"  # noqa: S105  (local development server, trust auth on 127.0.0.1)
PG_USER = "postgres"
_PG_GLOB_ROOT = Path("/usr/lib/postgresql")


@dataclasses.dataclass(frozen=True)
class PostgresInfo:
    dsn: str
    pid: int
    version: str
    started: bool  # False when an already running server was reused


def dsn_for(port: int, database: str = DB_NAME) -> str:
    return f"postgresql://{ROLE}:{PASSWORD}@{HOST}:{port}/{database}"


def find_bindir(settings: Settings) -> Path:
    if settings.pg_bindir:
        candidates = [Path(settings.pg_bindir)]
    else:
        found = [p for p in _PG_GLOB_ROOT.glob("*/bin") if p.parent.name.isdigit()]
        candidates = sorted(found, key=lambda p: int(p.parent.name), reverse=True)
    for bindir in candidates:
        if all((bindir / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres", "psql")):
            return bindir
    where = settings.pg_bindir or f"{_PG_GLOB_ROOT}/*/bin"
    raise DevStackError(
        f"PostgreSQL server programs not found (no initdb/pg_ctl/postgres/psql in {where}); "
        "install them with `apt-get install -y postgresql` or set MULTIQA_PG_BINDIR"
    )


@dataclasses.dataclass(frozen=True)
class _RunAs:
    prefix: tuple[str, ...]
    uid: int
    gid: int
    groups: frozenset[int]


def _run_as() -> _RunAs:
    if os.geteuid() != 0:
        return _RunAs((), os.getuid(), os.getgid(), frozenset(os.getgroups()))
    try:
        user = pwd.getpwnam(PG_USER)
    except KeyError:
        raise DevStackError(
            f"running as root but there is no `{PG_USER}` system user to run PostgreSQL as "
            "(initdb refuses root); `apt-get install -y postgresql` creates it"
        ) from None
    runuser = shutil.which("runuser")
    if runuser is None:
        raise DevStackError(
            "runuser not found: it is needed to run PostgreSQL as the postgres "
            "user when multiqa runs as root; install util-linux"
        )
    groups = frozenset(os.getgrouplist(PG_USER, user.pw_gid))
    return _RunAs((runuser, "-u", PG_USER, "--"), user.pw_uid, user.pw_gid, groups)


def _traversable(path: Path, who: _RunAs) -> bool:
    """Can `who` reach path, i.e. search every directory above it?"""
    for parent in path.resolve().parents:
        try:
            st = parent.stat()
        except OSError:
            return False
        if who.uid == 0:
            continue
        if st.st_uid == who.uid:
            ok = bool(st.st_mode & stat.S_IXUSR)
        elif st.st_gid in who.groups or st.st_gid == who.gid:
            ok = bool(st.st_mode & stat.S_IXGRP)
        else:
            ok = bool(st.st_mode & stat.S_IXOTH)
        if not ok:
            return False
    return True


def pg_root(settings: Settings, who: _RunAs | None = None) -> Path:
    """<cache>/devstack/postgres, or a folder in /tmp when the postgres user cannot reach the
    cache (e.g. a checkout under a mode-700 home); the choice is deterministic per cache dir."""
    who = who or _run_as()
    # Decide on folders that exist: before the first `up` creates the state dir, the walk below
    # would fail on the missing parent, pick /tmp, and the next command would look elsewhere.
    with contextlib.suppress(OSError):
        settings.state_dir.mkdir(parents=True, exist_ok=True)
    preferred = settings.state_dir / "postgres"
    if _traversable(preferred, who):
        return preferred
    digest = hashlib.sha256(str(settings.state_dir).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"multiqa-postgres-{digest}"


def _meta_path(root: Path) -> Path:
    return root / "multiqa-devstack.json"


def _run(
    who: _RunAs, argv: list[str], root: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        [*who.prefix, *argv],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _is_running(bindir: Path, who: _RunAs, root: Path) -> bool:
    data = root / "data"
    if not (data / "PG_VERSION").is_file():
        return False
    proc = _run(who, [str(bindir / "pg_ctl"), "status", "-D", str(data)], root, timeout=30)
    return proc.returncode == 0


def _postmaster_pid(root: Path) -> int:
    try:
        return int((root / "data" / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return 0


def _first_reason(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for key in ("FATAL:", "PANIC:", "ERROR:", "error", "invalid", "could not"):
        for line in lines:
            if key in line:
                return line if len(line) <= 300 else line[:297] + "..."
    return lines[-1] if lines else "no message"


def _server_options(settings: Settings) -> str:
    opts = [
        f"-c listen_addresses={HOST}",
        f"-p {settings.pg_port}",
        "-c unix_socket_directories=''",
        # A throw-away development server: durability is not worth the fsyncs.
        "-c fsync=off",
        "-c synchronous_commit=off",
        "-c full_page_writes=off",
        "-c max_connections=200",
    ]
    if settings.pg_options:
        opts.append(settings.pg_options)
    return " ".join(opts)


def check_prerequisites(settings: Settings) -> None:
    """Fail early (before anything starts) when this server could not be started."""
    bindir = find_bindir(settings)
    who = _run_as()
    if _is_running(bindir, who, pg_root(settings, who)):
        return
    require_free_port(settings.pg_port, "PostgreSQL", "MULTIQA_PG_PORT")


def start(settings: Settings) -> PostgresInfo:
    """Start the server, or reuse the one this cache dir already runs. Caller holds the lock."""
    bindir = find_bindir(settings)
    version = bindir.parent.name
    who = _run_as()
    root = pg_root(settings, who)
    data = root / "data"
    if _is_running(bindir, who, root):
        meta = _read_meta(root)
        if meta.get("port") != settings.pg_port:
            raise DevStackError(
                f"the dev PostgreSQL of {settings.cache_dir} already runs on port "
                f"{meta.get('port')}, not {settings.pg_port}; run `multiqa dev down` first or "
                "unset MULTIQA_PG_PORT"
            )
        _ensure_database(bindir, settings)
        return PostgresInfo(
            dsn=dsn_for(settings.pg_port), pid=_postmaster_pid(root), version=version, started=False
        )

    require_free_port(settings.pg_port, "PostgreSQL", "MULTIQA_PG_PORT")
    root.mkdir(parents=True, exist_ok=True)
    os.chown(root, who.uid, who.gid)
    root.chmod(0o700)
    if not (data / "PG_VERSION").is_file():
        shutil.rmtree(data, ignore_errors=True)  # a half-made data dir from a failed initdb
        proc = _run(
            who,
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                PG_USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
            root,
        )
        if proc.returncode != 0:
            shutil.rmtree(data, ignore_errors=True)
            raise DevStackError(
                f"initdb of {data} failed ({_first_reason(proc.stderr + proc.stdout)}); fix "
                "that (is the folder writable by the postgres user?) and run again"
            )
    # A postmaster.pid left by a crash names a dead process; pg_ctl status said "not running".
    (data / "postmaster.pid").unlink(missing_ok=True)
    log = root / "postgres.log"
    with contextlib.suppress(OSError):
        log.unlink()
    _meta_path(root).write_text(
        json.dumps({"port": settings.pg_port, "version": version, "started_at": time.time()})
    )
    proc = _run(
        who,
        [
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(log),
            "-w",
            "-t",
            str(int(settings.start_timeout)),
            "-o",
            _server_options(settings),
            "start",
        ],
        root,
        timeout=settings.start_timeout + 30,
    )
    if proc.returncode != 0 or not _is_running(bindir, who, root):
        reason = _first_reason("\n".join(last_lines(log)) or proc.stderr + proc.stdout)
        _stop_server(bindir, who, root, mode="immediate")
        raise DevStackError(
            f"PostgreSQL {version} did not start ({reason}); fix the cause (check "
            f"MULTIQA_PG_OPTIONS and {log}) and run `multiqa dev up` again"
        )
    try:
        _ensure_database(bindir, settings)
    except BaseException:
        _stop_server(bindir, who, root, mode="immediate")
        raise
    return PostgresInfo(
        dsn=dsn_for(settings.pg_port), pid=_postmaster_pid(root), version=version, started=True
    )


def _psql(bindir: Path, settings: Settings, sql: str, database: str = "postgres") -> str:
    proc = subprocess.run(  # noqa: S603
        [
            str(bindir / "psql"),
            "-X",
            "-q",
            "-t",
            "-A",
            "-h",
            HOST,
            "-p",
            str(settings.pg_port),
            "-U",
            PG_USER,
            "-d",
            database,
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            sql,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PGCONNECT_TIMEOUT": "10"},
    )
    if proc.returncode != 0:
        raise DevStackError(
            f"PostgreSQL on {HOST}:{settings.pg_port} refused setup SQL "
            f"({_first_reason(proc.stderr)}); run `multiqa dev down` and `multiqa dev up` again"
        )
    return proc.stdout.strip()


def _ensure_database(bindir: Path, settings: Settings) -> None:
    _psql(
        bindir,
        settings,
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{ROLE}') THEN "
        f"CREATE ROLE {ROLE} LOGIN CREATEDB PASSWORD '{PASSWORD}'; END IF; END $$;",
    )
    query = f"SELECT 1 FROM pg_database WHERE datname = '{DB_NAME}'"  # noqa: S608 (a constant)
    exists = _psql(bindir, settings, query)
    if exists != "1":
        _psql(bindir, settings, f"CREATE DATABASE {DB_NAME} OWNER {ROLE}")


def _read_meta(root: Path) -> dict[str, object]:
    try:
        data = json.loads(_meta_path(root).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _stop_server(bindir: Path, who: _RunAs, root: Path, mode: str = "fast") -> None:
    data = root / "data"
    if not (data / "PG_VERSION").is_file():
        return
    _run(
        who,
        [str(bindir / "pg_ctl"), "stop", "-D", str(data), "-m", mode, "-w", "-t", "60"],
        root,
        timeout=90,
    )


def stop(settings: Settings) -> bool:
    """Stop the server of this cache dir's data directory; False when none ran."""
    try:
        bindir = find_bindir(settings)
    except DevStackError:
        return False
    who = _run_as()
    root = pg_root(settings, who)
    if not _is_running(bindir, who, root):
        return False
    _stop_server(bindir, who, root)
    if _is_running(bindir, who, root):
        _stop_server(bindir, who, root, mode="immediate")
    return True


def status(settings: Settings) -> dict[str, object]:
    try:
        bindir = find_bindir(settings)
    except DevStackError as exc:
        return {"running": False, "problem": str(exc)}
    who = _run_as()
    root = pg_root(settings, who)
    if not _is_running(bindir, who, root):
        return {"running": False}
    meta = _read_meta(root)
    port = meta.get("port", settings.pg_port)
    port_int = port if isinstance(port, int) else settings.pg_port
    return {
        "running": True,
        "pid": _postmaster_pid(root),
        "version": meta.get("version"),
        "dsn": dsn_for(port_int),
        "data_dir": str(root / "data"),
        "log": str(root / "postgres.log"),
    }
