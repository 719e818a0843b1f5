"""The parser of `multiqa rescore` (the command is streams.cli.replay.rescore_command, imported
when it runs: Kafka clients and the aggregation are not needed to print `--help`)."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable
from typing import Any

from agents.settings_check import validate_value
from streams.cli._command import bootstrap_option, dsn_option, parse_overrides, run_command


def _rescore(args: argparse.Namespace) -> Awaitable[int]:
    # Every --set is checked (the one settings validator) before Kafka clients are even loaded.
    for key, value in parse_overrides(args.set or ()).items():
        validate_value(key, value)
    from streams.cli.replay import rescore_command

    return rescore_command(args)


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= jobs <= 64:
        raise argparse.ArgumentTypeError(f"must be between 1 and 64, got {jobs}")
    return jobs


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rescore",
        parents=[bootstrap_option(), dsn_option("for the current settings")],
        help="re-decide past drafts from their recorded reviews under other settings",
        description=(
            "Read qa.decisions and qa.reviews from the beginning and re-run the aggregation on "
            "each decision's evidence with the current settings (from PostgreSQL, or the "
            "defaults with --defaults) plus --set overrides. Reports what would change."
        ),
    )
    parser.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="a setting to try (repeatable)"
    )
    parser.add_argument(
        "--defaults", action="store_true", help="start from default settings, not the database"
    )
    parser.add_argument("--publish", metavar="TOPIC", help="also publish re-scored decisions here")
    parser.add_argument("--show", type=int, default=20, help="changed drafts listed (20)")
    parser.add_argument("--json", action="store_true", help="JSON lines: items, then a summary")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=0,
        metavar="N",
        help="processes reading and re-scoring a share of the partitions each "
        "(default: one per CPU core this process may use, at most 8)",
    )
    parser.set_defaults(func=run_command("multiqa rescore", _rescore))
