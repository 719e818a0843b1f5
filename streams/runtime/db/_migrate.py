from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from schemas import OperatorError

# Any constant works; it only has to be the same for every multiqa process.
_ADVISORY_LOCK_ID = 0x6D756C7469716131  # "multiqa1"
_FILE_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


class MigrationError(OperatorError, RuntimeError):
    """A migration file is malformed, or applying it failed."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available_migrations() -> list[Migration]:
    """The SQL files shipped in the package, in order. None at all is a broken install (a wheel
    built without its package data), a MigrationError: no retry can fix it."""
    folder = resources.files("streams.runtime.db").joinpath("migrations")
    try:
        entries = list(folder.iterdir())
    except OSError as exc:
        raise MigrationError(
            f"no SQL migrations in this installation ({folder}: {exc.strerror or exc}); "
            "reinstall multiqa from a wheel that includes streams/runtime/db/migrations/*.sql"
        ) from None
    if not any(_FILE_NAME.match(entry.name) for entry in entries):
        raise MigrationError(
            f"no SQL migrations in this installation ({folder} holds none); reinstall multiqa "
            "from a wheel that includes streams/runtime/db/migrations/*.sql"
        )
    found: list[Migration] = []
    for entry in entries:
        match = _FILE_NAME.match(entry.name)
        if not match:
            if entry.name.endswith(".sql"):
                raise MigrationError(f"migration file {entry.name!r} is not named NNN_name.sql")
            continue
        found.append(Migration(int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"two migration files share a version number: {versions}")
    return found


async def applied_migrations(pool: Any) -> list[int]:
    async with pool.acquire() as conn:
        exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
        if not exists:
            return []
        rows = await conn.fetch("SELECT version FROM schema_migrations ORDER BY version")
        return [int(r["version"]) for r in rows]


async def migrate(pool: Any) -> list[int]:
    """Apply pending migrations; returns the versions applied by this call (empty when none)."""
    applied_now: list[int] = []
    async with pool.acquire() as conn:
        await conn.execute("SELECT pg_advisory_lock($1)", _ADVISORY_LOCK_ID)
        try:
            await conn.execute(
                """CREATE TABLE IF NOT EXISTS schema_migrations (
                       version integer PRIMARY KEY,
                       name text NOT NULL,
                       applied_at timestamptz NOT NULL DEFAULT now())"""
            )
            done = {
                int(r["version"]) for r in await conn.fetch("SELECT version FROM schema_migrations")
            }
            for migration in available_migrations():
                if migration.version in done:
                    continue
                try:
                    async with conn.transaction():
                        await conn.execute(migration.sql)
                        await conn.execute(
                            "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                            migration.version,
                            migration.name,
                        )
                except Exception as exc:
                    raise MigrationError(
                        f"migration {migration.version:03d}_{migration.name} failed: {exc}"
                    ) from exc
                applied_now.append(migration.version)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", _ADVISORY_LOCK_ID)
    return applied_now
