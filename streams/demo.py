"""The README's demo (`make demo`, or `python -m streams.demo`): the whole stream on this machine.

1. starts (or reuses) the local Kafka broker and PostgreSQL server, applies the migrations;
2. serves a few pages from a local HTTP server, and allowlists 127.0.0.1 in the URL guard
   (`qa_url_allowlist`) for the demo, since the guard refuses loopback addresses otherwise;
3. starts an all-in-one `multiqa worker` as a subprocess (every reviewer, the aggregator, sinks);
4. once a warm-up draft has gone through (every consumer group has joined), submits three
   drafts as the writer service would: a clean one, one with a fabricated statistic, one citing
   a page of the local server that answers 404;
5. prints each decision and its feedback as it arrives on qa.decisions, then what the sinks wrote
   to PostgreSQL;
6. stops the worker and the HTTP server and restores the setting, whatever happened.

Without an Ollama server on 127.0.0.1:11434 the LLM reviewers (critic, consistency, topic
delivery) skip and each decision says "validator-only". The stack keeps running afterwards, as
after `multiqa dev up`: `multiqa decisions`, `multiqa status DRAFT_ID` and SQL show the results.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
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
from streams._command import connect_database, run_command
from streams.client import DecisionTail, DraftSubmitter
from streams.config import StreamConfig
from streams.ops_cli import format_decision

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

## Summary

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

## Summary

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
            [sys.executable, "-m", "streams.cli", "worker", "--loglevel", "warning"],
            env=config_env(config),
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in the terminal reaches the demo, which stops it
        )


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


async def run_demo(wait_seconds: float) -> int:
    from agents.settings_service import SettingsService
    from streams import devstack
    from streams.db import migrate
    from streams.topics import ensure_topics

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
    )
    print(f"   kafka {config.bootstrap_servers}, postgres {info.postgres.dsn}", flush=True)
    async with connect_database(config.database_url) as pool:
        service = SettingsService(pool, ttl_seconds=0)
        previous = (await service.overrides()).get(ALLOWLIST_KEY)
        worker: subprocess.Popen[bytes] | None = None
        log_path = devstack.Settings.from_env().cache_dir / "demo" / "worker.log"
        try:
            await migrate(pool)
            await ensure_topics(config)
            with local_pages() as pages:
                allow = ",".join(p for p in ((previous or ""), "127.0.0.1") if p)
                await service.set(ALLOWLIST_KEY, allow)
                print(f"2. serving demo pages at {pages} ({ALLOWLIST_KEY}={allow} for the demo)")
                worker = _start_worker(config, log_path)
                print(f"3. started an all-in-one worker (pid {worker.pid}, log {log_path})")
                drafts = sample_drafts(pages, uuid.uuid4().hex[:8])
                decisions = await _submit_and_wait(config, drafts, worker, wait_seconds)
                if decisions is None:
                    return 1
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
            print(
                "\nLook further: multiqa decisions | multiqa status "
                f"{drafts[0].draft_id} | psql {info.postgres.dsn}"
            )
            return 0
        finally:
            if worker is not None:
                print("6. stopping the worker ...", flush=True)
                await asyncio.to_thread(_stop_worker, worker)
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
        waiting = {config.reviewer_group_id(name) for name in reviewers}
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
) -> list[QADecision] | None:
    run = drafts[0].draft_id.split("-")[1]
    async with (
        DecisionTail(config.bootstrap_servers, topic=config.decisions_topic) as tail,
        DraftSubmitter(config.bootstrap_servers, topic=config.drafts_topic) as submitter,
    ):
        print("   waiting for every reviewer's consumer group to join ...", flush=True)
        started = asyncio.get_running_loop().time()
        from agents.registry import all_reviewers

        ready = await wait_until_ready(
            config,
            tail,
            submitter,
            [spec.name for spec in all_reviewers()],
            within=wait_seconds,
            alive=lambda: worker.poll() is None,
            probe_id=f"demo-{run}-warmup",
        )
        if not ready:
            print(f"the worker did not get ready within {wait_seconds:g} s; see its log")
            return None
        took = asyncio.get_running_loop().time() - started
        print(f"   ready after {took:.1f} s (a warm-up draft went through)", flush=True)
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

        collecting = asyncio.ensure_future(collect())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_seconds
        while not collecting.done():
            if worker.poll() is not None:
                collecting.cancel()
                print(f"the worker exited with code {worker.returncode}; see its log")
                return None
            if loop.time() > deadline:
                collecting.cancel()
                missing = ", ".join(sorted(d for d, _ in wanted))
                print(f"no decision within {wait_seconds:g} s for: {missing}; see the worker's log")
                return None
            await asyncio.wait([collecting], timeout=0.5)
        collecting.result()
        return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m streams.demo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait (180)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    return run_command("demo", lambda args: run_demo(args.timeout))(args)


if __name__ == "__main__":
    sys.exit(main())
