"""Plain `pytest` and `python -m pytest` collect the same tests: the folders tests/agents,
tests/schemas and tests/streams must not shadow the packages of the same names (pyproject's
`pythonpath = ["."]`). Collected as a subprocess each, on two areas that used to break."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AREAS = ["tests/schemas/test_codec_roundtrip.py", "tests/agents/test_settings.py"]


def _collect(argv: list[str]) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [*argv, "--collect-only", "-q", "-p", "no:cacheprovider", *AREAS],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    summary = proc.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ tests collected in [\d.]+s", summary), summary
    return summary.split(" in ")[0]


def test_plain_pytest_collects_what_python_m_pytest_collects() -> None:
    plain = _collect([str(Path(sys.executable).parent / "pytest")])
    module = _collect([sys.executable, "-m", "pytest"])
    assert plain == module
    assert int(plain.split()[0]) > 20
