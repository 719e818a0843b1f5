"""Validator findings before and after a change: identical, field for field, on every draft.

    python bench/check_findings.py [--against main]

Runs every draft of every labelled eval split (eval/dev, eval/heldout*), the public injection set
(tests/agents/injection/public_set.py) and bench_validator's synthetic drafts through validate()
twice: with the `agents` and `schemas` packages as they are at the commit `--against` (a `git
archive` in a temporary folder) and as they are in this tree, each in its own child process. Every
finding's code, severity, message and span (start, end, text) must match, in the same order.

Held-out drafts are compared, never shown: the output is counts, and on a mismatch only the
draft's id (open a dev draft to see why; a held-out one only tells you that something changed).
Exit 0 when identical, 1 when not.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Run in a child, with the tree to measure first on sys.path: reads the drafts (JSON on stdin),
# prints {id: [[code, severity, message, start, end, text], ...]}.
_CHILD = """
import json, sys
from agents.reviewers.validator import validate
from agents.settings import Settings
drafts = json.load(sys.stdin)
settings = {}
out = {}
for d in drafts:
    key = json.dumps(d["settings"], sort_keys=True)
    if key not in settings:
        settings[key] = Settings.from_mapping(d["settings"])
    report = validate(d["content"], title=d["title"], settings=settings[key])
    out[d["id"]] = [
        [f.code, str(f.severity), f.message]
        + ([f.span.start, f.span.end, f.span.text] if f.span is not None else [None, None, None])
        for f in report.findings
    ]
json.dump(out, sys.stdout)
"""


def drafts() -> list[dict[str, object]]:
    """Every draft to compare: id, title, content and the settings its split assumes."""
    from agents.evaluation import load_corpus, rule_families

    out: list[dict[str, object]] = []
    families = rule_families()
    for split in sorted((REPO / "eval").iterdir()):
        if not (split / "labels.csv").is_file():
            continue  # eval/public holds manifests of fetched drafts, not drafts
        corpus = load_corpus(split, families)
        for case in corpus.cases:
            out.append(
                {
                    "id": f"{split.name}/{case.name}",
                    "title": case.title,
                    "content": case.content,
                    "settings": dict(corpus.settings),
                }
            )
    path = REPO / "tests" / "agents" / "injection" / "public_set.py"
    spec = importlib.util.spec_from_file_location("_public_set", path)
    assert spec is not None and spec.loader is not None
    public = importlib.util.module_from_spec(spec)
    sys.modules["_public_set"] = public  # its dataclasses look their module up
    spec.loader.exec_module(public)
    for draft in public.drafts():
        out.append(
            {
                "id": f"public/{draft.id}",
                "title": draft.title,
                "content": draft.content,
                "settings": {},
            }
        )
    from bench_validator import make_dirty, make_draft

    for words in (300, 2000, 8000):
        clean = make_draft(words)
        for name, text in (("clean", clean), ("dirty", make_dirty(clean))):
            out.append(
                {"id": f"bench/{name}-{words}", "title": "", "content": text, "settings": {}}
            )
    return out


def _run(tree: Path, payload: str) -> dict[str, list[list[object]]]:
    program = f"import sys; sys.path.insert(0, {str(tree)!r})\n" + _CHILD
    result = subprocess.run(
        [sys.executable, "-c", program],
        input=payload,
        capture_output=True,
        text=True,
        cwd=tree,
    )
    if result.returncode != 0:
        raise SystemExit(f"validator at {tree} failed:\n{result.stderr[-3000:]}")
    found: dict[str, list[list[object]]] = json.loads(result.stdout)
    return found


def _tree_at(commit: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix="multiqa-findings-"))
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "agents", "schemas"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="main", help="commit to compare with (main)")
    args = parser.parse_args()
    items = drafts()
    payload = json.dumps(items)
    before_tree = _tree_at(args.against)
    try:
        before = _run(before_tree, payload)
    finally:
        shutil.rmtree(before_tree, ignore_errors=True)
    after = _run(REPO, payload)
    differ = [d["id"] for d in items if before.get(str(d["id"])) != after.get(str(d["id"]))]
    total = sum(len(v) for v in after.values())
    if differ:
        print(f"findings DIFFER on {len(differ)} of {len(items)} drafts (vs {args.against}):")
        for name in differ:
            print(f"  {name}")
        return 1
    print(f"findings identical on {len(items)} drafts ({total} findings) vs {args.against}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
