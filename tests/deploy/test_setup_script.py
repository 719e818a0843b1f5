"""scripts/setup.sh (what `make demo` and `make test` run first): it reuses a good virtualenv
without touching pip, refuses a broken one in one line, never falls back to the system Python,
and serialises two setups of one checkout. Creating a virtualenv from scratch is what the clean
clone run does (README, figures); here every case runs against a virtualenv of the test's own
(MULTIQA_VENV), never the checkout's .venv."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SETUP = REPO / "scripts" / "setup.sh"
NOBODY = 65534


def _setup(venv: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SETUP)],
        env={**os.environ, "MULTIQA_VENV": str(venv), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _stamp(venv: Path) -> Path:
    import hashlib

    digest = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()[:16]
    return venv / f".multiqa-setup-{digest}"


@pytest.fixture
def ready_venv(tmp_path: Path) -> Path:
    """A real virtualenv (no pip in it) that sees this test run's packages through a .pth file,
    stamped as set up for the current pyproject.toml: what a second `make test` finds."""
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "parent.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n{REPO}\n")
    _stamp(venv).touch()
    return venv


def test_a_ready_virtualenv_is_reused_without_pip(ready_venv: Path) -> None:
    proc = _setup(ready_venv)
    assert proc.returncode == 0, proc.stderr
    assert "pip install" not in proc.stdout and "creating" not in proc.stdout


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("setup: error: "), proc.stderr
    return lines[0]


def test_a_venv_that_is_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    venv.write_text("not a virtualenv")
    line = _one_error_line(_setup(venv))
    assert "is not a directory" in line and f"rm -rf {venv}" in line
    assert venv.read_text() == "not a virtualenv"  # left as it was


def test_a_venv_whose_python_is_gone_is_refused_in_one_line(ready_venv: Path) -> None:
    python = ready_venv / "bin" / "python"
    python.unlink()
    python.symlink_to("/nonexistent/python3")  # the interpreter it was made from is gone
    line = _one_error_line(_setup(ready_venv))
    assert "is not a usable virtualenv" in line and "does not run" in line
    assert (ready_venv / "pyvenv.cfg").exists()  # nothing deleted


def test_a_folder_that_is_no_venv_is_refused_in_one_line(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "notes.txt").write_text("someone's work")
    line = _one_error_line(_setup(venv))
    assert "no readable pyvenv.cfg" in line
    assert (venv / "notes.txt").read_text() == "someone's work"


def test_an_interpreter_too_old_or_missing_is_refused_in_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\nexit 1\n")  # runs, but is no Python 3.11
    fake.chmod(0o755)
    line = _one_error_line(_setup(tmp_path / "venv", MULTIQA_PYTHON=str(fake)))
    assert "is not Python 3.11 or newer" in line
    assert not (tmp_path / "venv").exists()


def test_two_setups_of_one_checkout_run_one_after_the_other(ready_venv: Path) -> None:
    lock = REPO / ".cache" / "setup.lock"
    lock.parent.mkdir(exist_ok=True)
    with open(lock, "a+") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        proc = subprocess.Popen(
            ["bash", str(SETUP)],
            env={**os.environ, "MULTIQA_VENV": str(ready_venv)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.5)
        assert proc.poll() is None  # waits for the first one
        fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "waiting for another setup" in out


@pytest.fixture
def as_another_user(
    tmp_path: Path,
) -> Iterator[tuple[Path, Callable[[Path], subprocess.CompletedProcess[str]]]]:
    """A checkout owned by `nobody` holding only the setup script, and a way to run that script
    as `nobody` against a given venv: what `make demo` meets after an earlier `sudo make demo`
    left a root-owned .venv (only root can make files another user cannot read)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to act as another user")
    checkout = Path(tempfile.mkdtemp(prefix="multiqa-setup-test-", dir="/tmp"))
    (checkout / "scripts").mkdir()
    shutil.copy2(SETUP, checkout / "scripts" / "setup.sh")
    shutil.copy2(REPO / "pyproject.toml", checkout / "pyproject.toml")
    for path in (checkout, checkout / "scripts", *checkout.rglob("*")):
        os.chown(path, NOBODY, NOBODY)
    checkout.chmod(0o755)

    def run(venv: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                "setpriv",
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                "bash",
                str(checkout / "scripts" / "setup.sh"),
            ],
            env={"PATH": os.environ["PATH"], "HOME": str(checkout), "MULTIQA_VENV": str(venv)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    yield checkout, run
    shutil.rmtree(checkout, ignore_errors=True)


def _root_owned_venv(checkout: Path, mode: int) -> Path:
    venv = checkout / ".venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    venv.chmod(mode)
    return venv


def test_a_venv_the_user_cannot_read_is_refused_in_one_line(as_another_user) -> None:
    checkout, run = as_another_user
    venv = _root_owned_venv(checkout, 0o700)
    line = _one_error_line(run(venv))
    assert f"cannot read {venv} (owner root, you are nobody)" in line
    assert "sudo chown -R nobody" in line
    assert (venv / "pyvenv.cfg").exists()  # nothing deleted


def test_a_venv_the_user_cannot_write_is_refused_before_pip(as_another_user) -> None:
    checkout, run = as_another_user
    venv = _root_owned_venv(checkout, 0o755)  # readable, runs, never set up: pip would fail
    proc = run(venv)
    line = _one_error_line(proc)
    assert f"cannot write to {venv}" in line and "needs an install" in line
    assert "pip install" not in proc.stdout
