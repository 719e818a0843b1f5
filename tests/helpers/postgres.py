"""PostgreSQL for tests: fresh databases on the shared server (`create_database` /
`drop_database`, what tests/conftest.py's `pg_dsn` and the per-module databases use), and a server
of a test's own, which it may stop and restart (an outage; the shared test server must never be
stopped).

Started by the dev launcher's own code (streams.devstack.postgres: the Debian server programs,
initdb and pg_ctl run as the `postgres` user under root, TCP on 127.0.0.1 only, the `multiqa`
role and database), with a cache folder of its own in /tmp and a free port, so nothing here
repeats how a server is made. A run killed mid-test leaves its server running: the next run
stops and removes such leftovers (`sweep_stale`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from streams.devstack import DevStackError, Settings
from streams.devstack import postgres as pg_mod
from tests.helpers.ports import free_port

PREFIX = "multiqa-throwaway-pg-"
# No test runs this long (pytest timeout 300 s): an older folder was left by a killed run.
STALE_SECONDS = 1800


def with_database(dsn: str, database: str) -> str:
    """`dsn` with its database replaced."""
    return urlunsplit(urlsplit(dsn)._replace(path=f"/{database}"))


async def create_database(admin_dsn: str, database: str, template: str = "template0") -> str:
    """CREATE DATABASE `database` (a copy of `template`) on `admin_dsn`'s server; its DSN."""
    import asyncpg

    admin = await asyncpg.connect(admin_dsn, timeout=30)
    try:
        await admin.execute(f'CREATE DATABASE "{database}" TEMPLATE "{template}"')
    finally:
        await admin.close()
    return with_database(admin_dsn, database)


async def drop_database(admin_dsn: str, database: str) -> None:
    """DROP DATABASE ... WITH (FORCE), retried while it fails on privileges: PostgreSQL 15 refuses
    to terminate an autovacuum worker that is visiting the new database ("must be a member of the
    role whose process is being terminated") unless the role has pg_signal_backend. The worker
    leaves within a moment; a test's own connections never cause this (same role)."""
    import asyncpg

    admin = await asyncpg.connect(admin_dsn, timeout=30)
    try:
        for attempt in range(40):
            try:
                await admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
                return
            except asyncpg.InsufficientPrivilegeError:
                if attempt == 39:
                    raise
                await asyncio.sleep(0.25)
    finally:
        await admin.close()


def _settings(cache_dir: Path, port: int) -> Settings:
    return dataclasses.replace(
        Settings.from_env(), cache_dir=cache_dir, pg_port=port, pg_options="", start_timeout=30.0
    )


class ThrowawayPostgres:
    """`start()` / `stop()` as often as a test likes (stop is "fast": open transactions abort
    and clients are dropped, what an outage looks like to them); `destroy()` removes it all.
    `dsn` is valid from construction on."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=PREFIX))
        self.root.chmod(0o755)  # mkdtemp makes it 0700; the postgres user must get in
        self.settings = _settings(self.root, free_port())
        self.dsn = pg_mod.dsn_for(self.settings.pg_port)

    def start(self) -> str:
        return pg_mod.start(self.settings).dsn

    def stop(self) -> None:
        pg_mod.stop(self.settings)

    def destroy(self) -> None:
        with contextlib.suppress(DevStackError):
            self.stop()
        shutil.rmtree(pg_mod.pg_root(self.settings), ignore_errors=True)
        shutil.rmtree(self.root, ignore_errors=True)


def sweep_stale() -> None:
    """Stop and remove the servers that killed test runs left behind."""
    now = time.time()
    for root in Path(tempfile.gettempdir()).glob(PREFIX + "*"):
        try:
            if now - root.stat().st_mtime < STALE_SECONDS:
                continue
            with contextlib.suppress(DevStackError):
                pg_mod.stop(_settings(root, 0))
            shutil.rmtree(root, ignore_errors=True)
        except OSError:
            continue  # another run is sweeping the same folder


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[ThrowawayPostgres]:
    """A started ThrowawayPostgres, destroyed on exit. `Unavailable` when this machine cannot
    run one (no server programs, root without a `postgres` user: the caller may skip); any other
    DevStackError (it did not start) is a failure and propagates as it is."""
    sweep_stale()
    server = ThrowawayPostgres()
    try:
        try:
            pg_mod.check_prerequisites(server.settings)
        except DevStackError as exc:
            raise Unavailable(str(exc)) from exc
        server.start()
        yield server
    finally:
        server.destroy()


class Unavailable(Exception):
    """This machine cannot run a PostgreSQL server of a test's own (what is missing, and how to
    install it)."""
