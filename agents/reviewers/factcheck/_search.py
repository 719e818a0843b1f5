"""Web search behind a small interface: `await backend.search(query, max_results)`.

`DdgsSearch` is the production backend (the `ddgs` library, successor of `duckduckgo-search`);
`StaticSearch` answers from a fixed table (tests, demos, offline runs). Deps.search holds one;
when it is None the reviewer builds a `DdgsSearch`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from schemas import MultiqaError


@dataclass(frozen=True, slots=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class SearchUnavailable(MultiqaError):
    """The search could not be done (rate limit, network, timeout): the reviewer skips with this
    reason rather than judging claims on no evidence."""


@runtime_checkable
class SearchBackend(Protocol):
    async def search(self, query: str, max_results: int) -> Sequence[SearchResult]: ...


class DdgsSearch:
    """DuckDuckGo through `ddgs`. ddgs is synchronous, so each search runs in a worker thread
    under `timeout`. `proxy` and `verify` (True, False or a CA bundle path) are passed to ddgs's
    HTTP client; tests use them to serve DuckDuckGo's HTML endpoint locally."""

    def __init__(
        self,
        *,
        backend: str = "duckduckgo",
        region: str = "us-en",
        timeout: float = 10.0,
        proxy: str | None = None,
        verify: bool | str = True,
    ) -> None:
        self.backend = backend
        self.region = region
        self.timeout = timeout
        self.proxy = proxy
        self.verify = verify

    async def search(self, query: str, max_results: int) -> Sequence[SearchResult]:
        try:
            async with asyncio.timeout(self.timeout + 1.0):
                return await asyncio.to_thread(self._search, query, max_results)
        except TimeoutError:
            raise SearchUnavailable(f"web search timed out after {self.timeout:g}s") from None

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        from ddgs import DDGS
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        client = DDGS(proxy=self.proxy, timeout=max(1, math.ceil(self.timeout)), verify=self.verify)
        try:
            rows = client.text(
                query, max_results=max_results, backend=self.backend, region=self.region
            )
        except RatelimitException as exc:
            raise SearchUnavailable(f"web search rate-limited: {exc}") from None
        except TimeoutException as exc:
            raise SearchUnavailable(f"web search timed out: {exc}") from None
        except DDGSException as exc:
            # ddgs reports an empty answer as an exception; DuckDuckGo's rate-limit page also
            # ends up here, which is why the reviewer treats "nothing for any claim" as a skip.
            if str(exc).strip() == "No results found.":
                return []
            raise SearchUnavailable(f"web search failed: {exc}"[:300]) from None
        return [
            SearchResult(
                str(row.get("title", "")), str(row.get("href", "")), str(row.get("body", ""))
            )
            for row in rows[:max_results]
        ]


@dataclass
class StaticSearch:
    """Fixed answers. `results` maps a lowercase phrase to the results for any query containing
    it (a plain sequence answers every query); `error` makes every search unavailable."""

    results: Mapping[str, Sequence[SearchResult]] | Sequence[SearchResult] = ()
    error: str | None = None
    queries: list[str] = field(default_factory=list)

    async def search(self, query: str, max_results: int) -> Sequence[SearchResult]:
        self.queries.append(query)
        if self.error is not None:
            raise SearchUnavailable(self.error)
        if not isinstance(self.results, Mapping):
            return list(self.results)[:max_results]
        lowered = query.lower()
        found: list[SearchResult] = []
        for phrase, results in self.results.items():
            if phrase.lower() in lowered:
                found.extend(results)
        return found[:max_results]
