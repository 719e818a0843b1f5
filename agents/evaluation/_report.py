"""Figures from eval outcomes: recall per family, clean false rejections, confusion, disagreements.

- recall of a family = drafts of that family caught / drafts of that family (see Outcome.caught);
- false-rejection rate = clean drafts rejected / clean drafts (held for review is counted apart);
- the confusion table counts expected decision x decision made, over every draft;
- a disagreement is any draft not caught, listed with the findings that decided it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.evaluation._corpus import DECISIONS
from agents.evaluation._run import ERROR, REJECTED, REVIEW, Outcome
from schemas.records import Severity

COLUMNS = (*DECISIONS, ERROR)
_MAX_FINDINGS_SHOWN = 8


@dataclass(frozen=True)
class FamilyScore:
    family: str
    drafts: int
    caught: int

    @property
    def recall(self) -> float:
        return self.caught / self.drafts if self.drafts else 1.0


@dataclass(frozen=True)
class Disagreement:
    draft: str
    family: str
    expected: str
    decided: str
    score: float
    why: str
    findings: tuple[str, ...]  # one line each: severity code "span": message


@dataclass(frozen=True)
class EvalReport:
    corpus: str
    reviewers: str
    drafts: int
    families: tuple[FamilyScore, ...]
    clean: int
    clean_rejected: int
    clean_review: int
    errors: int
    confusion: dict[str, dict[str, int]]
    disagreements: tuple[Disagreement, ...] = field(default=())

    @property
    def false_reject_rate(self) -> float:
        return self.clean_rejected / self.clean if self.clean else 0.0

    def failures(self, min_recall: float, max_false_reject: float) -> list[str]:
        """Why the targets are missed (empty: met)."""
        why = [
            f"{f.family} recall {f.recall:.1%} < {min_recall:.0%}"
            for f in self.families
            if f.recall < min_recall
        ]
        if self.false_reject_rate > max_false_reject:
            why.append(
                f"clean false rejections {self.false_reject_rate:.1%} > {max_false_reject:.0%}"
            )
        if self.errors:
            why.append(f"{self.errors} review(s) failed")
        return why

    def to_json(self, min_recall: float, max_false_reject: float) -> dict[str, Any]:
        failures = self.failures(min_recall, max_false_reject)
        return {
            "corpus": self.corpus,
            "reviewers": self.reviewers,
            "drafts": self.drafts,
            "families": {
                f.family: {"drafts": f.drafts, "caught": f.caught, "recall": round(f.recall, 4)}
                for f in self.families
            },
            "clean": {
                "drafts": self.clean,
                "rejected": self.clean_rejected,
                "review": self.clean_review,
                "false_reject_rate": round(self.false_reject_rate, 4),
            },
            "errors": self.errors,
            "confusion": self.confusion,
            "disagreements": [
                d.__dict__ | {"findings": list(d.findings)} for d in self.disagreements
            ],
            "targets": {"min_recall": min_recall, "max_false_reject": max_false_reject},
            "passed": not failures,
            "failures": failures,
        }


def build_report(corpus: str, reviewers: str, outcomes: Sequence[Outcome]) -> EvalReport:
    by_family: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        if not outcome.case.clean:
            by_family.setdefault(outcome.case.family, []).append(outcome)
    families = tuple(
        FamilyScore(name, len(group), sum(o.caught for o in group))
        for name, group in sorted(by_family.items())
    )
    clean = [o for o in outcomes if o.case.clean]
    counts = Counter((o.case.expected, o.decision) for o in outcomes)
    confusion = {exp: {col: counts[(exp, col)] for col in COLUMNS} for exp in DECISIONS}
    return EvalReport(
        corpus=corpus,
        reviewers=reviewers,
        drafts=len(outcomes),
        families=families,
        clean=len(clean),
        clean_rejected=sum(o.decision == REJECTED for o in clean),
        clean_review=sum(o.decision == REVIEW for o in clean),
        errors=sum(o.decision == ERROR for o in outcomes),
        confusion=confusion,
        disagreements=tuple(_disagreement(o) for o in outcomes if not o.caught),
    )


def _disagreement(outcome: Outcome) -> Disagreement:
    case = outcome.case
    if outcome.decision == ERROR:
        why = f"the review failed: {outcome.error}"
    elif case.clean:
        why = f"clean draft {outcome.decision}"
    elif outcome.decision != case.expected:
        why = f"expected {case.expected}, decided {outcome.decision}"
    else:
        why = f"{outcome.decision}, but no {case.family} rule fired"
    return Disagreement(
        draft=case.name,
        family=case.family,
        expected=case.expected,
        decided=outcome.decision,
        score=outcome.final_score,
        why=why,
        findings=_deciding(outcome),
    )


def _deciding(outcome: Outcome) -> tuple[str, ...]:
    """The findings that decided: criticals and vetoes for a rejection, otherwise everything the
    reviewers found (what was there, and so what was missed)."""
    findings = outcome.findings
    if outcome.decision == REJECTED:
        critical = tuple(f for f in findings if f.finding.severity == Severity.CRITICAL)
        findings = critical or findings
    lines = [
        f"{f.reviewer}: {f.finding.severity} {f.finding.code}"
        + (f" {_snippet(f.finding.span.text)}" if f.finding.span is not None else "")
        + f": {f.finding.message}"
        for f in findings[:_MAX_FINDINGS_SHOWN]
    ]
    if len(findings) > _MAX_FINDINGS_SHOWN:
        lines.append(f"(+{len(findings) - _MAX_FINDINGS_SHOWN} more)")
    lines.extend(f"veto: {veto}" for veto in outcome.vetoes if outcome.decision == REJECTED)
    return tuple(lines) or ("no findings",)


def _snippet(text: str, limit: int = 70) -> str:
    one_line = " ".join(text.split())
    return repr(one_line if len(one_line) <= limit else one_line[: limit - 1] + "…")


def format_text(report: EvalReport, min_recall: float, max_false_reject: float) -> str:
    defect = report.drafts - report.clean
    out = [
        f"{report.corpus}: {report.drafts} drafts ({defect} with a defect, {report.clean} clean);"
        f" reviewers: {report.reviewers}",
        "",
        f"{'family':18s} {'drafts':>6s} {'caught':>6s} {'recall':>7s}",
    ]
    for f in report.families:
        flag = "" if f.recall >= min_recall else f"  < {min_recall:.0%}"
        out.append(f"{f.family:18s} {f.drafts:6d} {f.caught:6d} {f.recall:7.1%}{flag}")
    flag = "" if report.false_reject_rate <= max_false_reject else f" > {max_false_reject:.0%}"
    out += [
        "",
        f"clean: {report.clean} drafts, {report.clean_rejected} rejected "
        f"({report.false_reject_rate:.1%} false rejections{flag}), "
        f"{report.clean_review} held for review",
        "",
        "expected \\ decided " + "".join(f"{c:>10s}" for c in COLUMNS),
    ]
    for expected, row in report.confusion.items():
        out.append(f"{expected:18s} " + "".join(f"{row[c]:10d}" for c in COLUMNS))
    out += ["", f"disagreements: {len(report.disagreements)}"]
    for d in report.disagreements:
        out.append(f"  {d.draft} [{d.family}] {d.why} (score {d.score:.0f})")
        out.extend(f"      {line}" for line in d.findings)
    failures = report.failures(min_recall, max_false_reject)
    out += ["", "result: " + ("PASS" if not failures else "FAIL (" + "; ".join(failures) + ")")]
    return "\n".join(out) + "\n"
