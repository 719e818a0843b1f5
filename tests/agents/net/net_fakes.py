"""Helpers for the URL guard tests (imported by name: test folders are not packages)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agents.net import ErrorKind, FetchError
from agents.settings import Settings


@dataclass
class FakeDNS:
    """A resolver for GuardedClient(resolver=...): names map to a list of answers, one per call
    (the last answer repeats), so a test can make a name change its address between lookups."""

    table: dict[str, list[list[str]]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)

    def add(self, name: str, *answers: Sequence[str]) -> None:
        self.table[name] = [list(a) for a in answers]

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.calls.append(host)
        answers = self.table.get(host)
        if not answers:
            raise FetchError(ErrorKind.DNS, f"{host} does not resolve (fake DNS)")
        n = sum(1 for c in self.calls if c == host) - 1
        return answers[min(n, len(answers) - 1)]


def settings(allowlist: str = "", **overrides: object) -> Settings:
    return Settings(qa_url_allowlist=allowlist, qa_citation_timeout_seconds=3.0).with_overrides(
        **overrides
    )
