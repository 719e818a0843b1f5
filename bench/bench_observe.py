"""What the operations hooks cost per event, next to baselines measured in the same run.

    python bench/bench_observe.py [--n 20000]

- record_result (a validator result with 3 findings, a critic result with model cost) and
  record_decision, against one bare prometheus-client Counter.inc() (the floor of any metric);
- the log filter per record, against a logging.Handler with no filter;
- /metrics rendering (generate_latest) of the registry after the run.
Stream events cost milliseconds each (README, Performance); these are microseconds.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable

from prometheus_client import REGISTRY, Counter, generate_latest

from schemas.records import Cost, Finding, Provider, QADecision, ReviewerResult, Severity, Span
from streams.runtime.observe import LogContextFilter, draft_context, record_decision, record_result


def per_second(fn: Callable[[], object], n: int) -> float:
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = max(best, n / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20000)
    n = parser.parse_args().n
    findings = tuple(
        Finding(code, Severity.WARNING, "m", Span(0, 4, "text"))
        for code in ("filler_phrase", "internal_path", "html_markup")
    )
    validator = ReviewerResult("validator", True, 91.0, "ok", Provider.PROGRAMMATIC,
                               findings=findings, cost=Cost(duration_ms=2))  # fmt: skip
    critic = ReviewerResult(
        "critic",
        True,
        85.0,
        "ok",
        Provider.OLLAMA,
        cost=Cost(
            tokens_in=1800, tokens_out=240, kwh=0.002, duration_ms=8400, model="ollama/gemma3:27b"
        ),
    )
    decision = QADecision("id", "d", 1, True, 80.0, "s", "f", early_decided=True)
    bare = Counter("bench_bare", "baseline")
    record = logging.LogRecord("multiqa", logging.INFO, __file__, 1, "msg", None, None)
    log_filter = LogContextFilter()

    def with_context() -> None:
        with draft_context("d-1", 1):
            log_filter.filter(record)

    rows = [
        ("prometheus Counter.inc() (baseline)", per_second(bare.inc, n)),
        ("record_result(validator, 3 findings)", per_second(lambda: record_result(validator), n)),
        ("record_result(critic, model cost)", per_second(lambda: record_result(critic), n)),
        ("record_decision(early)", per_second(lambda: record_decision(decision), n)),
        ("log filter, no span, no draft", per_second(lambda: log_filter.filter(record), n)),
        ("log filter inside draft_context", per_second(with_context, n)),
    ]
    base = rows[0][1]
    print(f"{'measurement':<40} {'per second':>12} {'us each':>9} {'x baseline':>11}")
    for name, rate in rows:
        print(f"{name:<40} {rate:>12,.0f} {1e6 / rate:>9.2f} {base / rate:>11.1f}")
    start = time.perf_counter()
    body = generate_latest(REGISTRY)
    print(f"/metrics render: {len(body):,} bytes in {(time.perf_counter() - start) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
