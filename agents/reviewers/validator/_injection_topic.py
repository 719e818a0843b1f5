"""What a draft is about, which turns a shown phrase into an example: prompt injection (then a
quoted payload is an example), or writing prompts for a model (then a shown role prompt is one).
"""

from __future__ import annotations

import re

# The draft is about prompt injection (then shown payloads are examples).
_ABOUT = re.compile(
    r"prompt[- ]injection|injection attack|indirect injection|jailbreak|payloads?\b|"
    r"adversarial prompt|red[- ]team|llm security|prompt attack|injections?\b|inyeccion|"
    r"инъекци|注入|越狱"
)

_ABOUT_WORDS = frozenset(
    {
        "injection", "injections", "jailbreak", "jailbreaks", "jailbreaking", "payload",
        "payloads", "prompt-injection", "red-team", "red-teaming", "inyeccion", "adversarial",
    }
)  # fmt: skip


# What `_ABOUT` can match without one of `_ABOUT_WORDS` among the words (word_set keeps accents
# and other scripts, and splits "red team").
_ABOUT_SUBSTRINGS = (
    "inyecci",
    "\u0438\u043d\u044a\u0435\u043a\u0446\u0438",
    "\u6ce8\u5165",
    "\u8d8a\u72f1",
    "red team",
    "red-team",
    "llm security",
    "prompt attack",
    "adversarial prompt",
)


def is_about_injection(*texts: str, words: frozenset[str] | None = None) -> bool:
    """The draft is about prompt injection (then shown payloads are examples). With the
    texts' `words`, a text without them pays a few substring searches, not the regex."""
    if (
        words is not None
        and words.isdisjoint(_ABOUT_WORDS)
        and not any(sub in t for t in texts for sub in _ABOUT_SUBSTRINGS)
    ):
        return False
    return any(_ABOUT.search(t) for t in texts if t)


_PROMPT_WORDS = frozenset({"prompt", "prompts", "prompting"})
_ASSISTANT_WORDS = frozenset(
    {"chatgpt", "assistant", "assistants", "llm", "llms", "ai", "chatbot", "chatbots", "gpt",
     "model", "models", "claude", "gemini"}
)  # fmt: skip


def is_about_prompting(words: frozenset[str], title_low: str = "") -> bool:
    """The draft is about writing prompts for a model (then a shown role prompt is an example)."""
    title_words = frozenset(title_low.split())
    both = words | title_words
    return not both.isdisjoint(_PROMPT_WORDS) and not both.isdisjoint(_ASSISTANT_WORDS)
