"""Codec throughput: encode+decode records/s of a typical ReviewerResult and of a 2,000-word
DraftSubmitted, next to baselines measured in the same run.

    python bench/bench_codec.py [--seconds 0.5]

Rows:
- multiqa codec: `schemas.encode` / `schemas.decode` (type checks, validation, header, resolution).
- fastavro bare: fastavro's schemaless writer/reader on a ready datum (no checks, no records): the
  floor of what Avro costs in Python.
- json: `json.dumps`/`json.loads` of the same event as a JSON dict (`to_dict(json=True)`), the
  usual alternative.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from fastavro import schemaless_reader, schemaless_writer

from schemas import (
    Codec,
    Cost,
    DraftSubmitted,
    Finding,
    Provider,
    ReviewerResult,
    Severity,
    Span,
    decode,
    encode,
    to_dict,
    utc_now,
)
from schemas._schemas import load_dir

WORDS = [
    "the",
    "a",
    "storage",
    "network",
    "drive",
    "backup",
    "speed",
    "array",
    "cache",
    "power",
    "quiet",
    "price",
    "budget",
    "home",
    "office",
    "raid",
    "parity",
    "disk",
    "capacity",
    "terabyte",
    "cloud",
    "sync",
    "snapshot",
    "encryption",
    "throughput",
    "latency",
    "ssd",
    "hdd",
]


def typical_result() -> ReviewerResult:
    """What the critic publishes: a paragraph of feedback, three findings, a cost."""
    return ReviewerResult(
        "critic",
        True,
        78.0,
        "The draft is well structured and mostly accurate. The introduction promises a comparison "
        "of four models but only three are covered; the RAID section conflates RAID 5 and RAID 6 "
        "rebuild times; two statistics lack sources. Tone fits the site. Fix the missing model "
        "and the rebuild figures, then cite the survey numbers.",
        Provider.OLLAMA,
        findings=tuple(
            Finding(
                code,
                Severity.WARNING,
                message,
                Span(100 * i, 100 * i + 24, "a quoted sentence of text"),
            )
            for i, (code, message) in enumerate(
                [
                    ("unsourced_statistic", "'68% of households' has no source."),
                    ("incomplete_comparison", "Promised four models, covered three."),
                    ("technical_error", "RAID 6 rebuild time is that of RAID 5."),
                ]
            )
        ),
        cost=Cost(tokens_in=3120, tokens_out=410, kwh=0.0034, duration_ms=9100, model="gemma3:27b"),
        draft_id="0b6f7c1e-52a4-4a53-9c1e-3f2d7e8a9b10",
        version=2,
        produced_at=utc_now(),
        settings_version="a41f09c2",
    )


def long_draft(words: int = 2000) -> DraftSubmitted:
    rnd = random.Random(7)
    paragraphs = []
    for _ in range(words // 100):
        paragraphs.append(" ".join(rnd.choice(WORDS) for _ in range(100)) + ".")
    content = "# Choosing a NAS\n\n" + "\n\n".join(paragraphs)
    return DraftSubmitted(
        "0b6f7c1e-52a4-4a53-9c1e-3f2d7e8a9b10",
        2,
        "Choosing a NAS for a home office in 2026",
        content,
        task_id="task-1842",
        topic="home NAS buying guide",
        research_sources=tuple(f"https://example.com/source/{i}" for i in range(8)),
        writer_model="ollama/gemma3:27b",
        site_domain="example.org",
        submitted_at=utc_now(),
    )


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Calls per second: the best of three timed runs of about `seconds / 3` each."""
    n = 1
    while True:  # calibrate
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed > 0.05:
            break
        n *= 2
    per_run = max(1, int(n * (seconds / 3) / elapsed))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(per_run):
            fn()
        best = min(best, time.perf_counter() - start)
    return per_run / best


def rows(name: str, record: Any, seconds: float) -> list[tuple[str, str, int, float, float, float]]:
    data = encode(record)
    schema = [s for s in load_dir() if s.record == type(record).__name__][-1]
    datum = to_dict(record)
    as_json = to_dict(record, json=True)
    text = json.dumps(as_json)

    def bare_write() -> bytes:
        out = io.BytesIO()
        schemaless_writer(out, schema.parsed, datum)
        return out.getvalue()

    body = bare_write()

    def bare_read() -> object:
        return schemaless_reader(io.BytesIO(body), schema.parsed, None)

    cases = [
        ("multiqa codec", len(data), lambda: encode(record), lambda: decode(data)),
        ("fastavro bare", len(body), bare_write, bare_read),
        ("json", len(text.encode()), lambda: json.dumps(as_json), lambda: json.loads(text)),
    ]
    out = []
    for label, size, enc, dec in cases:
        e, d = rate(enc, seconds), rate(dec, seconds)

        def both(enc: Callable[[], object] = enc, dec: Callable[[], object] = dec) -> None:
            enc()
            dec()

        out.append((name, label, size, e, d, rate(both, seconds)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.6, help="time per measurement")
    args = parser.parse_args()
    result, draft = typical_result(), long_draft()
    table = rows("ReviewerResult (typical)", result, args.seconds)
    table += rows(f"DraftSubmitted ({len(draft.content.split())} words)", draft, args.seconds)

    # Resolution: an event written with ReviewerResult v1, read as v2.
    old = Codec(versions={"ReviewerResult": 1}).encode(result)
    resolve = rate(lambda: decode(old), args.seconds)

    header = f"{'record':<28} {'implementation':<15} {'bytes':>7} {'encode/s':>10} "
    header += f"{'decode/s':>10} {'enc+dec/s':>10}"
    print(header)
    print("-" * len(header))
    for name, label, size, e, d, both in table:
        print(f"{name:<28} {label:<15} {size:>7} {e:>10,.0f} {d:>10,.0f} {both:>10,.0f}")
    print(f"\nReviewerResult v1 payload decoded as v2 (schema resolution): {resolve:,.0f}/s")
    print(f"python {sys.version.split()[0]}, one core")


if __name__ == "__main__":
    main()
