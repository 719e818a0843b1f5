"""`multiqa` start-up: how long until the CLI answers when the answer needs no broker or database.

    python bench/bench_cli_startup.py [--runs 7]

Each case is a fresh process of this interpreter (so: interpreter start included), run `--runs`
times interleaved with the others, reported as median and fastest wall time, and as the median
minus the baseline's median (what multiqa itself adds). Peers in the same run:
- baseline: `python -c pass` (the interpreter alone);
- `import anthropic`: one model SDK (the issue measured 1.6 s; the CLI used to import it, and
  Faust, aiokafka, ollama, for every command);
- the whole parser built, imports counted (`-X importtime`: total import time of the run);
- with `--before DIR` (a checkout of an older commit, e.g. `git archive <commit> | tar -x -C
  DIR`), the same multiqa cases run from that checkout's sources (PYTHONPATH), in the same run.
Goal (issue 10): --help and every error that needs no broker or database within 0.5 s.
A loaded machine inflates every figure alike: read the added time and the ratios.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
MULTIQA = [PY, "-m", "streams.cli"]
REPO = Path(__file__).resolve().parents[1]


def cases(tmp: Path, before: Path | None = None) -> dict[str, tuple[list[str], dict[str, str]]]:
    plain = {
        "baseline: python -c pass": [PY, "-c", "pass"],
        "peer: python -c 'import anthropic'": [PY, "-c", "import anthropic"],
        "multiqa --help": [*MULTIQA, "--help"],
        "multiqa submit --help": [*MULTIQA, "submit", "--help"],
        "multiqa submit MISSING.md": [*MULTIQA, "submit", str(tmp / "missing.md")],
        "multiqa worker --bogus": [*MULTIQA, "worker", "--bogus"],
        "multiqa settings set qa_url_allowlist 10.0.0.0/33": [
            *MULTIQA,
            "settings",
            "set",
            "qa_url_allowlist",
            "10.0.0.0/33",
        ],
        "multiqa rescore --set qa_required_to_pass=critik": [
            *MULTIQA,
            "rescore",
            "--set",
            "qa_required_to_pass=critik",
        ],
    }
    # Every case runs in a neutral folder: `python -m`/`-c` put the working directory first on
    # sys.path, so run from a checkout they would import that checkout whatever PYTHONPATH says.
    table = {name: (argv, {"PYTHONPATH": str(REPO)}) for name, argv in plain.items()}
    if before is not None:
        for name, argv in plain.items():
            if name.startswith("multiqa"):
                table[f"{name} [before]"] = (argv, {"PYTHONPATH": str(before)})
    return table


def once(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run(
        argv, capture_output=True, check=False, timeout=300, env={**os.environ, **env}, cwd=cwd
    )
    elapsed = time.perf_counter() - started
    if b"Traceback" in proc.stderr:  # said, not hidden: a crash is not a start-up figure
        print(f"note: {' '.join(argv[1:])} ended in a traceback", file=sys.stderr)
    return elapsed


def imported_from(env: dict[str, str], cwd: Path) -> str:
    """Where `streams` comes from under env (to show which checkout a case ran)."""
    proc = subprocess.run(
        [PY, "-c", "import streams, os; print(os.path.dirname(os.path.dirname(streams.__file__)))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, **env},
        cwd=cwd,
    )
    return proc.stdout.strip()


def import_total(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds of import time (-X importtime, top-level entries) in one run of argv."""
    proc = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, **env},
        cwd=cwd,
    )
    total = 0
    for line in proc.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if match and not match.group(2).startswith(" "):
            total += int(match.group(1))
    return total / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path, help="an older checkout to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        before = args.before.resolve() if args.before is not None else None
        table = cases(where, before)
        now_env = {"PYTHONPATH": str(REPO)}
        print(f"multiqa from {imported_from(now_env, where)}")
        if before is not None:
            found = imported_from({"PYTHONPATH": str(before)}, where)
            if Path(found).resolve() != before:
                raise SystemExit(f"--before {before}: streams imports from {found} instead")
            print(f"multiqa [before] from {found}")
        times: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(args.runs):
            for name, (argv, env) in table.items():  # interleaved: load hits every case alike
                times[name].append(once(argv, env, where))
        base = statistics.median(times["baseline: python -c pass"])
        print(f"{'case':<61} {'median':>8} {'fastest':>8} {'added':>8} {'x base':>7}")
        for name, values in times.items():
            median = statistics.median(values)
            print(
                f"{name:<61} {median:8.3f} {min(values):8.3f} {median - base:8.3f} "
                f"{median / base:7.1f}"
            )
        build = [PY, "-c", "import streams.cli as c; c.build_parser()"]
        if before is not None:
            old = import_total(build, {"PYTHONPATH": str(before)}, where)
            print(f"\nimport time while building the whole parser [before]: {old:.3f} s")
        now = import_total(build, now_env, where)
        print(f"import time while building the whole parser: {now:.3f} s")
        sdk = import_total([PY, "-c", "import anthropic"], now_env, where)
        print(f"import time of `import anthropic` alone:     {sdk:.3f} s")


if __name__ == "__main__":
    main()
