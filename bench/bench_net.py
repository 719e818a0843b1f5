"""Throughput of the network reviewers' local work, each next to a baseline in the same run.

1. Link extraction (agents.links.extract_links) vs a bare `re.findall` of http URLs, on a 2,000-word
   draft with 30 links and on a draft of 10,000 links.
2. URL checks through the guard (GuardedClient.head_or_get: URL rules, own DNS step, vetted
   connect, redirect loop) vs a plain httpx.AsyncClient HEAD, against a local HTTP server, 5 at a
   time (the reviewers' concurrency).
3. Claim extraction (agents.reviewers.factcheck.extract_claims) on the 2,000-word draft.

Run: python bench/bench_net.py
"""

from __future__ import annotations

import asyncio
import http.server
import random
import re
import threading
import time
from collections.abc import Callable

import httpx

from agents.links import extract_links
from agents.net import GuardedClient
from agents.reviewers.factcheck import extract_claims
from agents.settings import Settings

WORDS = [
    "the",
    "model",
    "card",
    "says",
    "latency",
    "throughput",
    "memory",
    "bandwidth",
    "release",
    "notes",
    "benchmark",
]


def draft_2000_words(links: int = 30) -> str:
    rng = random.Random(1)
    parts = []
    for i in range(2000):
        parts.append(rng.choice(WORDS))
        if i % (2000 // links) == 0:
            parts.append(f"[source {i}](https://site{i}.example/path/{i}?q=1)")
        if i % 120 == 0:
            parts.append(
                "The GeForce RTX 5090 has 32GB of GDDR7. Python 3.14 was released in 2025.\n\n"
            )
    return " ".join(parts)


def best_rate(fn: Callable[[], object], n: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - start)
    return n / best


class _Ok(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


async def checks_per_second(port: int, n: int) -> tuple[float, float]:
    urls = [f"http://127.0.0.1:{port}/ok?{i}" for i in range(n)]
    settings = Settings(qa_url_allowlist="127.0.0.1")
    async with GuardedClient(settings) as guarded:
        start = time.perf_counter()
        checks = await guarded.check_many(urls, concurrency=5)
        guarded_rate = n / (time.perf_counter() - start)
    assert all(c.ok for c in checks)
    semaphore = asyncio.Semaphore(5)
    async with httpx.AsyncClient() as plain:

        async def one(url: str) -> int:
            async with semaphore:
                return (await plain.head(url)).status_code

        start = time.perf_counter()
        statuses = await asyncio.gather(*(one(u) for u in urls))
        plain_rate = n / (time.perf_counter() - start)
    assert set(statuses) == {200}
    return guarded_rate, plain_rate


def main() -> None:
    draft = draft_2000_words()
    many = "\n".join(f"- [l{i}](https://s{i % 500}.example/p/{i})" for i in range(10_000))
    bare = re.compile(r"https?://[^\s)>\]]+")
    units = re.compile(r"\d+\s?(?:GB|W|GHz|B)\b")
    rows = [
        ("links, 2,000 words", lambda: extract_links(draft), lambda: bare.findall(draft), 200),
        ("links, 10,000 links", lambda: extract_links(many), lambda: bare.findall(many), 5),
        ("claims, 2,000 words", lambda: extract_claims(draft), lambda: units.findall(draft), 100),
    ]
    print("extraction (drafts/s, best of 3)    multiqa   bare re.findall baseline")
    for name, ours, baseline, n in rows:
        print(f"  {name:<30} {best_rate(ours, n):>9,.1f} {best_rate(baseline, n):>12,.1f}")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        guarded, plain = asyncio.run(checks_per_second(server.server_address[1], 500))
    finally:
        server.shutdown()
    print("URL checks against a local server, 5 concurrent (checks/s)")
    print(f"  GuardedClient.head_or_get {guarded:,.0f}   plain httpx HEAD baseline {plain:,.0f}")


if __name__ == "__main__":
    main()
