"""The `multiqa worker` command's parser, kept apart from streams.cli.worker so that building the
CLI's parser imports no Faust or Kafka (the command itself is described in streams.cli.worker)."""

# Only the parser is here, so building it imports nothing heavy; the worker itself is
# streams.cli.worker, imported when the command runs.

from __future__ import annotations

import argparse
from typing import Any

from streams.cli._command import bootstrap_option, dsn_option, lazy_command


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "worker",
        parents=[bootstrap_option(), dsn_option("(settings, sinks, audit)")],
        help="run the stream: reviewer agents, aggregator, sinks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--reviewers",
        metavar="NAMES",
        help="comma-separated reviewers to run here, or 'none' (default: every deployed reviewer)",
    )
    parser.add_argument(
        "--no-aggregator", action="store_true", help="do not run the aggregator here"
    )
    parser.add_argument("--no-sinks", action="store_true", help="do not run the sinks here")
    parser.add_argument("--loglevel", default="info", help="debug, info, warning, error")
    parser.set_defaults(func=lazy_command("streams.cli.worker", "run_from_args"))
