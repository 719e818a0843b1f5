"""The provider interface every model backend implements, its answer record, its errors, and the
one way model names are written down ("provider/model")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypedDict

from agents.settings import MODEL_PROVIDERS
from schemas import MultiqaError


class ChatMessage(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class LLMAnswer:
    """What a model said, and what it cost in tokens and time."""

    text: str
    tokens_in: int
    tokens_out: int
    duration_ms: int
    model: str  # "provider/model", as normalised by `model_ref`
    # Why generation stopped, in the provider's words ("stop", "length", "max_tokens", ...).
    stop_reason: str | None = None
    # A reasoning trace the provider returned apart from the answer (Ollama's message.thinking).
    thinking: str = ""

    @property
    def hit_token_limit(self) -> bool:
        return self.stop_reason in {"length", "max_tokens"}


class LLMError(MultiqaError):
    """A model call produced no answer. `reason` is short and safe to show in feedback."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def without_secret(error: LLMError, secret: str | None) -> LLMError:
    """`error` with `secret` cut out of its reason. Servers echo keys in their error texts
    ("Incorrect API key provided: sk-..."), and reasons go to feedback, logs and the database."""
    if not secret or len(secret) < 4 or secret not in error.reason:
        return error
    return type(error)(error.reason.replace(secret, "***"))


def cause_without_secret(exc: BaseException, secret: str | None) -> BaseException | None:
    """`exc` as the `__cause__` of the error raised in its place, or None when it carries the
    secret (a traceback logged later would print it)."""
    if secret and secret in f"{exc} {getattr(exc, 'body', '')!r}":
        return None
    return exc


class LLMUnavailable(LLMError):
    """The provider cannot be reached or is not configured (no server, no API key)."""


class LLMMisconfigured(LLMUnavailable):
    """The configuration cannot work, whatever the server's health: no API key or a key refused,
    a base URL that cannot work, a model the server does not have. Unlike a server that is down
    (an optional service absent: the reviewer skips), this is an operator's mistake, and the
    reviewer reports an error so the draft is not approved without the check (issue 12)."""


class LLMTimeout(LLMError):
    """The call did not finish within its timeout."""


class LLMResponseTooLarge(LLMError):
    """The answer was larger than the configured byte limit; reading stopped at the limit."""


class LLMBadResponse(LLMError):
    """The provider answered with an HTTP error or something that is not its wire format."""


class LLMProvider(Protocol):
    """One model backend (Ollama, an OpenAI-compatible server, Anthropic). `model` is the
    provider's own name for the model, without the "provider/" prefix."""

    name: str

    async def chat(
        self,
        model: str,
        messages: Sequence[ChatMessage],
        *,
        json_schema: Mapping[str, Any] | None,
        max_tokens: int,
        temperature: float,
        timeout: float,  # noqa: ASYNC109 (part of the interface; applied via asyncio.timeout)
        images: Sequence[bytes] | None = None,
    ) -> LLMAnswer:
        """One completion. Raises only `LLMError` subclasses."""
        ...

    async def healthy(self) -> bool:
        """Whether the backend answers at all (cheap; never raises)."""
        ...

    def unusable(self) -> str | None:
        """A configuration problem no request can get past (bad base URL, missing key)."""
        ...

    async def list_models(self) -> list[str] | None:
        """The models the server serves (None: it has no listing). Raises `LLMError`."""
        ...

    async def capabilities(self, model: str) -> frozenset[str] | None:
        """What the model can do ("vision", "thinking", ...) when the backend says; else None."""
        ...


@dataclass(frozen=True, slots=True, order=True)
class ModelRef:
    provider: str
    name: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.name}"


# The one registry of providers (a new one is a line there plus its backend here).
KNOWN_PROVIDERS = MODEL_PROVIDERS
# Named so a model id like "google/gemini-2.5" parses (and is refused as "no google provider")
# rather than being taken for an Ollama namespace.
_OTHER_PROVIDERS = ("google",)


def model_ref(spec: str, *, require_provider: bool = False) -> ModelRef:
    """Parse "provider/model" into a normalised ModelRef.

    With `require_provider` (what every model *setting* is read with) the provider prefix must be
    there: "qwen2.5:7b" could be an Ollama model or one an OpenAI-compatible server serves, and a
    guess sends the request to the wrong server. Without it (a draft's `writer_model`, which the
    writer spelled as it liked) a bare name means Ollama, as the seed wrote "gemma3:27b", except
    `claude-*`, which only Anthropic serves. Ollama names without a tag get ":latest", as Ollama
    itself does, so that "gemma3" and "ollama/gemma3:latest" compare equal (the critic must
    recognise the writer's model however the writer spelled it).
    """
    text = spec.strip()
    if not text:
        raise ValueError("empty model name")
    provider, sep, name = text.partition("/")
    if not sep or provider.lower() not in (*KNOWN_PROVIDERS, *_OTHER_PROVIDERS):
        if require_provider:
            raise ValueError(
                f"model id {text[:120]!r} names no provider; write provider/model: "
                + ", ".join(f"{p}/..." for p in KNOWN_PROVIDERS)
            )
        # No provider prefix (a "/" may still be part of an Ollama namespace: "library/gemma3").
        provider, name = ("anthropic" if text.lower().startswith("claude") else "ollama"), text
    provider = provider.lower()
    name = name.strip()
    if not name:
        raise ValueError(f"model {spec!r} has no name after the provider")
    if provider == "ollama":
        name = name.lower()
        last = name.rsplit("/", 1)[-1]
        if ":" not in last:
            name += ":latest"
    return ModelRef(provider, name)


def same_model(a: str | None, b: str | None) -> bool:
    """Whether two model specs name the same model (after normalisation); False if either is
    empty or unparseable."""
    if not a or not b:
        return False
    try:
        return model_ref(a) == model_ref(b)
    except ValueError:
        return False
