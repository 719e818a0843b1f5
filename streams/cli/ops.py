"""Operator commands: `multiqa submit`, `multiqa decisions`, `multiqa status`, `multiqa db migrate`.

Where things are comes from `StreamConfig.discover` (`--bootstrap` / `--dsn`, then `MULTIQA_*`,
then the dev stack's variables). A failure the operator can act on (a missing file, a broker or
database that does not answer, an unknown draft) prints one line `multiqa <command>: error: ...`
and exits 1; never a traceback (see streams.cli._command).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.parse
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streams.cli._command import (
    CommandError,
    bootstrap_option,
    connect_database,
    discover_config,
    dsn_option,
    require_database,
    run_command,
)

if TYPE_CHECKING:
    from schemas import DraftSubmitted, QADecision

# Kafka, PostgreSQL, the codec and tracing are imported by the commands that use them, not here:
# building the parser (`--help`, a bad option, a missing file) stays cheap (streams.cli._command).

# --- submit ------------------------------------------------------------------------------------


def read_draft_file(path: str) -> str:
    """The markdown of FILE ("-": standard input), refusing what is not reviewable text."""
    if path == "-":
        data = sys.stdin.buffer.read()
        label = "standard input"
    else:
        file = Path(path)
        label = str(file)
        if file.is_dir():
            raise CommandError(f"{label} is a directory, not a markdown file")
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {label}: {exc.strerror or exc}") from exc
    if b"\x00" in data:
        raise CommandError(f"{label} is a binary file, not markdown text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(
            f"{label} is not UTF-8 text (invalid byte at offset {exc.start}); save it as UTF-8"
        ) from exc
    if not text.strip():
        raise CommandError(f"{label} is empty: there is nothing to review")
    return text.removeprefix("\ufeff")


def _title_of(markdown: str) -> str | None:
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", markdown, re.MULTILINE)
    return match.group(1) if match else None


def build_draft(args: argparse.Namespace, content: str) -> DraftSubmitted:
    title = args.title or _title_of(content)
    if not title or not title.strip():
        raise CommandError(f"no --title given and {args.file} has no '# ' heading to use")
    if args.version < 1:
        raise CommandError(f"--version must be 1 or more, not {args.version}")
    from schemas import DraftSubmitted

    return DraftSubmitted(
        draft_id=args.draft_id or str(uuid.uuid4()),
        version=args.version,
        title=title.strip(),
        content=content,
        task_id=args.task_id,
        topic=args.topic or "",
        research_sources=tuple(args.source or ()),
        preview_url=args.preview_url,
        writer_model=args.writer_model,
        site_domain=args.site_domain,
        niche=args.niche,
    )


async def _submit(args: argparse.Namespace) -> int:
    # The file and the options first: their errors need nothing else loaded.
    draft = build_draft(args, read_draft_file(args.file))

    from streams.cli import _jsonl as jsonl
    from streams.client import DecisionTail, DraftSubmitter, find_decision

    config = discover_config(args)
    bootstrap = config.bootstrap_servers
    # No topic is created here: a missing one is TopicMissingError (start a worker, or
    # `multiqa topics create`), never auto-created by the broker with its default partitions.
    submitter = DraftSubmitter(
        bootstrap, topic=config.drafts_topic, max_draft_bytes=config.max_draft_bytes
    )
    show = _submission_json if args.json else _print_submission
    if not args.wait:
        async with submitter:
            submission = await submitter.submit(draft)
        show(submission.draft, submission.topic, submission.partition,
             submission.offset, submission.traceparent)  # fmt: skip
        return 0
    async with DecisionTail(bootstrap, topic=config.decisions_topic) as tail:
        # A version already decided gets no second decision (the aggregator drops the
        # duplicate): show the one there is instead of waiting for one that never comes.
        decided = await find_decision(
            bootstrap, draft.draft_id, draft.version, topic=config.decisions_topic
        )
        if decided is None:
            async with submitter:
                submission = await submitter.submit(draft)
            show(draft, submission.topic, submission.partition, submission.offset,
                 submission.traceparent)  # fmt: skip
            waiting = f"waiting up to {args.timeout:g} s for the decision ..."
            jsonl.note(waiting) if args.json else print(waiting, flush=True)
            decision = await tail.wait_for(draft.draft_id, draft.version, within=args.timeout)
    if decided is not None:
        note = (
            f"draft {draft.draft_id} v{draft.version} was already decided at "
            f"{decided.decided_at:%Y-%m-%d %H:%M:%S} UTC; not submitted again (a re-submission "
            "of a decided version gets no new decision: submit a new --version to review it "
            "again)"
        )
        if args.json:
            jsonl.note(note)
            jsonl.emit("decision", jsonl.decision_object(decided))
        else:
            print(note)
            print(format_decision(decided))
        return 0
    if decision is None:
        raise CommandError(
            f"no decision on draft {draft.draft_id} v{draft.version} within {args.timeout:g} s "
            "(is a worker running? start one with `multiqa worker`)"
        )
    if args.json:
        jsonl.emit("decision", jsonl.decision_object(decision))
    else:
        print(format_decision(decision))
    return 0


def _submission_json(
    draft: DraftSubmitted, topic: str, partition: int, offset: int, traceparent: str
) -> None:
    from streams.cli import _jsonl as jsonl
    from streams.runtime.tracing import trace_id_of

    jsonl.emit(
        "submission",
        {
            "draft_id": draft.draft_id,
            "version": draft.version,
            "title": draft.title,
            "topic": topic,
            "partition": partition,
            "offset": offset,
            "traceparent": traceparent,
            "trace_id": trace_id_of(traceparent),
        },
    )


def _print_submission(
    draft: DraftSubmitted, topic: str, partition: int, offset: int, traceparent: str
) -> None:
    trace_id = traceparent.split("-")[1] if traceparent.count("-") >= 3 else traceparent
    print(
        f"submitted draft {draft.draft_id} v{draft.version} ({draft.title!r}) "
        f"to {topic}[{partition}]@{offset}, trace {trace_id}",
        flush=True,
    )


# --- formatting decisions ----------------------------------------------------------------------


def _flags(decision: QADecision) -> str:
    flags = [
        name
        for name, on in (
            ("timed-out", decision.timed_out),
            ("short-circuit", decision.short_circuited),
            ("early", decision.early_decided),
            ("human-review", decision.needs_human_review),
        )
        if on
    ]
    return ",".join(flags) or "-"


def format_decision(decision: QADecision) -> str:
    """A decision for a human: verdict, why, each reviewer, then the feedback text."""
    verdict = "APPROVED" if decision.approved else "REJECTED"
    lines = [
        f"decision {decision.decision_id}: {verdict}, score {decision.final_score:.1f}/100 "
        f"(draft {decision.draft_id} v{decision.version})",
        f"summary: {decision.summary}",
    ]
    if decision.vetoes:
        lines.append("vetoes: " + "; ".join(decision.vetoes))
    if decision.missing_reviewers:
        lines.append("missing reviewers: " + ", ".join(decision.missing_reviewers))
    if _flags(decision) != "-":
        lines.append("flags: " + _flags(decision))
    if decision.reviews:
        lines.append("reviewers:")
        for r in decision.reviews:
            score = f"{r.score:5.1f}" if r.status == "ok" else "    -"
            note = r.feedback.splitlines()[0][:90] if r.feedback else ""
            lines.append(f"  {r.reviewer:<15} {r.status:<8} {score}  {note}")
    lines += ["feedback:", decision.feedback_text]
    return "\n".join(lines)


_COLUMNS = ("DECIDED (UTC)", "DRAFT", "VER", "RESULT", "SCORE", "FLAGS", "MISSING")


def _row(decision: QADecision) -> tuple[str, ...]:
    return (
        decision.decided_at.strftime("%Y-%m-%d %H:%M:%S"),
        decision.draft_id if len(decision.draft_id) <= 36 else decision.draft_id[:35] + "…",
        str(decision.version),
        "approved" if decision.approved else "rejected",
        f"{decision.final_score:.1f}",
        _flags(decision),
        ",".join(decision.missing_reviewers) or "-",
    )


_WIDTHS = (19, 36, 3, 8, 5, 18, 0)


def _line(cells: Sequence[str]) -> str:
    return "  ".join(c.ljust(w) if w else c for c, w in zip(cells, _WIDTHS, strict=True)).rstrip()


# --- decisions ---------------------------------------------------------------------------------


async def _decisions(args: argparse.Namespace) -> int:
    from streams.cli import _jsonl as jsonl
    from streams.client import DecisionTail

    if args.limit < 1:
        raise CommandError(f"--limit must be 1 or more, not {args.limit}")
    config = discover_config(args)
    tail = DecisionTail(
        config.bootstrap_servers,
        topic=config.decisions_topic,
        from_beginning=args.from_beginning,
        last=None if args.from_beginning else args.limit,
    )

    def show(decision: QADecision) -> None:
        if args.json:
            jsonl.emit("decision", jsonl.decision_object(decision))
        else:
            print(_line(_row(decision)), flush=True)

    async with tail:
        if not args.json:
            print(_line(_COLUMNS), flush=True)
        existing = sorted(await tail.existing(), key=lambda d: d.decided_at)
        if not args.from_beginning:
            existing = existing[-args.limit :]
        for decision in existing:
            show(decision)
        if not args.follow:
            if not existing:
                empty = f"(no decisions on {config.decisions_topic} yet)"
                jsonl.note(empty) if args.json else print(empty)
            return 0
        async for decision in tail.follow():
            show(decision)
    return 0


# --- status ------------------------------------------------------------------------------------


async def _status(args: argparse.Namespace) -> int:
    from streams.cli import _jsonl as jsonl

    config = discover_config(args)
    async with connect_database(require_database(config)) as pool:
        found = await draft_status(pool, args.draft_id, args.version)
        versions = [args.version] if args.version else await _versions(pool, args.draft_id)
        objects = await status_objects(pool, args.draft_id, args.version) if args.json else []
    web = args.web or (f"http://{config.web_host}:{config.web_port}" if config.web_port else "")
    held: list[str] = []
    if web:
        held = await aggregator_view(web, args.draft_id, versions or [1])
    if not found and not any(line.startswith("aggregator v") for line in held):
        which = f"draft {args.draft_id!r}" + (f" v{args.version}" if args.version else "")
        raise CommandError(
            f"nothing recorded for {which}: no reviews and no decision (unknown id, or not "
            "reviewed yet: is a worker running?)"
        )
    if args.json:
        for version in objects:
            jsonl.emit("draft_version", version)
        for line in held:
            jsonl.emit("aggregator", {"draft_id": args.draft_id, "view": line})
        return 0
    print("\n".join(found + held))
    return 0


async def _versions(pool: Any, draft_id: str) -> list[int]:
    rows = await pool.fetch(
        "SELECT version FROM qa_reviews WHERE draft_id = $1"
        " UNION SELECT version FROM qa_decisions WHERE draft_id = $1 ORDER BY 1",
        draft_id,
    )
    return [int(r["version"]) for r in rows]


async def aggregator_view(web: str, draft_id: str, versions: Sequence[int]) -> list[str]:
    """What the aggregator's table holds for each version, from the Faust web view of the
    aggregator app (`MULTIQA_WEB_PORT`): expected reviewers, answers so far, the deadline, or how
    it was decided. A view that does not answer is reported, not an error: the database says
    what was recorded either way."""
    import httpx

    from streams.runtime._entry import TABLE_NAME, table_key

    lines: list[str] = []
    async with httpx.AsyncClient(base_url=web.rstrip("/"), timeout=5.0) as client:
        for version in versions:
            key = urllib.parse.quote(table_key(draft_id, version), safe=":")
            try:
                response = await client.get(f"/table/{TABLE_NAME}/{key}/")
            except httpx.HTTPError as exc:
                return [f"aggregator view at {web}: unreachable ({type(exc).__name__})"]
            if response.status_code == 404:
                continue
            if response.status_code != 200:
                return [f"aggregator view at {web}: HTTP {response.status_code}"]
            lines.append(_describe_entry(version, response.json()))
    return lines


def _describe_entry(version: int, data: dict[str, Any]) -> str:
    from streams.runtime._entry import entry_status

    entry = entry_status(data)
    text = f"aggregator v{version}: expects {', '.join(entry.expected) or '-'}"
    if entry.decided_by is not None:
        text += f"; decided ({entry.decided_by})"
        text += ", published" if entry.published else ", not yet published"
        if entry.late:
            text += f"; late: {', '.join(entry.late)}"
        return text
    text += f"; answered {', '.join(entry.answered) or 'none'}"
    text += f"; waiting for {', '.join(entry.waiting) or '-'}"
    if entry.deadline is not None:
        text += f"; deadline in {max(0.0, entry.deadline - time.time()):.0f} s"
    return text


def _json_list(value: Any) -> list[Any]:
    # jsonb arrives decoded from streams.runtime.db.create_pool's pools, as text from a plain pool.
    return list(json.loads(value) if isinstance(value, str) else value)


async def _recorded(
    pool: Any, draft_id: str, version: int | None
) -> tuple[dict[int, Any], list[Any]]:
    """(decision row per version, review rows in order) of a draft (one version or all)."""
    decisions = {
        r["version"]: r
        for r in await pool.fetch(
            "SELECT * FROM qa_decisions WHERE draft_id = $1 AND ($2::int IS NULL OR version = $2)",
            draft_id,
            version,
        )
    }
    reviews = await pool.fetch(
        "SELECT version, reviewer, provider, status, approved, score, feedback, veto, "
        "produced_at FROM qa_reviews WHERE draft_id = $1 AND ($2::int IS NULL OR version = $2) "
        "ORDER BY version, produced_at, reviewer",
        draft_id,
        version,
    )
    return decisions, list(reviews)


_DECISION_COLUMNS = (
    "decision_id", "approved", "final_score", "summary", "feedback_text", "task_id",
    "missing_reviewers", "vetoes", "timed_out", "short_circuited", "early_decided",
    "needs_human_review", "settings_version", "decided_at", "trace_id",
)  # fmt: skip


async def status_objects(pool: Any, draft_id: str, version: int | None) -> list[dict[str, Any]]:
    """`status --json`: per version, the decision (None while pending) and every review, each
    marked `counted` (the decision used it) and `after_decision`."""
    decisions, reviews = await _recorded(pool, draft_id, version)
    objects: list[dict[str, Any]] = []
    for v in sorted(set(decisions) | {r["version"] for r in reviews}):
        row = decisions.get(v)
        counted = {r["reviewer"] for r in _json_list(row["reviews"])} if row else set()
        decision = None
        if row is not None:
            decision = {c: row[c] for c in _DECISION_COLUMNS if c in row}
            decision["decision_id"] = str(decision["decision_id"])
            decision["missing_reviewers"] = list(decision["missing_reviewers"])
            decision["vetoes"] = list(decision["vetoes"])
        objects.append(
            {
                "draft_id": draft_id,
                "version": v,
                "decision": decision,
                "reviews": [
                    {
                        **{k: r[k] for k in ("reviewer", "provider", "status", "approved")},
                        "score": r["score"],
                        "feedback": r["feedback"],
                        "veto": r["veto"],
                        "produced_at": r["produced_at"],
                        "counted": row is not None and r["reviewer"] in counted,
                        "after_decision": row is not None and r["produced_at"] > row["decided_at"],
                    }
                    for r in reviews
                    if r["version"] == v
                ],
            }
        )
    return objects


async def draft_status(pool: Any, draft_id: str, version: int | None) -> list[str]:
    """What PostgreSQL holds for a draft, per version: the decision (or "pending") and every
    reviewer result, marking those the decision did not count: produced after it, or not
    expected by it. Empty when nothing."""
    decisions, reviews = await _recorded(pool, draft_id, version)
    versions = sorted(set(decisions) | {r["version"] for r in reviews})
    lines: list[str] = []
    for v in versions:
        decision = decisions.get(v)
        counted = {r["reviewer"] for r in _json_list(decision["reviews"])} if decision else set()
        if decision is None:
            lines.append(f"draft {draft_id} v{v}: PENDING, no decision yet")
        else:
            verdict = "APPROVED" if decision["approved"] else "REJECTED"
            flags = [
                name
                for name in ("timed_out", "short_circuited", "early_decided", "needs_human_review")
                if decision[name]
            ]
            lines.append(
                f"draft {draft_id} v{v}: {verdict}, score {decision['final_score']:.1f}/100, "
                f"decided {decision['decided_at']:%Y-%m-%d %H:%M:%S} UTC"
                + (f" [{', '.join(flags)}]" if flags else "")
            )
            lines.append(f"  summary: {decision['summary']}")
            if decision["missing_reviewers"]:
                lines.append(f"  missing: {', '.join(decision['missing_reviewers'])}")
            if decision["vetoes"]:
                lines.append(f"  vetoes: {'; '.join(decision['vetoes'])}")
        these = [r for r in reviews if r["version"] == v]
        lines.append(f"  reviews recorded: {len(these)}")
        for r in these:
            score = f"{r['score']:5.1f}" if r["status"] == "ok" else "    -"
            late = ""
            if decision is not None and r["reviewer"] not in counted:
                after = r["produced_at"] > decision["decided_at"]
                late = "  (after the decision)" if after else "  (not counted)"
            note = (r["veto"] or r["feedback"] or "").splitlines()
            lines.append(
                f"    {r['reviewer']:<15} {r['status']:<8} {score}  "
                f"{(note[0] if note else '')[:80]}{late}"
            )
    return lines


# --- db migrate --------------------------------------------------------------------------------


async def _db_migrate(args: argparse.Namespace) -> int:
    from streams.runtime.db import migrate

    config = discover_config(args)
    async with connect_database(require_database(config)) as pool:
        applied = await migrate(pool)
        total = await pool.fetchval("SELECT count(*) FROM schema_migrations")
    if applied:
        print(f"applied migrations {', '.join(f'{v:03d}' for v in applied)}; {total} in all")
    else:
        print(f"database is up to date ({total} migrations)")
    return 0


# --- parsers -----------------------------------------------------------------------------------


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0")
    return value


def add_parser(subparsers: Any) -> None:
    bootstrap = bootstrap_option()
    dsn = dsn_option()

    submit = subparsers.add_parser(
        "submit",
        parents=[bootstrap],
        help="publish a markdown draft for review",
        description="Publish FILE (markdown, '-' for stdin) as a DraftSubmitted event.",
    )
    submit.add_argument("file", metavar="FILE.md")
    submit.add_argument("--title", help="the draft's title (default: its first '# ' heading)")
    submit.add_argument("--topic", help="what the draft is meant to be about")
    submit.add_argument("--preview-url", help="URL of the rendered preview")
    submit.add_argument("--draft-id", help="the draft's id (default: a new UUID)")
    submit.add_argument("--version", type=int, default=1, help="draft version (default 1)")
    submit.add_argument("--task-id", help="the writer pipeline's task id (gets the feedback)")
    submit.add_argument("--source", action="append", metavar="URL", help="research source")
    submit.add_argument("--writer-model", help="the model that wrote it (the critic avoids it)")
    submit.add_argument("--site-domain", help="the publishing site's domain")
    submit.add_argument("--niche", help="the site niche (per-niche validator rules)")
    submit.add_argument("--wait", action="store_true", help="wait for and print the decision")
    submit.add_argument(
        "--json", action="store_true", help="JSON lines: the submission, then the decision"
    )
    submit.add_argument(
        "--timeout", type=_positive_float, default=120.0, help="seconds --wait waits (120)"
    )
    submit.set_defaults(func=run_command("multiqa submit", _submit))

    decisions = subparsers.add_parser(
        "decisions",
        parents=[bootstrap],
        help="show recent decisions as a table (--follow to tail)",
        description="Read the decisions topic without joining any consumer group.",
    )
    decisions.add_argument("--follow", "-f", action="store_true", help="keep printing new ones")
    decisions.add_argument("--limit", type=int, default=20, help="recent decisions shown (20)")
    decisions.add_argument(
        "--from-beginning", action="store_true", help="every decision the topic still holds"
    )
    decisions.add_argument("--json", action="store_true", help="one JSON object per decision")
    decisions.set_defaults(func=run_command("multiqa decisions", _decisions))

    status = subparsers.add_parser(
        "status",
        parents=[dsn],
        help="what is recorded for a draft: decision, reviews so far, aggregator state",
        description=(
            "A draft's decision and reviewer results from PostgreSQL, and what the aggregator's "
            "table holds for it when its web view is reachable."
        ),
    )
    status.add_argument("draft_id", metavar="DRAFT_ID")
    status.add_argument("--version", type=int, help="only this version")
    status.add_argument("--json", action="store_true", help="one JSON object per version")
    status.add_argument(
        "--web",
        metavar="URL",
        help="the aggregator's Faust web view (default: MULTIQA_WEB_HOST/MULTIQA_WEB_PORT if set)",
    )
    status.set_defaults(func=run_command("multiqa status", _status))

    db = subparsers.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    migrate_cmd = db_sub.add_parser(
        "migrate", parents=[dsn], help="apply pending schema migrations"
    )
    migrate_cmd.set_defaults(func=run_command("multiqa db migrate", _db_migrate))
