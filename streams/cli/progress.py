"""A progress bar for long commands (`multiqa rereview`, `multiqa rescore`), on stderr.

On a terminal it redraws one line (`\\r`) at most ten times a second:

    rereview  120/500 [=======>                 ]  24%  3.1/s  eta 2m03s

Elsewhere (a log file, CI) it prints a plain line every 10% or every 10 s, whichever is later,
so a long run is visibly alive without flooding the log. `--quiet` commands pass `enabled=False`.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 24


class Progress:
    def __init__(
        self,
        label: str,
        total: int,
        *,
        stream: TextIO | None = None,
        enabled: bool = True,
    ) -> None:
        self.label = label
        self.total = max(0, total)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._last_draw = 0.0
        self._last_step = -1
        self._last_done = -1  # `done` when the last plain line was printed

    def advance(self, n: int = 1) -> None:
        self.done = min(self.total, self.done + n) if self.total else self.done + n
        self._maybe_draw()

    def line(self) -> str:
        elapsed = max(1e-9, time.monotonic() - self.started)
        rate = self.done / elapsed
        share = self.done / self.total if self.total else 1.0
        filled = int(share * _WIDTH)
        bar = "=" * filled + (">" if filled < _WIDTH else "") + " " * (_WIDTH - filled - 1)
        left = (self.total - self.done) / rate if rate > 0 and self.total else 0.0
        eta = f"eta {int(left // 60)}m{int(left % 60):02d}s" if self.done < self.total else "done"
        # Slow items (a model call each) read better as seconds per item than as "0.0/s".
        speed = f"{rate:.1f}/s" if rate >= 1 or not self.done else f"{1 / rate:.1f}s each"
        return (
            f"{self.label} {self.done:>{len(str(self.total))}}/{self.total} [{bar[:_WIDTH]}] "
            f"{share * 100:3.0f}%  {speed}  {eta}"
        )

    def _maybe_draw(self, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if final or now - self._last_draw >= 0.1:
                self.stream.write("\r" + self.line() + ("\n" if final else ""))
                self.stream.flush()
                self._last_draw = now
            return
        step = int(10 * self.done / self.total) if self.total else 10
        if final and self._last_done == self.done:
            return  # the last line already says this (no repeated "done" line in a log)
        if final or (step > self._last_step and now - self._last_draw >= 10.0):
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._last_draw, self._last_step, self._last_done = now, step, self.done

    def close(self) -> None:
        self._maybe_draw(final=True)
