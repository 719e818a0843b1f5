"""Eval figures on every corpus split, for today's validator and the seed-rule baseline.

    python bench/bench_eval.py [--markdown]

For each split (eval/dev: rules are tuned on it; the held-out splits were written and frozen
before tuning, eval/README.md says which were seen since), runs `multiqa eval`'s in-process
review with the validator alone, once with today's rules and once with the rules at
bench/seed_rules.SEED_COMMIT (same corpus, same aggregation, same family mapping by rule code),
and prints recall per family and clean false rejections side by side. `--markdown` prints the
README table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from seed_rules import REPO, SEED_COMMIT, run_in_seed

SPLITS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6")

# Runs in a child process on the seed tree. Rule codes map to families with today's table (the
# seed had other family names): argv[1] is that mapping as JSON, argv[2] the split folder.
_CHILD = """
import asyncio, json, sys
from agents.evaluation import build_report, load_corpus, run_eval
from agents.settings import Settings
families = json.loads(sys.argv[1])
corpus = load_corpus(sys.argv[2], set(families.values()))
outcomes = asyncio.run(run_eval(corpus, Settings.from_mapping(corpus.settings),
                                rule_families=families))
print(json.dumps(build_report(corpus.name, "validator", outcomes).to_json(0.95, 0.02)))
"""


def current(split: Path) -> dict[str, Any]:
    from agents.evaluation import build_report, load_corpus, rule_families, run_eval
    from agents.settings import Settings

    corpus = load_corpus(split, rule_families())
    outcomes = asyncio.run(run_eval(corpus, Settings.from_mapping(corpus.settings)))
    return build_report(corpus.name, "validator", outcomes).to_json(0.95, 0.02)


def seed(split: Path) -> dict[str, Any]:
    from agents.reviewers.validator import rules

    families = json.dumps({r.code: r.family for r in rules()})
    return dict(json.loads(run_in_seed(_CHILD, families, str(split))))


_INJECTION = "validator: critical prompt_injection "


def rows(report: dict[str, Any]) -> dict[str, str]:
    out = {
        name: f"{f['recall']:.0%} ({f['caught']}/{f['drafts']})"
        for name, f in report["families"].items()
    }
    clean = report["clean"]
    out["clean false rejections"] = (
        f"{clean['false_reject_rate']:.1%} ({clean['rejected']}/{clean['drafts']})"
    )
    # Clean drafts rejected by a critical of some rule other than issue 12's prompt_injection:
    # the false rejections of the other rules (a draft rejected by both counts here too).
    own = sum(
        any(
            line.startswith("validator: critical ") and not line.startswith(_INJECTION)
            for line in d["findings"]
        )
        for d in report["disagreements"]
        if d["family"] == "clean" and d["decided"] == "rejected"
    )
    out["clean rejected, prompt_injection aside"] = (
        f"{own / clean['drafts']:.1%} ({own}/{clean['drafts']})"
    )
    out["clean held for review"] = (
        f"{clean['review'] / clean['drafts']:.1%} ({clean['review']}/{clean['drafts']})"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the README table")
    args = parser.parse_args()
    results = {}
    for split in SPLITS:
        folder = REPO / "eval" / split
        results[split] = (rows(seed(folder)), rows(current(folder)))
    names = list(results["dev"][1])
    header = ["", *(f"{s} {r}" for s in SPLITS for r in (f"seed@{SEED_COMMIT}", "now"))]
    table = [
        [name, *(results[s][i].get(name, "-") for s in SPLITS for i in (0, 1))] for name in names
    ]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in table:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(str(r[i])) for r in [header, *table]) for i in range(len(header))]
    for row in [header, *table]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
