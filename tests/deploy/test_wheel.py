"""The packaged install, as deploy/Dockerfile and a `pip install multiqa` user get it: build the
wheel, pip install it (with its dependencies, not editable) into a fresh virtualenv, and use it
from a folder outside the checkout: `multiqa --help`, `multiqa db migrate` against a fresh
database, and one draft through `multiqa worker` and `multiqa submit --wait`.

About a minute (most of it pip installing the dependencies from the local cache)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import asyncpg
import pytest
from aiokafka.admin import AIOKafkaAdminClient

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("agents", "schemas", "streams")


def _run(argv: list[str], *, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )


def _tracked(*paths: str) -> list[str]:
    """Files git tracks under `paths` (what a fresh clone has)."""
    proc = _run(["git", "-C", str(REPO), "ls-files", "-z", "--", *paths])
    assert proc.returncode == 0, proc.stderr
    return [name for name in proc.stdout.split("\0") if name]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy of the tracked files deploy/Dockerfile copies, never in the checkout:
    # setuptools reuses a build/ folder it finds (build/lib), so a checkout that was built before
    # would carry files since deleted into the wheel, and untracked files in the packages would
    # ride along too (test_the_wheel_holds_the_tracked_files_and_nothing_else checks).
    src = tmp_path_factory.mktemp("src")
    for name in _tracked("pyproject.toml", "README.md", *PACKAGES):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    proc = _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(out), "."],
        cwd=src,
    )
    assert proc.returncode == 0, proc.stderr
    (built,) = out.glob("multiqa-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtualenv (the interpreter this venv was made from) with the wheel installed."""
    root = tmp_path_factory.mktemp("venv") / "v"
    base = getattr(sys, "_base_executable", sys.executable)
    assert _run([base, "-m", "venv", str(root)]).returncode == 0
    proc = _run([str(root / "bin" / "pip"), "install", "-q", str(wheel)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    yield root


def _clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    """No PYTHONPATH, no dev-stack variables, a cache dir of its own: only what is given."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {**keep, "MULTIQA_CACHE_DIR": str(tmp / "cache"), "PYTHONUNBUFFERED": "1", **extra}


def test_the_wheel_holds_every_file_the_packages_read(wheel: Path) -> None:
    """Every non-Python file under the packages (SQL migrations, Avro schemas, ...) is in it."""
    names = set(zipfile.ZipFile(wheel).namelist())
    data = [
        path.relative_to(REPO).as_posix()
        for package in PACKAGES
        for path in (REPO / package).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]
    assert any(name.endswith(".sql") for name in data)
    assert sorted(set(data) - names) == []


def test_the_wheel_holds_the_tracked_files_and_nothing_else(wheel: Path) -> None:
    """Exactly the packages' tracked files: nothing from a stale build/ or an untracked file."""
    names = {
        name
        for name in zipfile.ZipFile(wheel).namelist()
        if not name.split("/")[0].endswith((".dist-info", ".data"))
    }
    tracked = set(_tracked(*PACKAGES))
    assert "streams/runtime/db/migrations/001_initial.sql" in names
    assert sorted(names - tracked) == []  # nothing but tracked files
    assert sorted(tracked - names) == []  # and all of them


def test_installed_multiqa_runs_outside_the_checkout(venv: Path, tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    where = _run(
        [str(venv / "bin" / "python"), "-c", "import streams; print(streams.__file__)"],
        cwd=tmp_path,
        env=env,
    )
    assert where.stdout.startswith(str(venv)), where  # the wheel's copy, not the checkout's
    helped = _run([str(venv / "bin" / "multiqa"), "--help"], cwd=tmp_path, env=env)
    assert helped.returncode == 0 and "worker" in helped.stdout and "submit" in helped.stdout


def _migration_files() -> list[str]:
    folder = REPO / "streams" / "runtime" / "db" / "migrations"
    return sorted(p.name for p in folder.glob("*.sql"))


async def _topics_exist(bootstrap: str, names: list[str]) -> bool:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return set(names) <= set(await admin.list_topics())
    finally:
        await admin.close()


async def _delete_topics(bootstrap: str, prefixes: tuple[str, ...]) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        names = [n for n in await admin.list_topics() if n.startswith(prefixes)]
        if names:
            await admin.delete_topics(names)
    except Exception:  # best effort: the names are unique anyway
        pass
    finally:
        await admin.close()


async def test_migrate_and_one_draft_round_trip(
    venv: Path,
    tmp_path: Path,
    kafka_bootstrap: str,
    pg_dsn: str,
    unique_topics: Callable[[str], str],
) -> None:
    multiqa = str(venv / "bin" / "multiqa")
    migrated = await asyncio.to_thread(
        _run, [multiqa, "db", "migrate", "--dsn", pg_dsn], cwd=tmp_path, env=_clean_env(tmp_path)
    )
    assert migrated.returncode == 0, migrated.stderr
    versions = ", ".join(name[:3] for name in _migration_files())
    assert f"applied migrations {versions}; {len(_migration_files())} in all" in migrated.stdout

    prefix = "wheel-" + uuid.uuid4().hex[:8]
    env = _clean_env(
        tmp_path,
        MULTIQA_BOOTSTRAP_SERVERS=kafka_bootstrap,
        MULTIQA_DATABASE_URL=pg_dsn,
        MULTIQA_APP_PREFIX=prefix,
        MULTIQA_DRAFTS_TOPIC=unique_topics("qa.drafts"),
        MULTIQA_REVIEWS_TOPIC=unique_topics("qa.reviews"),
        MULTIQA_DECISIONS_TOPIC=unique_topics("qa.decisions"),
        MULTIQA_DEAD_LETTERS_TOPIC=unique_topics("qa.dead-letters"),
        MULTIQA_PARTITIONS="1",
        MULTIQA_REVIEWERS="validator",
        MULTIQA_DATADIR=str(tmp_path / "faust"),
        MULTIQA_BROKER_SESSION_TIMEOUT="10",
        MULTIQA_BROKER_HEARTBEAT_INTERVAL="1",
        MULTIQA_BROKER_REBALANCE_TIMEOUT="10",
        # Its own operations port (the default 9464 may be another worker's on this machine).
        MULTIQA_OPS_PORT="0",
    )
    log_path = tmp_path / "worker.log"
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            [multiqa, "worker"], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 90
        while not await _topics_exist(kafka_bootstrap, [env["MULTIQA_DRAFTS_TOPIC"]]):
            assert worker.poll() is None, log_path.read_text()[-3000:]
            assert time.monotonic() < deadline, "the worker created no topics within 90 s"
            await asyncio.sleep(0.5)
        post = tmp_path / "post.md"
        post.write_text(
            "# Descaling a kettle\n\nHard water leaves limescale on the element. Fill the kettle "
            "with equal parts water and white vinegar, let it stand for an hour, then boil and "
            "rinse twice. Doing this every few months keeps the kettle quiet and quick.\n"
        )
        submitted = await asyncio.to_thread(
            _run,
            [multiqa, "submit", str(post), "--draft-id", f"{prefix}-d1", "--wait"],
            cwd=tmp_path,
            env=env,
            timeout=180,
        )
        assert submitted.returncode == 0, (submitted.stderr, log_path.read_text()[-3000:])
        assert f"(draft {prefix}-d1 v1)" in submitted.stdout
        assert "validator" in submitted.stdout
        # ...and the installed sinks wrote it to PostgreSQL (migrated by the installed command).
        conn = await asyncpg.connect(pg_dsn)
        try:
            async with asyncio.timeout(60):
                while not await conn.fetchval(
                    "SELECT count(*) FROM qa_decisions WHERE draft_id = $1", f"{prefix}-d1"
                ):
                    await asyncio.sleep(0.5)
        finally:
            await conn.close()
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        await _delete_topics(kafka_bootstrap, (prefix, unique_topics("")))
