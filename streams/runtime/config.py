"""Where the stream runs and how it is wired: broker, topic names, partitions, consumer groups,
timeouts. One frozen `StreamConfig`, read from `MULTIQA_*` environment variables with defaults that
work against the local dev stack (`multiqa dev up`).

Every field `name` is read from the variable `MULTIQA_<NAME>` (upper case), e.g.
`MULTIQA_BOOTSTRAP_SERVERS`, `MULTIQA_DRAFTS_TOPIC`, `MULTIQA_PARTITIONS`. A value that does not
parse, or is out of range, raises `ConfigError` naming the variable. Command-line tools use
`StreamConfig.discover`, which also finds the local dev stack's broker and database.

Review settings (weights, thresholds, `qa_aggregate_timeout_seconds`) are NOT here: they live in
`agents.settings.Settings` (and `app_settings` in PostgreSQL). This is plumbing only.

Consumer groups. Faust gives one consumer group per `faust.App` (the app id is the group id), so
multiqa runs one app per role, each with its own group: `<app_prefix>-reviewer-<name>` for each
reviewer, `<app_prefix>-aggregator`, `<app_prefix>-sinks`. Every worker that runs a role joins
that role's group, whichever other roles it runs, so `multiqa worker --reviewers critic` on a GPU
box and an all-in-one `multiqa worker` share the critic's partitions instead of both reviewing.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schemas import Limits

from agents.values import parse_value, split_list
from schemas import OperatorError

log = logging.getLogger(__name__)
# The source label of a value read from the dev stack's file (replaced by one naming the file).
_DEV_STACK = "the dev stack"

ENV_PREFIX = "MULTIQA_"


def env_variable(field: str) -> str:
    """The environment variable of a StreamConfig field: MULTIQA_<FIELD>."""
    return ENV_PREFIX + field.upper()


class ConfigError(OperatorError, ValueError):
    """A MULTIQA_* variable has a value of the wrong type or outside its range."""


@dataclass(frozen=True)
class StreamConfig:
    # --- broker -----------------------------------------------------------------------------
    bootstrap_servers: str = "127.0.0.1:19092"
    """Comma-separated host:port list of Kafka brokers (default: the dev stack's broker)."""
    app_prefix: str = "multiqa"
    """Prefix of every Faust app id, hence of consumer group ids and changelog topic names."""

    # --- topics (all keyed by draft_id) ------------------------------------------------------
    drafts_topic: str = "qa.drafts"
    reviews_topic: str = "qa.reviews"
    decisions_topic: str = "qa.decisions"
    dead_letters_topic: str = "qa.dead-letters"
    partitions: int = 6
    """Partitions of every multiqa topic (and of the aggregator's changelog). The unit of
    parallelism: at most this many workers of one role share the load."""
    replication_factor: int = 1
    max_draft_bytes: int = 2 * 1024 * 1024
    """Largest draft content (UTF-8 bytes) a writer may submit and the stream accepts (2 MiB, the
    contract's default); writers and workers must agree. Kafka's limits follow from it:
    producers' max_request_size, consumers' fetch size and the topics' max.message.bytes (set
    when multiqa creates them) are `max_message_bytes`."""

    # --- roles -------------------------------------------------------------------------------
    reviewers: str = ""
    """Comma-separated reviewers deployed in the whole system (empty: every reviewer in
    agents.registry). The aggregator expects an answer only from reviewers that are both
    deployed and enabled in the settings in force when the draft arrives."""
    reviewer_concurrency: int = 8
    """Drafts one reviewer agent reviews at the same time in one worker."""

    # --- aggregator --------------------------------------------------------------------------
    aggregator_tick_seconds: float = 1.0
    """How often the aggregator's wall-clock timer looks for passed deadlines."""
    aggregate_timeout_seconds: float = 0.0
    """Overrides the settings' qa_aggregate_timeout_seconds when > 0 (tests, demos)."""
    decided_retention_seconds: float = 7 * 24 * 3600.0
    """How long a decided draft version stays in the table, so duplicate and late results are
    recognised as such. After that, the entry is dropped from the table."""
    aggregator_flush_seconds: float = 0.01
    """How long the aggregator lets table changes gather before a flush writes them (a decision
    waits this long longer; a draft's entry is written about once instead of once per result)."""
    table_store: str = "memory://"
    """Faust table store: memory:// (rebuilt from the changelog at start) or rocksdb://."""

    # --- database (sinks, settings, audit) ---------------------------------------------------
    database_url: str = ""
    """PostgreSQL DSN; empty: no database (no sinks, default settings, no audit)."""

    # --- consumer group timing ---------------------------------------------------------------
    broker_session_timeout: float = 30.0
    broker_heartbeat_interval: float = 3.0
    broker_rebalance_timeout: float = 30.0
    broker_request_timeout: float = 40.0
    broker_commit_interval: float = 1.0
    broker_linger: float = 0.005
    """How long the worker's one producer lets writes gather into a request (seconds)."""
    broker_fetch_wait: float = 1.5
    """Longest the broker holds a fetch with no new data (seconds; 1.5: what Faust uses). A short
    wait bounds how long a record waits behind a fetch already in flight
    (streams.runtime._fetch), but every idle wait costs an empty fetch: measured on this
    machine's shared 2 cores, 0.02 made paced latency worse, not better (docs/faust.md)."""

    # --- process -----------------------------------------------------------------------------
    datadir: str = ".cache/faust"
    """Faust's data directory (one sub-folder per app); RocksDB tables live here."""
    web_port: int = 0
    """Port of the aggregator app's Faust web server (table view); 0: no web server."""
    web_host: str = "127.0.0.1"

    # --- operations (streams.runtime.observe, streams.ui)
    # ---------------------------------------------
    ops_port: int = 9464
    """Port of the worker's /metrics, /healthz and /readyz; 0: no such endpoint."""
    ops_host: str = "127.0.0.1"
    """Address the operations endpoint binds (0.0.0.0 in a container, for the probes)."""
    ui: bool = False
    """Also serve the decisions pages on the operations endpoint (workers running the sinks)."""
    trace_url: str = ""
    """Link of a trace viewer for a decision's trace id, e.g.
    http://localhost:16686/trace/{trace_id} (Jaeger); empty: the id is shown without a link."""

    def __post_init__(self) -> None:
        _check(self.partitions >= 1, "partitions", self.partitions, "must be >= 1")
        _check(self.replication_factor >= 1, "replication_factor", self.replication_factor, ">= 1")
        _check(self.reviewer_concurrency >= 1, "reviewer_concurrency", self.reviewer_concurrency)
        _check(
            self.aggregator_tick_seconds > 0,
            "aggregator_tick_seconds",
            self.aggregator_tick_seconds,
        )
        _check(
            self.aggregate_timeout_seconds >= 0,
            "aggregate_timeout_seconds",
            self.aggregate_timeout_seconds,
        )
        _check(
            self.decided_retention_seconds > 0,
            "decided_retention_seconds",
            self.decided_retention_seconds,
        )
        _check(0 <= self.web_port < 65536, "web_port", self.web_port)
        _check(
            1024 <= self.max_draft_bytes <= 64 * 1024 * 1024,
            "max_draft_bytes",
            self.max_draft_bytes,
            "must be between 1024 and 67108864 (64 MiB)",
        )
        _check(0 <= self.ops_port < 65536, "ops_port", self.ops_port)
        _check(
            not self.trace_url or "{trace_id}" in self.trace_url,
            "trace_url",
            self.trace_url,
            "must contain {trace_id}",
        )
        for name in (
            "broker_session_timeout",
            "broker_heartbeat_interval",
            "broker_rebalance_timeout",
            "broker_request_timeout",
            "broker_commit_interval",
            "broker_fetch_wait",
        ):
            _check(getattr(self, name) > 0, name, getattr(self, name))
        for name in ("broker_linger", "aggregator_flush_seconds"):
            _check(0 <= getattr(self, name) <= 1, name, getattr(self, name), "must be 0-1 s")
        _check(bool(self.bootstrap_servers.strip()), "bootstrap_servers", self.bootstrap_servers)
        problem = _bootstrap(self.bootstrap_servers)
        _check(not problem, "bootstrap_servers", self.bootstrap_servers, problem or "")
        problem = _dsn(self.database_url) if self.database_url else None
        _check(not problem, "database_url", _masked(self.database_url), problem or "")
        _check(bool(self.app_prefix.strip()), "app_prefix", self.app_prefix)
        topics = self.topic_names()
        _check(all(topics), "topics", topics, "topic names must not be empty")
        _check(len(set(topics)) == len(topics), "topics", topics, "topic names must differ")

    # --- construction --------------------------------------------------------------------------
    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> StreamConfig:
        """Defaults, then MULTIQA_* variables, then keyword overrides."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = env.get(env_variable(f.name))
            if raw is not None:
                values[f.name] = _parse(f.name, f.default, raw)
        values.update(overrides)
        try:
            return cls(**values)
        except ConfigError:
            raise
        except TypeError as exc:
            raise ConfigError(str(exc)) from None

    @classmethod
    def discover(
        cls, bootstrap: str | None = None, database_url: str | None = None
    ) -> StreamConfig:
        """The configuration of a command-line tool (`multiqa ...`), which should find a local
        dev stack without being told. For the broker and for the database, the first value set
        (an empty string counts as not set) of:

        1. the arguments (a command's `--bootstrap` / `--dsn`);
        2. `MULTIQA_BOOTSTRAP_SERVERS` / `MULTIQA_DATABASE_URL`;
        3. `KAFKA_BOOTSTRAP_SERVERS` / `DATABASE_URL` (the dev stack's names, also the tests');
        4. those names in the `devstack.env` that `multiqa dev up` writes, read only from
           MULTIQA_CACHE_DIR or the source checkout multiqa runs from (`_devstack_env_file`),
           and named with its path (logged at info, and in any error about the value);

        else the default (the dev stack's broker address; no database). Every other field is
        read as by `from_env`.
        """
        env = os.environ
        found: dict[str, Any] = {}
        dev: list[tuple[Path | None, dict[str, str]]] = []  # read once, and only if needed

        def dev_stack(name: str) -> str | None:
            if not dev:
                path = _devstack_env_file()
                dev.append((path, _devstack_variables(path)))
            return dev[0][1].get(name)

        for field, option, argument, name, check in (
            ("bootstrap_servers", "--bootstrap", bootstrap, "KAFKA_BOOTSTRAP_SERVERS", _bootstrap),
            ("database_url", "--dsn", database_url, "DATABASE_URL", _dsn),
        ):
            sources = (
                (option, lambda argument=argument: argument),
                (env_variable(field), lambda field=field: env.get(env_variable(field))),
                (name, lambda name=name: env.get(name)),
                (_DEV_STACK, lambda name=name: dev_stack(name)),
            )
            for source, read in sources:
                value = read()
                if value:
                    if source == _DEV_STACK:  # say which file: it is not the user's own setting
                        source = f"{name} of the dev stack ({dev[0][0]})"
                        log.info("%s", f"{source}: {_masked(value)}")
                    # A malformed value is named with where it came from, in one line.
                    problem = check(value)
                    if problem:
                        raise ConfigError(f"{source} {_masked(value)!r} {problem}")
                    found[field] = value
                    break
        return cls.from_env(**found)

    def to_env(self) -> dict[str, str]:
        """Every field as its MULTIQA_* variable: what `from_env` reads back as this config (for
        a worker subprocess)."""
        return {env_variable(f.name): str(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def with_overrides(self, **changes: Any) -> StreamConfig:
        return dataclasses.replace(self, **changes)

    # --- derived -------------------------------------------------------------------------------
    def topic_names(self) -> tuple[str, str, str, str]:
        return (
            self.drafts_topic,
            self.reviews_topic,
            self.decisions_topic,
            self.dead_letters_topic,
        )

    def limits(self) -> Limits:
        """The codec's size limits for these drafts: content up to `max_draft_bytes`, a whole
        event up to twice that (title, sources, headers of an otherwise small record)."""
        from schemas import Limits

        return Limits(
            max_content_bytes=self.max_draft_bytes, max_payload_bytes=2 * self.max_draft_bytes
        )

    @property
    def max_message_bytes(self) -> int:
        """The largest Kafka message multiqa sends: a whole event plus record overhead."""
        return 2 * self.max_draft_bytes + 64 * 1024

    def broker_url(self) -> str:
        """Faust's broker argument: kafka://host:port[;kafka://host:port...]."""
        hosts = split_list(self.bootstrap_servers)
        return ";".join(h if "://" in h else f"kafka://{h}" for h in hosts)

    def group_id(self, role: str) -> str:
        """Faust app id == Kafka consumer group of a role ("aggregator", "sinks", ...)."""
        return f"{self.app_prefix}-{role}"

    def reviewer_group_id(self, reviewer: str) -> str:
        return self.group_id(f"reviewer-{reviewer}")

    @property
    def aggregator_group_id(self) -> str:
        return self.group_id("aggregator")

    @property
    def sinks_group_id(self) -> str:
        return self.group_id("sinks")

    @property
    def deadlines_topic(self) -> str:
        """The aggregator's own topic of deadline nudges from its timer (see
        streams.runtime.aggregator)."""
        return f"{self.aggregator_group_id}-deadlines"

    @property
    def changelog_topic(self) -> str:
        """The changelog of the aggregator's table ("drafts"), named after the deployment, not
        the app id (which names a worker's role set). Created by
        `streams.runtime.topics.ensure_topics`."""
        return f"{self.aggregator_group_id}-drafts-changelog"

    def deployed_reviewers(self) -> tuple[str, ...] | None:
        """The `reviewers` roster as names, or None for "every registered reviewer"."""
        names = tuple(split_list(self.reviewers))
        return names or None


def _devstack_env_file() -> Path | None:
    """The `devstack.env` that `multiqa dev up` wrote, where a command may read it: under
    MULTIQA_CACHE_DIR when that is set (an explicit choice), else in the source checkout (the
    one multiqa runs from, or the working directory if it is a multiqa checkout: where `multiqa
    dev up` writes it). Never in any other working directory: a `.cache/devstack.env` there is
    whatever some other project left, not this user's stack. None when there is none to read (or
    its location is misconfigured)."""
    from streams.devstack import Settings  # only here: the stream does not need the launchers
    from streams.devstack._common import source_checkout

    if not os.environ.get("MULTIQA_CACHE_DIR", "").strip() and source_checkout() is None:
        return None
    try:
        return Settings.from_env().env_file
    except RuntimeError:  # DevStackError from a bad MULTIQA_* variable
        return None


def _devstack_variables(path: Path | None) -> dict[str, str]:
    """KEY=VALUE lines of the dev stack's `devstack.env` at `path` (nothing when absent)."""
    if path is None:
        return {}
    try:
        text = path.read_text()
    except OSError:
        return {}
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {k.strip(): v.strip() for k, v in pairs if not k.lstrip().startswith("#")}


def _bootstrap(text: str) -> str | None:
    """Why `text` is not a list of Kafka brokers (host:port[,host:port]), or None."""
    # Not agents.values.split_list: an empty item here ("a:1,,b:2") is an error to report.
    hosts = [h.strip() for h in text.split(",")]
    for host in hosts:
        address = host.split("://", 1)[1] if "://" in host else host
        name, sep, port = address.rpartition(":")
        if not host or not sep or not name or any(c.isspace() for c in address):
            return "is not a Kafka address: expected host:port, comma-separated for several"
        if not port.isdigit() or not 0 < int(port) < 65536:
            return f"is not a Kafka address: port {port!r} is not a number in 1-65535"
    return None


def _dsn(text: str) -> str | None:
    """Why `text` is not a PostgreSQL URL asyncpg can use, or None."""
    from urllib.parse import urlsplit

    parts = urlsplit(text.strip())
    if parts.scheme not in ("postgresql", "postgres"):
        return "is not a PostgreSQL URL: expected postgresql://user:password@host:port/database"
    try:
        port = parts.port
    except ValueError:
        return "is not a PostgreSQL URL: its port is not a number in 0-65535"
    if port == 0 or any(c.isspace() for c in text.strip()):
        return "is not a PostgreSQL URL: expected postgresql://user:password@host:port/database"
    return None  # no host is libpq's default (PGHOST, the local socket), as asyncpg reads it


def _masked(dsn: str) -> str:
    """`dsn` without its password (for messages)."""
    import re

    return re.sub(r"(//[^:/@]*):[^@/]*@", r"\1:***@", dsn)


def _check(ok: bool, name: str, value: Any, why: str = "is out of range") -> None:
    if not ok:
        raise ConfigError(f"{env_variable(name)}={value!r} {why}")


def _parse(name: str, default: Any, raw: str) -> Any:
    text = raw.strip()
    try:
        return parse_value(text, default)
    except ValueError as exc:
        raise ConfigError(f"{env_variable(name)}={raw!r} {exc}") from None
