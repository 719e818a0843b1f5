"""`up`, `down` and `status` of the whole local stack (Kafka + PostgreSQL), under one file lock.

`up` checks every prerequisite (programs, free ports) before it starts anything, reuses services
that already run from the same cache dir, and stops what it started itself when a later step
fails, so a failed `up` leaves nothing half-started.
"""

from __future__ import annotations

import dataclasses

from streams.devstack import kafka as kafka_mod
from streams.devstack import postgres as pg_mod
from streams.devstack._common import Settings, stack_lock


@dataclasses.dataclass(frozen=True)
class StackInfo:
    kafka: kafka_mod.KafkaInfo | None
    postgres: pg_mod.PostgresInfo | None

    def env_lines(self) -> list[str]:
        lines = []
        if self.kafka is not None:
            lines.append(f"KAFKA_BOOTSTRAP_SERVERS={self.kafka.bootstrap}")
        if self.postgres is not None:
            lines.append(f"DATABASE_URL={self.postgres.dsn}")
        return lines


def up(*, kafka: bool = True, postgres: bool = True, settings: Settings | None = None) -> StackInfo:
    """Start (or reuse) the requested services; returns where they listen."""
    settings = settings or Settings.from_env()
    with stack_lock(settings):
        if kafka:
            kafka_mod.check_prerequisites(settings)
        if postgres:
            pg_mod.check_prerequisites(settings)
        kafka_info = None
        try:
            if kafka:
                kafka_info = kafka_mod.start(settings)
            pg_info = pg_mod.start(settings) if postgres else None
        except BaseException:
            if kafka_info is not None and kafka_info.started:
                kafka_mod.stop(settings)
            raise
        _write_env_file(settings)
    return StackInfo(kafka=kafka_info, postgres=pg_info)


def down(
    *, kafka: bool = True, postgres: bool = True, settings: Settings | None = None
) -> list[str]:
    """Stop what `up` started from this cache dir; returns the names of the stopped services."""
    settings = settings or Settings.from_env()
    stopped = []
    with stack_lock(settings):
        if kafka and kafka_mod.stop(settings):
            stopped.append("kafka")
        if postgres and pg_mod.stop(settings):
            stopped.append("postgres")
        _write_env_file(settings)
    return stopped


def status(settings: Settings | None = None) -> dict[str, dict[str, object]]:
    settings = settings or Settings.from_env()
    return {"kafka": kafka_mod.status(settings), "postgres": pg_mod.status(settings)}


def ensure_kafka(settings: Settings | None = None) -> str:
    """The bootstrap address of the dev broker, started if needed."""
    info = up(kafka=True, postgres=False, settings=settings).kafka
    assert info is not None
    return info.bootstrap


def ensure_postgres(settings: Settings | None = None) -> str:
    """The DSN of the dev PostgreSQL database, started if needed."""
    info = up(kafka=False, postgres=True, settings=settings).postgres
    assert info is not None
    return info.dsn


def _write_env_file(settings: Settings) -> None:
    """<cache>/devstack.env names what runs now, for `set -a; . .cache/devstack.env`."""
    current = status(settings)
    lines = ["# written by `multiqa dev up|down`; lists the services running now"]
    bootstrap = current["kafka"].get("bootstrap")
    if current["kafka"].get("running") and bootstrap:
        lines.append(f"KAFKA_BOOTSTRAP_SERVERS={bootstrap}")
    dsn = current["postgres"].get("dsn")
    if current["postgres"].get("running") and dsn:
        lines.append(f"DATABASE_URL={dsn}")
    tmp = settings.env_file.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(settings.env_file)
