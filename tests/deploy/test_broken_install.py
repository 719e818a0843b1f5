"""An installation without its SQL migrations (what a wheel built without its package data was):
`multiqa db migrate` and `multiqa worker` stop in one line saying so, exit 1. Before, both raised
FileNotFoundError; the worker took it for a database outage and retried forever.

The installation is a copy of the packages' tracked files without streams/runtime/db/migrations, run
from a folder outside the checkout (PYTHONPATH the copy only), against the real broker and
database."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def broken_install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("broken")
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--", "agents", "schemas", "streams"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for name in filter(None, listed.split("\0")):
        if name.startswith("streams/runtime/db/migrations/"):
            continue
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    assert not (root / "streams" / "runtime" / "db" / "migrations").exists()
    return root


def _multiqa(install: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(PYTHONPATH=str(install), MULTIQA_CACHE_DIR=str(cwd / "cache"), MULTIQA_OPS_PORT="0")
    return subprocess.run(
        [sys.executable, "-m", "streams.cli", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,  # the bug this guards against: a worker retrying forever
        check=False,
    )


def _one_line_naming_the_missing_migrations(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(lines) == 1, proc.stderr[-2000:]
    assert "no SQL migrations in this installation" in lines[0]
    assert "streams/runtime/db/migrations" in lines[0]


def test_db_migrate_says_the_installation_has_no_migrations(
    broken_install: Path, tmp_path: Path, pg_dsn: str
) -> None:
    proc = _multiqa(broken_install, tmp_path, "db", "migrate", "--dsn", pg_dsn)
    _one_line_naming_the_missing_migrations(proc)
    assert proc.stderr.startswith("multiqa db migrate: error:")


def test_a_worker_stops_instead_of_retrying_forever(
    broken_install: Path, tmp_path: Path, pg_dsn: str, kafka_bootstrap: str
) -> None:
    proc = _multiqa(
        broken_install,
        tmp_path,
        "worker",
        "--reviewers",
        "validator",
        "--bootstrap",
        kafka_bootstrap,
        "--dsn",
        pg_dsn,
    )
    _one_line_naming_the_missing_migrations(proc)
    assert "multiqa worker: error:" in proc.stderr
