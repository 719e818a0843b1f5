"""The seed-rule baseline: the validator as it was on main before issue 11, run beside today's.

`seed_tree()` builds, in a temporary folder, a copy of today's `agents` and `schemas` packages
whose `agents/reviewers/validator` is replaced by the one at SEED_COMMIT (`git archive`), so the
same eval, aggregation and bench code run the old rules. `run_in_seed(code)` runs Python code in a
child process with that tree first on sys.path and returns its stdout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# main just before issue 11's first commit: the rules the seed port shipped with.
SEED_COMMIT = "9fae49e"


class SeedUnavailable(RuntimeError):
    pass


def seed_tree(commit: str = SEED_COMMIT) -> Path:
    """A temporary folder holding agents/ (validator from `commit`) and schemas/."""
    root = Path(tempfile.mkdtemp(prefix="multiqa-seed-"))
    for package in ("agents", "schemas"):
        shutil.copytree(
            REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.rmtree(root / "agents" / "reviewers" / "validator")
    validator = root / "agents" / "reviewers" / "validator"
    try:
        # Since the move the validator is agents/reviewers/validator: take it whole.
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", commit, "agents/reviewers/validator"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
        return root
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(validator, ignore_errors=True)
    try:
        # The seed commit predates agents/reviewers/: its validator was agents/validator.
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", commit, "agents/validator"],
            check=True,
            capture_output=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise SeedUnavailable(f"commit {commit} not in this clone ({exc})") from None
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    old = root / "agents" / "validator"
    for path in old.rglob("*.py"):  # its own imports name its old place
        path.write_text(path.read_text().replace("agents.validator", "agents.reviewers.validator"))
    old.rename(validator)
    return root


def run_in_seed(code: str, *args: str, tree: Path | None = None) -> str:
    """Run `code` (a Python program) with the seed tree first on sys.path; returns stdout."""
    own = tree is None
    root = tree if tree is not None else seed_tree()
    try:
        program = (
            f"import sys; sys.path.insert(0, {str(root)!r}); sys.path.insert(1, {str(REPO)!r})\n"
        )
        result = subprocess.run(
            [sys.executable, "-c", program + code, *args],
            check=True,
            capture_output=True,
            text=True,
            cwd=root,
        )
        return result.stdout
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)
