"""Every field of many decisions, written once and compared later: proof that a speed-up of the
aggregation (agents/aggregate.py, agents/feedback.py) or of the codec changed no decision.

    python bench/check_decisions.py --write before.jsonl    # on the old code
    python bench/check_decisions.py --compare before.jsonl  # on the new code

The decisions: every draft of the labelled corpus (eval/*: the real validator's result on it,
with each folder's settings) put with scripted results of the six other bench reviewers (the
generator of bench/rescore_history.py: failing, errored, not-applicable gates, findings with
spans), decided complete, timed out and early; and the rescore history (bench/rescore_history.py,
2,000 drafts) decided, then re-scored through the codec. Each under several settings (weights,
thresholds, required and advisory reviewers, the warning penalty, the disagreement spread).
Each decision is one JSON line of every field (`schemas.to_dict(..., json=True)`).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import random
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rescore_history import EXPECTED, GATES, T0, _gate, make_history

from agents.aggregate import build_decision
from agents.base import Deps, run_reviewer
from agents.registry import get_reviewer
from agents.settings import Settings
from agents.settings_check import apply_overrides
from schemas import DraftSubmitted, QADecision, ReviewerResult, decode, encode, to_dict
from streams.cli.replay import rescore

ROOT = Path(__file__).resolve().parents[1]
VARIANTS: tuple[dict[str, str], ...] = (
    {},
    {"qa_critic_weight": "2.5", "qa_final_score_threshold": "75"},
    {"qa_gate_weight": "0", "qa_validator_weight": "3"},
    {"qa_required_to_pass": "validator,critic,consistency", "qa_disagreement_spread": "15"},
    {
        "qa_advisory_reviewers": "citations,web_factcheck,topic_delivery",
        "qa_critic_veto_threshold": "65",
    },
    {"content_validator_warning_qa_penalty": "7", "qa_consistency_veto_threshold": "80"},
)


def _corpus() -> Iterator[tuple[str, DraftSubmitted, dict[str, str]]]:
    for labels in sorted((ROOT / "eval").glob("*/labels.csv")):
        folder = labels.parent
        settings_file = folder / "settings.json"
        overrides = json.loads(settings_file.read_text("utf-8")) if settings_file.exists() else {}
        with labels.open(encoding="utf-8", newline="") as rows:
            for n, row in enumerate(csv.DictReader(rows)):
                content = (folder / row["draft"]).read_text("utf-8")
                draft_id = f"{folder.name}-{n}"
                title = row.get("title") or row["draft"]
                yield draft_id, DraftSubmitted(draft_id, 1, title, content), overrides


async def _eval_decisions() -> Iterator[QADecision]:
    validator = get_reviewer("validator")
    out: list[QADecision] = []
    rng = random.Random(2026)
    for _, draft, overrides in _corpus():
        base = apply_overrides(Settings(), {k: str(v) for k, v in overrides.items()})
        result = await run_reviewer(validator, draft, base, Deps(now=lambda: T0))
        for round_ in range(3):
            gates = [_gate(rng, name, provider, draft, T0) for name, provider, _ in GATES]
            results: list[ReviewerResult] = [result, *gates]
            timed_out = round_ == 1
            early = round_ == 2
            if timed_out or early:
                results = results[: 1 + rng.randrange(len(gates))]
            for variant in VARIANTS:
                settings = apply_overrides(base, variant) if variant else base
                out.append(
                    build_decision(
                        draft,
                        results,
                        settings,
                        expected=EXPECTED,
                        decided_at=T0 + timedelta(seconds=round_),
                        timed_out=timed_out,
                        early=early,
                    )
                )
    return iter(out)


async def _history_decisions() -> Iterator[QADecision]:
    history = await make_history(2000)
    decisions = [decode(encode(d), QADecision) for d in history.decisions]
    reviews = [decode(encode(r), ReviewerResult) for r in history.reviews]
    out: list[QADecision] = list(decisions)
    for variant in VARIANTS:
        settings = apply_overrides(Settings(), variant) if variant else Settings()
        report = rescore(decisions, reviews, settings)
        out.extend(i.rescored for i in report.items if i.rescored is not None)
    return iter(out)


async def _lines() -> list[str]:
    lines = []
    for decisions in (await _eval_decisions(), await _history_decisions()):
        lines.extend(json.dumps(to_dict(d, json=True), sort_keys=True) for d in decisions)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path, metavar="FILE")
    group.add_argument("--compare", type=Path, metavar="FILE")
    args = parser.parse_args()
    lines = asyncio.run(_lines())
    if args.write:
        args.write.write_text("\n".join(lines) + "\n", "utf-8")
        print(f"wrote {len(lines)} decisions to {args.write}")
        return
    before = args.compare.read_text("utf-8").splitlines()
    if len(before) != len(lines):
        raise SystemExit(f"{len(lines)} decisions now, {len(before)} in {args.compare}")
    differ = [n for n, (a, b) in enumerate(zip(before, lines, strict=True)) if a != b]
    for n in differ[:5]:
        print(f"decision {n} differs:\n  before {before[n][:600]}\n  now    {lines[n][:600]}")
    if differ:
        raise SystemExit(f"{len(differ)} of {len(lines)} decisions differ")
    approved = sum(json.loads(line)["approved"] for line in lines)
    print(f"all {len(lines)} decisions equal field for field ({approved} approved)")


if __name__ == "__main__":
    main()
