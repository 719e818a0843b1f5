"""What the LLM layer adds around a model call, next to baselines measured in the same run.

    python bench/bench_llm.py [--calls 200] [--previews 3]

Rows:
- parse: `parse_json_answer` + field validation on a plain answer, on a <think> + fenced answer,
  and on 1 MB of adversarial braces; baseline `json.loads` of the plain answer.
- call: one critic-sized request through `LLMRouter.chat` (the real `ollama` client, capped
  transport, total deadline) to a local fake Ollama that answers at once; baseline a bare
  `httpx.AsyncClient.post` of the same request to the same server (shared client).
- preview: `PlaywrightScreenshotter.capture` of a small local page through the URL guard
  (Chromium launch, guarded fetches, full-page PNG); baseline the guard fetching the same page.
No model runs here: these are multiqa's own costs, which a real model call (seconds) dwarfs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/ is a package

from agents.llm import AnswerError, LLMRouter, OllamaProvider, parse_json_answer
from agents.net import GuardedClient
from agents.reviewers.critic import read_verdict
from agents.reviewers.preview import PlaywrightScreenshotter
from agents.settings import Settings
from tests.agents.fakes import FakeOllama, ollama_chat
from tests.helpers.http import Reply, StaticSite

ANSWER = {"approved": True, "quality_score": 82, "feedback": 'Clear: "Use a medium-fine grind."'}
PLAIN = json.dumps(ANSWER)
WRAPPED = "<think>" + "Weighing the grind advice. " * 200 + "</think>\n```json\n" + PLAIN + "\n```"
HOSTILE = "{" * 1_000_000


def per_second(fn: Callable[[], object], seconds: float = 0.5) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        count += 1
    return count / (time.perf_counter() - start)


def hostile() -> None:
    with contextlib.suppress(AnswerError):
        parse_json_answer(HOSTILE)


async def timed(fn: Callable[[], Awaitable[object]], n: int) -> float:
    """Median milliseconds of n calls."""
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


async def bench_calls(n: int) -> list[tuple[str, float]]:
    messages = [
        {"role": "system", "content": "You judge drafts. " * 50},
        {"role": "user", "content": "Draft text. " * 2000},
    ]
    with FakeOllama() as server:
        server.add_model("gemma3:27b", always=ollama_chat(ANSWER))
        router = LLMRouter(
            {"ollama": OllamaProvider(server.url, max_response_bytes=1_048_576, health_timeout=5)}
        )

        async def via_router() -> object:
            return await router.chat(
                "ollama/gemma3:27b",
                messages,  # type: ignore[arg-type]
                json_schema={"type": "object"},
                max_tokens=1500,
                temperature=0.3,
                timeout=10,
            )

        async with httpx.AsyncClient(base_url=server.url) as client:

            async def bare() -> object:
                response = await client.post(
                    "/api/chat",
                    json={"model": "gemma3:27b", "messages": messages, "stream": False},
                )
                return response.json()

            await via_router()
            await bare()
            return [
                ("call: LLMRouter.chat (ms, median)", await timed(via_router, n)),
                ("call: bare httpx post (ms, median)", await timed(bare, n)),
            ]


async def bench_preview(n: int) -> list[tuple[str, float]]:
    page = b"<html><body><h1>Coffee</h1><img src='/a.png'><p>" + b"text " * 500 + b"</p></body>"
    with StaticSite() as site:
        site.pages["/post"] = Reply(200, page, "text/html")
        site.pages["/a.png"] = Reply(404, b"", "image/png")
        settings = Settings(qa_url_allowlist="127.0.0.1", qa_preview_viewport_width=800)
        shooter = PlaywrightScreenshotter()
        async with GuardedClient(settings) as http:

            async def capture() -> object:
                return await shooter.capture(f"{site.url}/post", settings, http)

            async def fetch() -> object:
                return await http.fetch_bytes(f"{site.url}/post", 1_000_000)

            return [
                ("preview: capture (ms, median)", await timed(capture, n)),
                ("preview: guarded fetch only (ms, median)", await timed(fetch, n)),
            ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--previews", type=int, default=3)
    args = parser.parse_args()
    rows: list[tuple[str, float]] = [
        ("parse: plain answer (/s)", per_second(lambda: read_verdict(parse_json_answer(PLAIN)))),
        (
            "parse: <think> + fenced (/s)",
            per_second(lambda: read_verdict(parse_json_answer(WRAPPED))),
        ),
        ("parse: 1 MB of '{' (/s)", per_second(hostile)),
        ("parse baseline: json.loads plain (/s)", per_second(lambda: json.loads(PLAIN))),
    ]
    rows += asyncio.run(bench_calls(args.calls))
    if args.previews:
        rows += asyncio.run(bench_preview(args.previews))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value:>12,.1f}")


if __name__ == "__main__":
    main()
