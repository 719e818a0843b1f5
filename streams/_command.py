"""What every `multiqa` command shares: the `--bootstrap` / `--dsn` options and the configuration
they feed, the database connection, and how a failure reaches the operator.

A failure the operator can act on (a bad setting, a broker or database that does not answer, a
missing file) is ONE line `multiqa <command>: error: <reason>` on stderr and exit code 1, never a
traceback. Commands raise `CommandError` for their own refusals; `run_command` turns those and
the known failures of the parts below (Kafka, PostgreSQL, codec, configuration, settings, dev
stack) into that line.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import asyncpg
from aiokafka.errors import KafkaError

from agents.settings import SettingsError
from schemas import CodecError
from streams.client import BrokerUnavailableError
from streams.config import ConfigError, StreamConfig
from streams.db import MigrationError, create_pool
from streams.devstack import DevStackError
from streams.topics import TopicSetupError


class CommandError(Exception):
    """A failure explained in one line to the operator."""


# Failures whose str() already is the one line the operator needs.
_EXPLAINED: tuple[type[BaseException], ...] = (
    CommandError,
    BrokerUnavailableError,
    ConfigError,
    CodecError,
    DevStackError,
    MigrationError,
    SettingsError,
    TopicSetupError,
)


def print_error(prog: str, reason: object, *, code: int = 1) -> int:
    """Print `<prog>: error: <reason>` to stderr (argparse's form); returns `code`."""
    print(f"{prog}: error: {reason}", file=sys.stderr, flush=True)
    return code


def run_command(
    prog: str, command: Callable[[argparse.Namespace], Awaitable[int] | int]
) -> Callable[[argparse.Namespace], int]:
    """`command` as an argparse `func`: run it (in a fresh event loop when it is async) and turn
    the known failures into one line `<prog>: error: ...` and exit code 1; Ctrl-C exits 130.

    `prog` is the command as the operator typed it, e.g. "multiqa db migrate"."""

    def func(args: argparse.Namespace) -> int:
        # aiokafka logs every failed connection attempt itself; the one line below says it all.
        logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
        try:
            result = command(args)
            if isinstance(result, int):
                return result
            return asyncio.run(_awaited(result))
        except KeyboardInterrupt:
            return 130
        except _EXPLAINED as exc:
            reason = str(exc)
        except KafkaError as exc:
            reason = f"Kafka error: {exc}"
        except asyncpg.PostgresError as exc:
            reason = f"PostgreSQL error: {exc}"
        return print_error(prog, reason)

    return func


async def _awaited(awaitable: Awaitable[int]) -> int:
    return await awaitable


# --- where the broker and the database are -----------------------------------------------------


def bootstrap_option() -> argparse.ArgumentParser:
    """A parent parser adding `--bootstrap`, read by `discover_config`."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--bootstrap",
        metavar="HOST:PORT",
        help="Kafka bootstrap servers (default: MULTIQA_BOOTSTRAP_SERVERS, "
        "KAFKA_BOOTSTRAP_SERVERS, or the dev stack's)",
    )
    return parent


def dsn_option(purpose: str = "") -> argparse.ArgumentParser:
    """A parent parser adding `--dsn` (help: "PostgreSQL DSN <purpose>"), read by
    `discover_config`."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--dsn",
        metavar="URL",
        help=" ".join(filter(None, ("PostgreSQL DSN", purpose)))
        + " (default: MULTIQA_DATABASE_URL, DATABASE_URL, or the dev stack's)",
    )
    return parent


def discover_config(args: argparse.Namespace) -> StreamConfig:
    """`StreamConfig.discover` with the command's `--bootstrap` / `--dsn`, if it has them."""
    return StreamConfig.discover(
        bootstrap=getattr(args, "bootstrap", None), database_url=getattr(args, "dsn", None)
    )


def require_database(config: StreamConfig) -> str:
    """The configured DSN, or a `CommandError` saying how to configure one."""
    if not config.database_url:
        raise CommandError(
            "no database configured: pass --dsn, set MULTIQA_DATABASE_URL or DATABASE_URL, "
            "or start the dev stack with `multiqa dev up`"
        )
    return config.database_url


@asynccontextmanager
async def connect_database(dsn: str) -> AsyncIterator[asyncpg.Pool]:
    """A small pool on `dsn` for one command, closed afterwards. A server that does not answer
    within 15 s is a `CommandError` naming it (without the password)."""
    try:
        pool = await asyncio.wait_for(create_pool(dsn, min_size=1, max_size=2), 15)
    except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
        where = re.sub(r"//[^@/]*@", "//", dsn)  # never print a password
        raise CommandError(
            f"cannot reach PostgreSQL at {where}: {str(exc) or type(exc).__name__}"
        ) from exc
    try:
        yield pool
    finally:
        await pool.close()
