"""The validator on public text nobody on the team wrote (eval/public/*-manifest.csv).

The texts are third-party, so they are not in the repository: pass the folder that holds one
sub-folder per source (named like the manifest, e.g. freeagent/, autoblog/, poindexter-docs/),
each file named as the manifest's `draft` column. Rebuild it from snapshots of the listed
repositories (`git show <commit>:<path>`).

    python bench/bench_public_eval.py /path/to/public-texts [--company FreeAgent:2007 ...]

For every source and split (tuning / heldout) it prints how many texts each rule family
rejects, and the recall of `truncation` on mechanically cut copies of every text (seeded: cut
mid-word at 40-90% of its length; every other copy gets a Sources list put back after the cut,
so a cut hidden in front of one is measured too). `--labels` (eval/public/labels.csv) adds
clean false rejections and per-family recall for the labelled texts.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

from agents.reviewers.validator import rules, validate
from agents.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = ROOT / "eval" / "public"
_FAMILY = {r.code: r.family for r in rules()}
_COMPANIES = {"freeagent": ("FreeAgent", 2007)}


def cut(text: str, rng: random.Random, with_sources: bool) -> str:
    """A copy of `text` cut inside a word at 40-90% of its length."""
    pos = int(len(text) * rng.uniform(0.4, 0.9))
    while 0 < pos < len(text) - 1 and not (text[pos - 1].isalpha() and text[pos].isalpha()):
        pos += 1
    cut_text = text[:pos]
    if with_sources:
        cut_text += "\n\n## Sources\n\n- <https://example.org/a>\n- <https://example.org/b>\n"
    return cut_text


def families(text: str, settings: Settings) -> set[str]:
    report = validate(text, settings=settings)
    return {_FAMILY.get(f.code, f.code) for f in report.findings if f.severity.value == "critical"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("texts", type=Path)
    parser.add_argument("--labels", type=Path, default=MANIFESTS / "labels.csv")
    parser.add_argument("--split", choices=("tuning", "heldout", "both"), default="both")
    args = parser.parse_args(argv)
    labels: dict[str, str] = {}
    if args.labels.exists():
        with args.labels.open(newline="") as fh:
            labels = {f"{r['source']}/{r['draft']}": r["family"] for r in csv.DictReader(fh)}
    for manifest in sorted(MANIFESTS.glob("*-manifest.csv")):
        source = manifest.name.removesuffix("-manifest.csv")
        name, year = _COMPANIES.get(source, ("", 0))
        settings = Settings.from_mapping(
            {"company_name": name, "company_founded_year": str(year)} if name else {}
        )
        with manifest.open(newline="") as fh:
            rows = list(csv.DictReader(fh))
        for split in ("tuning", "heldout") if args.split == "both" else (args.split,):
            picked = [r for r in rows if r["split"] == split]
            rejected: Counter[str] = Counter()
            cut_caught = cut_held = 0
            clean = clean_rejected = 0
            hits: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
            rng = random.Random(f"{source}-{split}")
            for i, row in enumerate(picked):
                path = args.texts / source / row["draft"]
                if not path.exists():
                    print(f"missing {path}", file=sys.stderr)
                    return 2
                text = path.read_text(encoding="utf-8")
                found = families(text, settings)
                rejected.update(found)
                label = labels.get(f"{source}/{row['draft']}")
                if label == "clean":
                    clean += 1
                    clean_rejected += bool(found)
                elif label:
                    for family in label.split(";"):
                        hits[family][0] += 1
                        hits[family][1] += family in found
                cut_text = cut(text, rng, i % 2 == 1)
                caught = "truncation" in families(cut_text, settings)
                cut_caught += caught
                cut_held += (
                    not caught
                    and "possibly_truncated"
                    in validate(cut_text, settings=settings).human_review_codes()
                )
            total = len(picked)
            any_rejected = ", ".join(f"{k} {v}" for k, v in sorted(rejected.items())) or "none"
            print(f"{source:16} {split:8} {total:3} texts; rejected by family: {any_rejected}")
            print(
                f"{'':25} truncation on cut copies: {cut_caught}/{total} rejected,"
                f" {cut_held} more held for review"
            )
            if clean:
                print(f"{'':25} labelled clean rejected: {clean_rejected}/{clean}")
            for family, (n, caught) in sorted(hits.items()):
                print(f"{'':25} labelled {family}: {caught}/{n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
