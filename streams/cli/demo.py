"""The README's demo (`make demo`, or `python -m streams.cli.demo`): the whole stream on this
machine.

1. takes the demo lock of the cache dir (a second demo at once is refused in one line), starts
   (or reuses) the local Kafka broker and PostgreSQL server, applies the migrations before it
   reads anything;
2. serves a few pages from a local HTTP server, and allowlists 127.0.0.1 in the URL guard
   (`qa_url_allowlist`) for the demo, since the guard refuses loopback addresses otherwise;
3. starts an all-in-one `multiqa worker` as a subprocess (every reviewer, the aggregator, sinks);
4. once every consumer group of the worker is stable (asked of the broker: nothing is sent to
   it first, so a worker that never gets ready leaves nothing behind), submits three drafts as
   the writer service would: a clean one (alone, first: it warms every reviewer up), then one
   with a fabricated statistic and one citing a page of the local server that answers 404;
5. prints each decision and its feedback as it arrives on qa.decisions, then what the sinks wrote
   to PostgreSQL;
6. stops the worker and the HTTP server and restores the setting, whatever happened (Ctrl-C and
   SIGTERM included). Every failure is one line `demo: error: ...`, exit 1.

Without an Ollama server on 127.0.0.1:11434 the LLM reviewers (critic, consistency, topic
delivery) skip and each decision says "validator-only". The stack keeps running afterwards, as
after `multiqa dev up`: `multiqa decisions`, `multiqa status DRAFT_ID` and SQL show the results.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aiokafka import TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from schemas import DraftSubmitted, QADecision
from streams.cli._command import CommandError, connect_database, run_command
from streams.cli.ops import format_decision
from streams.client import DecisionTail, DraftSubmitter
from streams.runtime import _layout as layout
from streams.runtime.config import StreamConfig

ALLOWLIST_KEY = "qa_url_allowlist"


class _Pages(BaseHTTPRequestHandler):
    """/docs/... answers 200 with a small page, except /docs/retired-...: 404, a dead link."""

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, *, body: bool) -> None:
        alive = self.path.startswith("/docs/") and "/retired-" not in self.path
        payload = b"<html><body><p>multiqa demo page</p></body></html>" if alive else b"gone"
        self.send_response(200 if alive else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if body:
            self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep the demo's output readable


@contextmanager
def local_pages() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, name="demo-pages", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def sample_drafts(pages: str, run: str) -> list[DraftSubmitted]:
    """The three demo drafts (ids unique per run, so each run is reviewed afresh)."""
    clean = f"""# Keeping a Python project's dependencies reproducible

A project that installs cleanly today can fail next month when a dependency publishes a release
that changes its behaviour. Pinning versions keeps installs repeatable, and a lock file records
the exact versions that were tested together.

## Pin what you test

List direct dependencies with compatible version ranges in `pyproject.toml`, then generate a lock
file from them. Commit the lock file, and let the continuous integration job install from it so
that every run tests the same set of packages. The [packaging guide]({pages}/docs/packaging) walks
through both files.

## Update on purpose

Refresh the lock file on a schedule, run the tests, and review the changes like any other code
change. When an update breaks something, the diff of the lock file shows which package moved.

## Ranges and locks together

Version ranges describe what the project supports; the lock file records what was tested. Keeping
both in the repository makes installs predictable and upgrades deliberate.
"""
    statistic = """# Why lock files matter

A 2024 study by the Institute for Software Reliability found a 47% increase in failed builds
among teams that do not use lock files. Pinning versions keeps installs repeatable, and a lock
file records the exact versions that were tested together.

## Pin what you test

Commit the lock file and let the continuous integration job install from it, so that every run
tests the same set of packages.
"""
    dead_link = f"""# Reading a Python traceback

A traceback lists the calls that were active when an exception was raised, oldest first. The last
line names the exception type and its message, which is usually the best place to start.

## Follow the frames

Each frame shows a file, a line number and the function that was running. Read from the bottom up
until you reach code from your own project; that frame is where the investigation begins. The
[old debugging guide]({pages}/docs/retired-debugging-guide) covered this in more detail.

## Where to start

