"""The progress bar of long commands (rereview, rescore) as a log sees it (not a terminal), on a
clock the test moves: a line per 10 % at most every 10 s, the last one once, slow items shown as
seconds each."""

from __future__ import annotations

import io
import time

import pytest

from streams.cli.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(time, "monotonic", fake)  # what progress.time.monotonic is
    return fake


def test_a_log_gets_a_line_per_step_and_the_last_line_once(clock: Clock) -> None:
    out = io.StringIO()
    bar = Progress("rereview", 3, stream=out)
    for _ in range(3):
        clock.now += 25.0  # a model call each
        bar.advance()
    bar.close()
    lines = out.getvalue().splitlines()
    # Found in the audit: the final "3/3 ... done" line was printed twice.
    assert [line.split(" [")[0] for line in lines] == [
        "rereview 1/3",
        "rereview 2/3",
        "rereview 3/3",
    ]
    assert lines[-1].endswith("done") and lines.count(lines[-1]) == 1
    # ...and the speed of slow items read "0.0/s".
    assert "25.0s each" in lines[0] and "0.0/s" not in out.getvalue()
    assert "eta 0m50s" in lines[0]


def test_a_fast_run_prints_at_most_every_ten_seconds_and_always_its_end(clock: Clock) -> None:
    out = io.StringIO()
    bar = Progress("rescore", 1000, stream=out)
    for _ in range(1000):
        clock.now += 0.001
        bar.advance()
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # the first step, then the end (1 s in all, not 10 s per line)
    assert lines[-1].startswith("rescore 1000/1000") and "1000.0/s" in lines[-1]


def test_disabled_prints_nothing(clock: Clock) -> None:
    out = io.StringIO()
    bar = Progress("rereview", 2, stream=out, enabled=False)
    bar.advance()
    bar.advance()
    bar.close()
    assert out.getvalue() == ""
