"""Measure the reviewers on a labelled corpus (what `multiqa eval DIR` runs).

    corpus = load_corpus("eval/dev", families=rule_families())
    outcomes = await run_eval(corpus, Settings.from_mapping(corpus.settings))
    report = build_report(corpus.name, "validator", outcomes)
    report.failures(min_recall=0.95, max_false_reject=0.02)   # [] when the targets are met

A corpus is a folder of drafts with `labels.csv` (expected decision and defect family per
draft) and an optional `settings.json`; see `_corpus`. Exceptions: `EvalError` (a corpus, its
labels or settings cannot be used; one-line message). A draft whose review fails is an `error`
outcome in the report, never an exception.
"""

from __future__ import annotations

from agents.evaluation._corpus import (
    CLEAN,
    DECISIONS,
    LABELS_FILE,
    SETTINGS_FILE,
    Case,
    Corpus,
    EvalError,
    check_settings,
    load_corpus,
)
from agents.evaluation._report import (
    Disagreement,
    EvalReport,
    FamilyScore,
    build_report,
    format_text,
)
from agents.evaluation._run import Outcome, decision_of, run_eval


def rule_families() -> frozenset[str]:
    """The validator's rule families: what a corpus label may name besides `clean`."""
    from agents.reviewers.validator import rules

    return frozenset(r.family for r in rules())


__all__ = [
    "CLEAN",
    "DECISIONS",
    "LABELS_FILE",
    "SETTINGS_FILE",
    "Case",
    "Corpus",
    "Disagreement",
    "EvalError",
    "EvalReport",
    "FamilyScore",
    "Outcome",
    "build_report",
    "check_settings",
    "decision_of",
    "format_text",
    "load_corpus",
    "rule_families",
    "run_eval",
]