Start at the last line, then walk up the frames to your own code.
"""
    specs = [
        ("clean", "Keeping a Python project's dependencies reproducible", clean, "dependencies"),
        ("statistic", "Why lock files matter", statistic, "lock files"),
        ("dead-link", "Reading a Python traceback", dead_link, "Python tracebacks"),
    ]
    return [
        DraftSubmitted(
            draft_id=f"demo-{run}-{name}",
            version=1,
            title=title,
            content=content,
            task_id=f"demo-task-{run}-{name}",
            topic=topic,
        )
        for name, title, content, topic in specs
    ]


def config_env(config: StreamConfig) -> dict[str, str]:
    """os.environ plus `config` as MULTIQA_* variables: what a worker subprocess reads."""
    return {**os.environ, **config.to_env()}


def _start_worker(config: StreamConfig, log_path: Path) -> subprocess.Popen[bytes]:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log_file:
        return subprocess.Popen(
            # info: the worker's log then holds its one "worker ready" line (roles, broker,
            # database) and what went wrong; the chatter below WARNING is filtered (worker_log).
            [sys.executable, "-m", "streams.cli", "worker", "--loglevel", "info"],
            env=config_env(config),
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in the terminal reaches the demo, which stops it
        )


def multiqa_command() -> str:
    """How the user runs `multiqa` from here: plain `multiqa` when that is the one on PATH (an
    activated .venv), else this interpreter's script as a path (`.venv/bin/multiqa` after `make
    demo`, which does not touch PATH)."""
    script = Path(sys.prefix) / "bin" / "multiqa"
    on_path = shutil.which("multiqa")
    if on_path and Path(on_path).resolve() == script.resolve():
        return "multiqa"
    if not script.exists():
        return f"{sys.executable} -m streams.cli"
    relative = os.path.relpath(script)
    return relative if not relative.startswith("..") else str(script)


def _stop_worker(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is not None:
        return
    worker.send_signal(signal.SIGTERM)  # Faust stops cleanly: commits, leaves its groups
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


async def _persisted(pool: Any, drafts: list[DraftSubmitted], within: float) -> list[Any]:
    """The decision rows of `drafts`, once the sinks wrote them all (or what is there after
    `within` seconds)."""
    ids = [d.draft_id for d in drafts]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        rows: list[Any] = await pool.fetch(
            "SELECT d.draft_id, d.approved, d.final_score, t.qa_feedback IS NOT NULL AS feedback,"
            " (SELECT count(*) FROM qa_reviews r WHERE r.draft_id = d.draft_id) AS reviews,"
            " (SELECT count(*) FROM cost_logs c WHERE c.draft_id = d.draft_id) AS costs"
            " FROM qa_decisions d LEFT JOIN pipeline_tasks t ON t.task_id = d.task_id"
            " WHERE d.draft_id = ANY($1::text[]) ORDER BY d.draft_id",
            ids,
        )
        if len(rows) == len(ids) or loop.time() > deadline:
            return rows
        await asyncio.sleep(0.5)


@contextmanager
def demo_lock(cache_dir: Path) -> Iterator[None]:
    """One demo at a time per cache dir: a second one would share the worker's consumer groups
    and restore `qa_url_allowlist` under the first one's feet. Refused in one line, naming the
    running one's pid; the kernel drops the lock when its holder dies."""
    path = cache_dir / "demo" / "demo.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "?"
            raise CommandError(
                f"another demo is running (pid {holder}, lock {path}); wait for it to finish "
                "or stop it, then run again"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def worker_groups(config: StreamConfig) -> list[str]:
    """The consumer groups an all-in-one worker joins: one, named by its roles
    (streams.runtime._layout)."""
    from streams.runtime.app import resolve_reviewers

    reviewers = [spec.name for spec in resolve_reviewers(config)]
    sinks = bool(config.database_url)
    return [layout.group_id(config, layout.roles(reviewers, aggregator=True, sinks=sinks))]


async def run_demo(wait_seconds: float) -> int:
    from streams import devstack

    cache_dir = devstack.Settings.from_env().cache_dir
    with demo_lock(cache_dir):
        return await _run_demo(wait_seconds, cache_dir)


async def _run_demo(wait_seconds: float, cache_dir: Path) -> int:
    from agents.settings_service import SettingsService
    from streams import devstack
    from streams.runtime.db import migrate
    from streams.runtime.topics import ensure_topics

    print("1. starting the local stack (Kafka + PostgreSQL) ...", flush=True)
    info = await asyncio.to_thread(devstack.up)
    assert info.kafka is not None and info.postgres is not None
    config = StreamConfig.from_env(
        bootstrap_servers=info.kafka.bootstrap,
        database_url=info.postgres.dsn,
        # Decide within a minute even if a reviewer hangs; short group timings for a quick start.
        aggregate_timeout_seconds=60.0,
        broker_session_timeout=10.0,
        broker_heartbeat_interval=1.0,
        broker_rebalance_timeout=10.0,
        # The demo's worker needs no /metrics port of its own (9464 may be another worker's).
        ops_port=0,
    )
    print(f"   kafka {config.bootstrap_servers}, postgres {info.postgres.dsn}", flush=True)
    async with connect_database(config.database_url) as pool:
        # Migrations first: everything below reads tables they create (app_settings, ...).
        applied = await migrate(pool)
        if applied:
            print(f"   applied migrations {', '.join(f'{v:03d}' for v in applied)}", flush=True)
        await ensure_topics(config)
        service = SettingsService(pool, ttl_seconds=0)
        previous = (await service.overrides()).get(ALLOWLIST_KEY)
        worker: subprocess.Popen[bytes] | None = None
        log_path = cache_dir / "demo" / "worker.log"
        changed = False
        try:
            with local_pages() as pages:
                allow = ",".join(p for p in ((previous or ""), "127.0.0.1") if p)
                await service.set(ALLOWLIST_KEY, allow)
                changed = True
                print(f"2. serving demo pages at {pages} ({ALLOWLIST_KEY}={allow} for the demo)")
                worker = _start_worker(config, log_path)
                print(f"3. started an all-in-one worker (pid {worker.pid}, log {log_path})")
                drafts = sample_drafts(pages, uuid.uuid4().hex[:8])
                await _submit_and_wait(config, drafts, worker, wait_seconds, log_path)
            rows = await _persisted(pool, drafts, within=60)
            print(
                "\n5. persisted by the sinks (qa_decisions, pipeline_tasks.qa_feedback, "
                "qa_reviews, cost_logs):"
            )
            for row in rows:
                verdict = "approved" if row["approved"] else "rejected"
                print(
                    f"   {row['draft_id']:<28} {verdict:<8} {row['final_score']:5.1f}  "
                    f"feedback={'yes' if row['feedback'] else 'no'}  reviews={row['reviews']}  "
                    f"costs={row['costs']}"
                )
            if len(rows) < len(drafts):
                print(
                    f"   ({len(drafts) - len(rows)} decision(s) not persisted yet; see {log_path})"
                )
            mq = multiqa_command()
            print(
                f"\nLook further: {mq} decisions | {mq} status "
                f"{drafts[0].draft_id} | psql {info.postgres.dsn}\n"
                f"The stack keeps running; stop it with: {mq} dev down"
            )
            return 0
        finally:
            if worker is not None:
                print("6. stopping the worker ...", flush=True)
                await asyncio.to_thread(_stop_worker, worker)
            if changed:
                if previous is None:
                    await service.unset(ALLOWLIST_KEY)
                else:
                    await service.set(ALLOWLIST_KEY, previous)


async def wait_until_ready(
    config: StreamConfig,
    tail: DecisionTail,
    submitter: DraftSubmitter,
    reviewers: list[str],
    *,
    within: float,
    alive: Callable[[], bool] = lambda: True,
    probe_id: str | None = None,
) -> bool:
    """Submit a warm-up draft and wait until every named reviewer's consumer group has committed
    past it and its decision is out: a worker's groups have all joined, so what is submitted next
    meets a running stream (and, in the demo, prints in the usual order, validator first, not in
    group-join order). False when `alive()` turns false or `within` seconds pass."""
    probe = DraftSubmitted(
        draft_id=probe_id or f"warmup-{uuid.uuid4().hex[:12]}",
        version=1,
        title="Warm-up",
        content="A warm-up draft.\n",
    )
    landed = await submitter.submit(probe)
    tp = TopicPartition(landed.topic, landed.partition)
    admin = AIOKafkaAdminClient(bootstrap_servers=config.bootstrap_servers)
    await admin.start()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    try:
        # The all-in-one worker's one consumer group (streams.runtime._layout).
        waiting = {
            layout.group_id(
                config, layout.roles(reviewers, aggregator=True, sinks=bool(config.database_url))
            )
        }
        while waiting:
            if not alive() or loop.time() > deadline:
                return False
            for group in list(waiting):
                offsets = await admin.list_consumer_group_offsets(group, partitions=[tp])
                if offsets[tp].offset > landed.offset:
                    waiting.discard(group)
            await asyncio.sleep(0.5)
    finally:
        await admin.close()
    left = max(1.0, deadline - loop.time())
    return await tail.wait_for(probe.draft_id, probe.version, within=left) is not None


async def _submit_and_wait(
    config: StreamConfig,
    drafts: list[DraftSubmitted],
    worker: subprocess.Popen[bytes],
    wait_seconds: float,
    log_path: Path,
) -> list[QADecision]:
    """Wait until the worker's consumer groups are all stable (nothing is submitted before: a
    worker that never gets ready leaves no draft behind), then submit the drafts and print each
    decision as it arrives. A failure is a CommandError (one line)."""
    from streams.runtime._groups import GroupsNotReadyError, wait_for_stable_groups

    print("   waiting for every consumer group of the worker to join ...", flush=True)
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        await wait_for_stable_groups(
            config.bootstrap_servers,
            worker_groups(config),
            within=wait_seconds,
            alive=lambda: worker.poll() is None,
        )
    except GroupsNotReadyError as exc:
        raise CommandError(f"the worker did not get ready: {exc}; see {log_path}") from None
    print(f"   ready after {loop.time() - started:.1f} s", flush=True)
    async with (
        DecisionTail(config.bootstrap_servers, topic=config.decisions_topic) as tail,
        DraftSubmitter(config.bootstrap_servers, topic=config.drafts_topic) as submitter,
    ):
        # The clean draft first, alone: every reviewer answers it (no veto decides it early), so
        # once its decision is out every reviewer has run once, and the other two meet a warm
        # stream (a dead link's veto then never outruns a validator still starting up).
        found = await _review(tail, submitter, drafts[:1], worker, wait_seconds, log_path)
        found += await _review(tail, submitter, drafts[1:], worker, wait_seconds, log_path)
        return found


async def _review(
    tail: DecisionTail,
    submitter: DraftSubmitter,
    drafts: list[DraftSubmitted],
    worker: subprocess.Popen[bytes],
    wait_seconds: float,
    log_path: Path,
) -> list[QADecision]:
    """Submit `drafts` and print each decision as it arrives (CommandError when the worker
    exits or `wait_seconds` pass first)."""
    for draft in drafts:
        await submitter.submit(draft)
        print(f"4. submitted {draft.draft_id}: {draft.title!r}")
    print("   waiting for the decisions ...\n", flush=True)
    wanted = {(d.draft_id, d.version) for d in drafts}
    found: list[QADecision] = []

    async def collect() -> None:
        async for decision in tail.follow():
            if (decision.draft_id, decision.version) in wanted:
                wanted.discard((decision.draft_id, decision.version))
                found.append(decision)
                print(format_decision(decision) + "\n", flush=True)
                if not wanted:
                    return

    loop = asyncio.get_running_loop()
    collecting = asyncio.ensure_future(collect())
    deadline = loop.time() + wait_seconds
    while not collecting.done():
        if worker.poll() is not None or loop.time() > deadline:
            collecting.cancel()
            missing = ", ".join(sorted(d for d, _ in wanted))
            why = (
                f"the worker exited with code {worker.returncode}"
                if worker.returncode is not None
                else f"no decision within {wait_seconds:g} s"
            )
            raise CommandError(f"{why} for: {missing}; see {log_path}")
        await asyncio.wait([collecting], timeout=0.5)
    collecting.result()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m streams.cli.demo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait (180)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    # SIGTERM (a CI timeout, `kill`) ends the demo like Ctrl-C: the worker is stopped and the
    # setting restored on the way out.
    signal.signal(signal.SIGTERM, _interrupt)
    return run_command("demo", lambda args: run_demo(args.timeout))(args)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
