"""How model answers were read, counted for metrics: straight from structured output, or dug out
by the defensive parser because the server ignored (or refused) the structured-output request.

A rising "parser" share means a server or model that does not honour the schema: answers are still
read, but no longer guaranteed to have the answer's shape. Each result's `Cost.parser_fallbacks`
carries the same count per review (so the cost row has it); this module keeps process totals, and
`on_answer` lets a metrics exporter count them its own way.

    from agents.llm import answer_counts, on_answer
    answer_counts()  # {("ollama", "structured"): 12, ("openai", "parser"): 3}
    stop = on_answer(lambda provider, how: counter.labels(provider, how).inc())
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable

log = logging.getLogger(__name__)

STRUCTURED = "structured"
PARSER = "parser"

AnswerHook = Callable[[str, str], None]
"""`hook(provider, how)`, how being "structured" or "parser"; called once per answer read."""

_lock = threading.Lock()
_counts: Counter[tuple[str, str]] = Counter()
_hooks: list[AnswerHook] = []


def record_answer(provider: str, how: str) -> None:
    with _lock:
        _counts[(provider, how)] += 1
        hooks = list(_hooks)
    for hook in hooks:
        try:
            hook(provider, how)
        except Exception:  # a metrics hook must never fail a review
            log.warning("answer hook %r failed", hook, exc_info=True)


def answer_counts() -> dict[tuple[str, str], int]:
    """Answers read since the process started, by (provider, "structured" | "parser")."""
    with _lock:
        return dict(_counts)


def on_answer(hook: AnswerHook) -> Callable[[], None]:
    """Call `hook(provider, how)` for every answer read; returns the function that removes it."""
    with _lock:
        _hooks.append(hook)

    def remove() -> None:
        with _lock:
            if hook in _hooks:
                _hooks.remove(hook)

    return remove
