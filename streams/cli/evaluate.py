"""`multiqa eval DIR`: review every draft of a labelled folder in-process and measure the outcome.

Prints recall per defect family, the clean false-rejection rate, a confusion table and every
draft that was not decided as labelled, with the findings that decided it (`--json`: the same as
one JSON document). Validator-only unless `--reviewers all`. Progress goes to stderr.

Exit codes: 0 targets met (`--min-recall`, `--max-false-reject`), 1 targets missed or a review
failed, 2 bad input (missing folder, bad labels or settings, bad option), one line on stderr.
Nothing here needs a broker or a database; the heavy imports happen only once the inputs are
checked, so a bad input is reported at once.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

PROG = "multiqa eval"
BAD_INPUT = 2
_DEFAULT_MIN_RECALL = 0.95
_DEFAULT_MAX_FALSE_REJECT = 0.02


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="measure the reviewers on a labelled folder of drafts (recall, false rejections)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("dir", metavar="DIR", help="folder with labels.csv and the drafts")
    parser.add_argument(
        "--settings",
        metavar="FILE",
        help="JSON object of settings applied over the folder's settings.json",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="one setting, applied last (repeatable)",
    )
    parser.add_argument(
        "--reviewers",
        choices=("validator", "all"),
        default="validator",
        help="validator only (default; no network) or every enabled reviewer the settings name",
    )
    parser.add_argument(
        "--min-recall",
        type=_fraction,
        default=_DEFAULT_MIN_RECALL,
        metavar="R",
        help=f"lowest acceptable recall per family, 0-1 or a percentage "
        f"(default {_DEFAULT_MIN_RECALL:g})",
    )
    parser.add_argument(
        "--max-false-reject",
        type=_fraction,
        default=_DEFAULT_MAX_FALSE_REJECT,
        metavar="R",
        help=f"highest acceptable share of clean drafts rejected "
        f"(default {_DEFAULT_MAX_FALSE_REJECT:g})",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=main)


def _fraction(text: str) -> float:
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1 (or 0% and 100%)")
    return value


def main(args: argparse.Namespace) -> int:
    from streams.cli._command import print_error

    folder = Path(args.dir)
    if not folder.is_dir():  # said before the heavy imports below
        return print_error(PROG, f"{folder}: no such directory", code=BAD_INPUT)
    from agents.evaluation import EvalError

    try:
        return _run(args, folder)
    except EvalError as exc:
        return print_error(PROG, exc, code=BAD_INPUT)
    except KeyboardInterrupt:
        return 130


def _run(args: argparse.Namespace, folder: Path) -> int:
    from agents.evaluation import (
        EvalError,
        build_report,
        check_settings,
        format_text,
        load_corpus,
        rule_families,
        run_eval,
    )
    from agents.settings import Settings, SettingsError
    from agents.settings_check import apply_overrides

    corpus = load_corpus(folder, rule_families())
    values = dict(corpus.settings)
    if args.settings:
        values.update(check_settings(args.settings, _read_json(Path(args.settings))))
    for item in args.overrides:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise EvalError(f"--set {item!r}: expected KEY=VALUE")
        values.update(check_settings(f"--set {key.strip()}", {key.strip(): value}))
    try:
        settings = apply_overrides(Settings(), values)
    except SettingsError as exc:
        raise EvalError(str(exc)) from None

    progress = None if args.quiet else _Progress(sys.stderr, len(corpus.cases))
    import asyncio  # here: building the parser must stay cheap (streams.cli._command)

    outcomes = asyncio.run(
        run_eval(corpus, settings, all_reviewers=args.reviewers == "all", progress=progress)
    )
    if progress is not None:
        progress.finish()
    report = build_report(corpus.name, args.reviewers, outcomes)
    if args.json:
        document = report.to_json(args.min_recall, args.max_false_reject)
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(format_text(report, args.min_recall, args.max_false_reject))
    return 1 if report.failures(args.min_recall, args.max_false_reject) else 0


def _read_json(path: Path) -> Any:
    from agents.evaluation import EvalError

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvalError(f"--settings {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"--settings {path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise EvalError(f"--settings {path} line {exc.lineno}: not valid JSON: {exc.msg}") from None


class _Progress:
    """`eval: 37/75 name` on stderr: rewritten in place on a terminal, otherwise a line every
    tenth of the corpus (logs stay short)."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream = stream
        self.total = total
        self.tty = stream.isatty()
        self.step = max(1, total // 10)

    def __call__(self, done: int, total: int, case: Any) -> None:
        if self.tty:
            self.stream.write(f"\r\x1b[Keval: {done}/{total} {case.name[:60]}")
        elif done % self.step == 0 or done == total:
            self.stream.write(f"eval: {done}/{total} drafts reviewed\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
