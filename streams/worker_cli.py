"""`multiqa worker`: run the stream's agents in one process.

    multiqa worker                                   # all-in-one: every reviewer, aggregator, sinks
    multiqa worker --reviewers critic --no-aggregator --no-sinks   # just the critic
    multiqa worker --reviewers none                  # aggregator (and sinks) only

Configuration comes from MULTIQA_* variables (streams.config), with the dev stack's broker and
database as fallbacks like every multiqa command; review settings from PostgreSQL's app_settings
when a database is configured (else the defaults). Before starting, the worker
creates the topics with the configured partitions (checking existing ones) and applies pending
database migrations. Also runnable as `python -m streams.worker`.
"""

# Only the parser is here, so building it imports nothing heavy; the worker itself is
# streams.worker, imported when the command runs.

from __future__ import annotations

import argparse
from typing import Any

from streams._command import bootstrap_option, dsn_option, lazy_command


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
    parser.set_defaults(func=lazy_command("streams.worker", "run_from_args"))
