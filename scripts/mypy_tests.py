"""Type-check tests/ with mypy: the project's configuration ([tool.mypy] in pyproject.toml), relaxed
as pyproject.toml explains next to it (bodies are checked, annotations on tests and fixtures are not
required).

Test folders are not packages: pytest imports every test module by its file name, and the shared
helpers by their bare names (`from fakes import ...`, `from stream_helpers import ...`), so mypy
sees them the same way (MYPY_PATH below). The only file names that repeat are the conftest.py
files of those helper folders; mypy refuses two modules of one name in a run, so each of those gets
a run of its own (the cache makes the extra runs cheap). Exit status: mypy's worst.

    .venv/bin/python scripts/mypy_tests.py [extra mypy arguments]
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Folders whose modules tests import by bare name (pytest puts each test's folder on sys.path).
MYPY_PATH = (
    "tests/agents",
    "tests/agents/net",
    "tests/schemas",
    "tests/streams",
    "tests/streams/observe",
)
# The strict flags tests are excused from (see the [tool.mypy] comments in pyproject.toml).
RELAXED = (
    "--allow-untyped-defs",
    "--allow-incomplete-defs",
    "--allow-untyped-calls",
    "--no-warn-return-any",
    "--allow-any-generics",
    "--implicit-reexport",
    "--explicit-package-bases",
)


def module_name(path: Path) -> str:
    """The name mypy gives `path` with --explicit-package-bases: relative to the most specific
    folder of MYPY_PATH (or the checkout) that holds it."""
    rel = path.relative_to(ROOT)
    bases = [Path(b) for b in MYPY_PATH if rel.is_relative_to(b)]
    base = max(bases, key=lambda b: len(b.parts)) if bases else Path()
    return ".".join(rel.relative_to(base).with_suffix("").parts)


def runs(files: list[Path]) -> list[list[Path]]:
    """Files split into as few runs as possible with no module name twice in a run."""
    by_name: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        by_name[module_name(path)].append(path)
    batches: list[list[Path]] = [[]]
    for same in by_name.values():
        while len(batches) < len(same):
            batches.append([])
        for batch, path in zip(batches, same, strict=False):
            batch.append(path)
    return [b for b in batches if b]


def main(argv: list[str]) -> int:
    files = sorted((ROOT / "tests").rglob("*.py"))
    env = {**os.environ, "MYPYPATH": os.pathsep.join(MYPY_PATH)}
    worst = 0
    for batch in runs(files):
        paths = [str(p.relative_to(ROOT)) for p in batch]
        command = [sys.executable, "-m", "mypy", *RELAXED, *argv, *paths]
        done = subprocess.run(command, cwd=ROOT, env=env, check=False)  # noqa: S603 (our argv)
        worst = max(worst, done.returncode)
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
