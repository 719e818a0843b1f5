"""The report of a re-decision run, shared by `multiqa rescore` and `multiqa rereview`: for each
draft version the live verdict and score next to the new ones, which flipped, the score deltas
(overall and per reviewer), and what could not be re-decided.

Text: a summary, then the flipped drafts (and those with a problem). `--json`: JSON lines, one
`{"type": "item", ...}` per draft version, then one `{"type": "summary", ...}`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from streams.cli import _jsonl as jsonl


@dataclass(frozen=True)
class Item:
    draft_id: str
    version: int
    approved_before: bool | None  # None: no live decision
    score_before: float | None
    approved_after: bool | None  # None: not re-decided (see problem)
    score_after: float | None
    problem: str = ""
    reviewer_deltas: dict[str, float] = field(default_factory=dict)  # new - live score

    @property
    def flipped(self) -> bool:
        return (
            self.approved_before is not None
            and self.approved_after is not None
            and self.approved_before != self.approved_after
        )

    @property
    def score_delta(self) -> float | None:
        if self.score_before is None or self.score_after is None:
            return None
        return self.score_after - self.score_before

    def as_json(self) -> dict[str, Any]:
        return {
            "draft_id": self.draft_id,
            "version": self.version,
            "approved_before": self.approved_before,
            "score_before": self.score_before,
            "approved_after": self.approved_after,
            "score_after": self.score_after,
            "flipped": self.flipped,
            "score_delta": self.score_delta,
            "reviewer_deltas": self.reviewer_deltas,
            "problem": self.problem or None,
        }


def _verdict(approved: bool | None) -> str:
    return "-" if approved is None else ("approved" if approved else "rejected")


@dataclass
class Report:
    what: str  # "re-scored" / "re-reviewed"
    items: list[Item] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # run id, settings version, costs, ...

    @property
    def flipped(self) -> list[Item]:
        return [i for i in self.items if i.flipped]

    @property
    def problems(self) -> list[Item]:
        return [i for i in self.items if i.problem]

    def summary(self) -> dict[str, Any]:
        done = [i for i in self.items if i.approved_after is not None]
        deltas = [d for i in done if (d := i.score_delta) is not None]
        per_reviewer: dict[str, list[float]] = defaultdict(list)
        for i in done:
            for name, delta in i.reviewer_deltas.items():
                per_reviewer[name].append(delta)
        return {
            "drafts": len(self.items),
            "decided": len(done),
            "not_decided": len(self.items) - len(done),
            "flipped": len(self.flipped),
            "newly_approved": sum(1 for i in self.flipped if i.approved_after),
            "newly_rejected": sum(1 for i in self.flipped if not i.approved_after),
            "approved_before": sum(1 for i in done if i.approved_before),
            "approved_after": sum(1 for i in done if i.approved_after),
            "mean_score_delta": round(sum(deltas) / len(deltas), 3) if deltas else 0.0,
            "max_abs_score_delta": round(max((abs(d) for d in deltas), default=0.0), 3),
            "mean_reviewer_deltas": {
                name: round(sum(v) / len(v), 3) for name, v in sorted(per_reviewer.items())
            },
            **self.extra,
        }

    def text(self, show: int = 20) -> str:
        s = self.summary()
        lines = [
            f"{s['drafts']} draft versions; {self.what} {s['decided']}, not {s['not_decided']}",
            f"approved {s['approved_before']} -> {s['approved_after']}: {s['newly_approved']} "
            f"newly approved, {s['newly_rejected']} newly rejected; mean score change "
            f"{s['mean_score_delta']:+.2f} (largest {s['max_abs_score_delta']:.2f})",
        ]
        if s["mean_reviewer_deltas"]:
            lines.append(
                "mean reviewer score change: "
                + ", ".join(f"{k} {v:+.2f}" for k, v in s["mean_reviewer_deltas"].items())
            )
        for key, value in self.extra.items():
            lines.append(f"{key.replace('_', ' ')}: {value}")
        for item in self.flipped[:show]:
            lines.append(
                f"  {item.draft_id} v{item.version}: {_verdict(item.approved_before)} "
                f"{item.score_before:.1f} -> {_verdict(item.approved_after)} "
                f"{item.score_after:.1f}"
            )
        if len(self.flipped) > show:
            lines.append(f"  ... {len(self.flipped) - show} more flipped (use --show or --json)")
        for item in self.problems[:show]:
            lines.append(f"  {item.draft_id} v{item.version}: {item.problem}")
        return "\n".join(lines)

    def emit_json(self) -> None:
        for item in self.items:
            jsonl.emit("item", item.as_json())
        jsonl.emit("summary", self.summary())
