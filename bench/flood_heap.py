"""What a worker's heap holds, before and after a flood (`bench_flood.py --heap DIR`).

The bench starts the worker with `hook_env(DIR)`: a generated `sitecustomize` that calls
`install` at interpreter start-up, which records the heap whenever the worker gets `SIGNAL` (a
real-time signal: Faust's worker owns SIGUSR1 and SIGUSR2): DIR/<pid>-<n>.json holds the
process's RSS, the live objects per type after a full collection, CPython's small-object
allocator (pymalloc: its arenas, the bytes in live blocks, the free blocks and pools inside
arenas still held) and glibc's heap (mallinfo2: bytes in use, free bytes it keeps). With
`traced` (PYTHONTRACEMALLOC) a tracemalloc snapshot DIR/<pid>-<n>.snap too. `report` compares two
records: what of RSS growth is live memory and what is free memory an allocator kept, the objects
grown by type and (traced) by allocating line.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import re
import signal
import sys
import tempfile
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

SIGNAL = signal.SIGRTMIN + 3
FRAMES = 8


def hook_env(directory: Path, pythonpath: str = "", *, traced: bool = False) -> dict[str, str]:
    """The environment that makes a worker `install` the heap recorder."""
    hook = directory / "_hook"
    hook.mkdir(parents=True, exist_ok=True)
    bench = Path(__file__).resolve().parent
    (hook / "sitecustomize.py").write_text(
        f"import sys\nsys.path.insert(0, {str(bench)!r})\n"
        f"import flood_heap\nflood_heap.install({str(directory)!r})\n"
    )
    paths = [str(hook), *([pythonpath] if pythonpath else [])]
    env = {"PYTHONPATH": os.pathsep.join(paths)}
    if traced:
        env["PYTHONTRACEMALLOC"] = str(FRAMES)
    return env


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pymalloc_stats() -> dict[str, int]:
    """CPython's small-object allocator, from `sys._debugmallocstats` (written to fd 2)."""
    with tempfile.TemporaryFile() as out:
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode(errors="replace")
    figures = {}
    for key, pattern in (
        ("arenas", r"# arenas allocated current\s*=\s*([\d,]+)"),
        ("arena_bytes", r"arenas \* \d+ bytes/arena\s*=\s*([\d,]+)"),
        ("live_blocks", r"# bytes in allocated blocks\s*=\s*([\d,]+)"),
        ("free_blocks", r"# bytes in available blocks\s*=\s*([\d,]+)"),
        ("free_pools", r"unused pools \* \d+ bytes\s*=\s*([\d,]+)"),
    ):
        found = re.search(pattern, text)
        figures[key] = int(found.group(1).replace(",", "")) if found else 0
    return figures


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost",
    )]  # fmt: skip


def glibc_stats() -> dict[str, int]:
    """glibc's heap (mallinfo2): bytes in use and free bytes it keeps (0s when not glibc)."""
    try:
        call = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return {"in_use": 0, "kept_free": 0, "mmapped": 0}
    call.restype = _MallInfo2
    info = call()
    return {"in_use": info.uordblks, "kept_free": info.fordblks, "mmapped": info.hblkhd}


def install(directory: str) -> None:
    taken = 0

    def snapshot(signum: int, frame: Any) -> None:
        nonlocal taken
        taken += 1
        base = Path(directory) / f"{os.getpid()}-{taken}"
        rss = _rss_kb()  # before this handler allocates anything
        gc.collect()
        types = Counter(type(o).__name__ for o in gc.get_objects())
        current = 0
        if tracemalloc.is_tracing():
            current, _ = tracemalloc.get_traced_memory()
            tracemalloc.take_snapshot().dump(str(base) + ".snap")
        summary = {
            "traced": current,
            "rss_kb": rss,
            "types": dict(types.most_common(300)),
            "pymalloc": pymalloc_stats(),
            "glibc": glibc_stats(),
        }
        tmp = base.with_suffix(".tmp")
        tmp.write_text(json.dumps(summary))
        tmp.rename(base.with_suffix(".json"))  # its presence says the snapshot is complete

    signal.signal(SIGNAL, snapshot)


def report(before: Path, after: Path, *, top: int = 15) -> str:
    """The growth from `before` to `after` (paths without a suffix)."""
    a = json.loads(before.with_suffix(".json").read_text())
    b = json.loads(after.with_suffix(".json").read_text())

    def mb(side: dict[str, Any], part: str, key: str) -> float:
        return float(side[part][key]) / 2**20

    def grew(part: str, key: str) -> str:
        old, new = mb(a, part, key), mb(b, part, key)
        return f"{old:.1f} -> {new:.1f} ({new - old:+.1f})"

    rss = (b["rss_kb"] - a["rss_kb"]) / 1024
    lines = [
        f"RSS {a['rss_kb'] / 1024:.1f} -> {b['rss_kb'] / 1024:.1f} MB ({rss:+.1f}). "
        f"pymalloc arenas {grew('pymalloc', 'arena_bytes')} MB: live blocks "
        f"{grew('pymalloc', 'live_blocks')}, free blocks {grew('pymalloc', 'free_blocks')}, "
        f"free pools {grew('pymalloc', 'free_pools')}; glibc in use {grew('glibc', 'in_use')}, "
        f"kept free {grew('glibc', 'kept_free')}, mmapped {grew('glibc', 'mmapped')} MB"
    ]
    if Path(str(before) + ".snap").exists() and Path(str(after) + ".snap").exists():
        old = tracemalloc.Snapshot.load(str(before) + ".snap")
        new = tracemalloc.Snapshot.load(str(after) + ".snap")
        ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
        old, new = old.filter_traces(ignore), new.filter_traces(ignore)
        traced = (b["traced"] - a["traced"]) / 2**20
        lines.append(
            f"traced allocations {a['traced'] / 2**20:.1f} -> {b['traced'] / 2**20:.1f} MB "
            f"({traced:+.1f}); grown most, by allocating line:"
        )
        for stat in new.compare_to(old, "lineno")[:top]:
            frame = stat.traceback[0]
            lines.append(
                f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  "
                f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno}"
            )
    grown = Counter(b["types"])
    grown.subtract(Counter(a["types"]))
    lines.append(
        "live objects grown most, by type: "
        + ", ".join(f"{name} {n:+d}" for name, n in grown.most_common(10) if n > 0)
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]), Path(sys.argv[2])))
