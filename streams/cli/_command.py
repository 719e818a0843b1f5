"""What every `multiqa` command shares: the `--bootstrap` / `--dsn` options and the configuration
they feed, the database connection, and how a failure reaches the operator.

A failure the operator can act on (a bad setting, a broker or database that does not answer, a
missing file) is ONE line `multiqa <command>: error: <reason>` on stderr and exit code 1, never a
traceback. Such failures are `schemas.OperatorError`s wherever they are raised (the tree is drawn
in schemas._errors); commands raise `CommandError` for their own refusals. `run_command` turns
every OperatorError, a record that does not encode (CodecError) and the client libraries' Kafka
and PostgreSQL errors into that line; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from schemas._errors import CodecError, OperatorError  # light: schemas loads its codec lazily
from streams.runtime.config import StreamConfig

if TYPE_CHECKING:
    import asyncpg

# Nothing heavy is imported at module level: every `multiqa` command module imports this one, and
# building the whole parser (`multiqa --help`, a bad option, a missing file) must stay within
# 0.5 s (bench/bench_cli_startup.py). Kafka, PostgreSQL, Faust and the model SDKs load when a
# command runs.


class CommandError(OperatorError):
    """A failure explained in one line to the operator."""


# Failures whose str() already is the one line the operator needs: every OperatorError (a new
# one needs no entry here) and a record that does not encode.
_EXPLAINED = (OperatorError, CodecError)
# Failures of the client libraries, prefixed with what failed; as (module, class), looked up in
# sys.modules when a failure happens, so that neither library is imported to build the parser.
_PREFIXED = (
    ("aiokafka.errors", "KafkaError", "Kafka error"),
    ("asyncpg", "PostgresError", "PostgreSQL error"),
)


def _loaded_class(module: str, name: str) -> type[BaseException] | None:
    found = getattr(sys.modules.get(module), name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def explain(exc: BaseException) -> str | None:
    """The one line for a failure multiqa knows how to explain, None for anything else."""
    if isinstance(exc, _EXPLAINED):
        return str(exc)
    for module, name, prefix in _PREFIXED:
        cls = _loaded_class(module, name)
        if cls is not None and isinstance(exc, cls):
            return f"{prefix}: {exc}"
    return None


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
            import asyncio

            return asyncio.run(_awaited(result))
        except KeyboardInterrupt:
            return 130
        except Exception as exc:
            reason = explain(exc)
            if reason is None:
                raise  # a bug: its traceback is what a report needs
        return print_error(prog, reason)

    return func


async def _awaited(awaitable: Awaitable[int]) -> int:
    return await awaitable


def lazy_command(module: str, name: str) -> Callable[[argparse.Namespace], Awaitable[int] | int]:
    """The command `module.name`, imported when it runs: a command's parser can then live in a
    light module while its implementation pulls in Kafka, Faust or a model SDK."""

    def command(args: argparse.Namespace) -> Awaitable[int] | int:
        result: Awaitable[int] | int = getattr(importlib.import_module(module), name)(args)
        return result

    return command


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
    import asyncio

    import asyncpg

    from streams.runtime.db import create_pool

    try:
        pool = await asyncio.wait_for(create_pool(dsn, min_size=1, max_size=2), 15)
    except (
        OSError,
        TimeoutError,
        ValueError,
        asyncpg.PostgresError,
        asyncpg.InterfaceError,
    ) as exc:
        # ValueError/InterfaceError: a DSN asyncpg cannot use (discover_config checks the shape).
        where = re.sub(r"//[^@/]*@", "//", dsn)  # never print a password
        raise CommandError(
            f"cannot reach PostgreSQL at {where}: {str(exc) or type(exc).__name__}"
        ) from exc
    try:
        yield pool
    finally:
        await pool.close()


def parse_overrides(pairs: Sequence[str]) -> dict[str, str]:
    """`--set KEY=VALUE` pairs as a mapping (SettingsError for one that is not KEY=VALUE)."""
    from agents.settings import SettingsError  # here: this module stays light

    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SettingsError(f"--set {pair!r}: expected KEY=VALUE")
        values[key.strip()] = value
    return values
