"""A peer nobody on the team wrote: the seed's upstream validator on multiqa's corpus.

    python bench/bench_upstream_validator.py UPSTREAM_FILE [--markdown]

UPSTREAM_FILE is Glad-Labs/poindexter's src/cofounder_agent/modules/content/content_validator.py
from a local checkout (not part of this repository; never copied into it). It is imported
as-is with small stand-ins for the services it imports (logger, crawler user agent, a settings
object answering every key with the caller's default, every rule enabled), and run on every draft
of every split of eval/. A draft counts as rejected when `passed` is False; a defect draft
is caught when it is rejected (or, for drafts labelled approved, such as light filler, when a
warning of the family fired) and one of upstream's categories for its family fired, the same
rule multiqa's eval uses. Upstream's "company facts" stand-in is an empty site config, as in its
own tests.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from seed_rules import REPO

SPLITS = ("dev", "heldout", "heldout2", "heldout3")

# Upstream's categories by multiqa family (from upstream's content_validator.md rule table).
FAMILIES: dict[str, set[str]] = {
    "first_person": {"fabricated_experience"},
    "truncation": {"truncated_content", "truncated_at_heading", "json_envelope_leak"},
    "placeholder": {"image_placeholder", "placeholder_citation", "unresolved_placeholder"},
    "leaked_output": {
        "reasoning_token_leak",
        "prompt_leak",
        "planning_dump",
        "leaked_planning_scaffold",
        "leaked_image_prompt",
    },
    "fake_people": {"fake_person", "fake_quote"},
    "unsourced_stats": {"fake_stat", "unlinked_citation"},
    "company_claim": {"company_claim"},
    "filler": {"filler_phrase", "filler_intro", "banned_header", "buzzword_density"},
    "injection": set(),  # upstream has no injection rule
}


class _SiteConfig:
    """Every key answers with the caller's default (upstream's tests use a bare SiteConfig)."""

    _pool = None

    def get(self, key: str, default: Any = "") -> Any:
        return default

    def get_int(self, key: str, default: int = 0) -> int:
        return default

    def get_bool(self, key: str, default: bool = False) -> bool:
        return default

    def get_list(self, key: str, default: Any = None) -> Any:
        return default or []


def _stub(name: str, **attrs: Any) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module


def load_upstream(path: Path) -> Callable[..., Any]:
    _stub("services")
    _stub("services.logger_config", get_logger=logging.getLogger)
    _stub("utils")
    _stub("utils.crawler_ua", build_crawler_ua=lambda *a, **k: "bench")
    _stub("services.validator_config", is_validator_enabled=lambda *a, **k: True)
    spec = importlib.util.spec_from_file_location("upstream_content_validator", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    validate: Callable[..., Any] = module.validate_content
    return validate


def evaluate(validate: Callable[..., Any], split: str) -> dict[str, tuple[int, int]]:
    import csv

    folder = REPO / "eval" / split
    rows = list(csv.DictReader((folder / "labels.csv").read_text("utf-8").splitlines()))
    found: dict[str, tuple[int, int]] = {}
    clean = rejected = 0
    for row in rows:
        content = (folder / row["draft"]).read_text("utf-8", errors="replace")
        result = validate(row.get("title", ""), content, site_config=_SiteConfig())
        categories = {issue.category for issue in result.issues}
        decided = "approved" if result.passed else "rejected"
        if row["family"] == "clean":
            clean += 1
            rejected += decided == "rejected"
            continue
        hit = bool(categories & FAMILIES[row["family"]]) and decided == row["expected"]
        caught, total = found.get(row["family"], (0, 0))
        found[row["family"]] = (caught + hit, total + 1)
    found["clean rejected"] = (rejected, clean)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("upstream", type=Path, help="path to upstream's content_validator.py")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    validate = load_upstream(args.upstream)
    results = {split: evaluate(validate, split) for split in SPLITS}
    if args.markdown:
        print("| | " + " | ".join(SPLITS) + " |\n|---|" + "---|" * len(SPLITS))
    for name in results["dev"]:
        cells = []
        for split in SPLITS:
            hit, total = results[split].get(name, (0, 0))
            cells.append(f"{hit / total:.0%} ({hit}/{total})" if total else "-")
        print(f"| {name} | " + " | ".join(cells) + " |" if args.markdown else f"{name:24s} {cells}")


if __name__ == "__main__":
    main()
