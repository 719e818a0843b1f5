"""`multiqa models`: can the LLM reviewers reach the models the settings name?

For each model role (critic, its fallback, the LLM gates, the two vision gates) it shows the
provider and model, whether the role is enabled, and whether the model is usable now, asking each
provider what it really has: Ollama lists its pulled models (GET /api/tags); an OpenAI-compatible
server lists what it serves (GET /v1/models); Anthropic lists the models the key may use (a
models-list call), and when the API cannot be reached says "key set, not verified". Without a
usable model a reviewer skips and the decision says so; this command says it before a draft does,
and warns when the fallback critic is the primary (a chain with nothing to fall back to). Exit 0
when every enabled role is usable, 3 otherwise (like `multiqa dev status`).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from agents.settings import Settings
from streams.cli._command import connect_database, discover_config, dsn_option, run_command

NOT_USABLE = 3


@dataclass(frozen=True)
class ModelStatus:
    role: str
    model: str  # provider/model, normalised
    enabled: bool
    usable: bool
    detail: str  # why not usable, or what was found
    thinking: bool = False
    warning: str = ""


def model_roles(settings: Settings) -> list[tuple[str, str, bool]]:
    """(role, model setting's value, enabled) for every LLM role, from the settings alone."""
    gates_on = settings.qa_consistency_enabled or settings.qa_topic_delivery_enabled
    return [
        ("critic", settings.pipeline_critic_model, settings.qa_critic_enabled),
        ("critic fallback", settings.qa_fallback_critic_model, settings.qa_critic_enabled),
        ("gates", settings.qa_gate_model.strip() or settings.pipeline_critic_model, gates_on),
        ("vision", settings.qa_vision_model, settings.qa_vision_check_enabled),
        ("preview", settings.qa_preview_vision_model, settings.qa_preview_screenshot_enabled),
    ]


if TYPE_CHECKING:
    from agents.llm import LLMError, LLMRouter

    # names; None: the server has no listing; or why not
    Listing: TypeAlias = list[str] | LLMError | None

# agents.llm (and the model SDKs behind it) is imported when the command runs, not to build the
# parser (streams.cli._command).


async def check_models(settings: Settings, router: LLMRouter | None = None) -> list[ModelStatus]:
    """The status of every LLM role under `settings` (one listing per provider, however many
    roles share it)."""
    from agents.llm import LLMRouter, same_model

    router = router or LLMRouter.from_settings(settings)
    listings: dict[str, Listing] = {}
    found: list[ModelStatus] = []
    for role, spec, enabled in model_roles(settings):
        if role == "critic fallback" and not spec.strip():
            found.append(ModelStatus(role, "", enabled, True, "none set", warning=_NO_FALLBACK))
            continue
        status = await _check(role, spec, enabled, settings, router, listings)
        if role == "critic fallback" and same_model(spec, settings.pipeline_critic_model):
            status = ModelStatus(**{**asdict(status), "warning": _SAME_AS_PRIMARY})
        found.append(status)
    return found


_SAME_AS_PRIMARY = (
    "the fallback critic is the primary: the fallback chain has nothing to fall back to "
    "(set qa_fallback_critic_model to another model)"
)
_NO_FALLBACK = "no fallback critic: a failed primary means the critic skips"


async def _check(
    role: str,
    spec: str,
    enabled: bool,
    settings: Settings,
    router: LLMRouter,
    listings: dict[str, Listing],
) -> ModelStatus:
    from agents.llm import LLMError, LLMUnavailable, is_thinking_model, model_ref

    try:
        ref = model_ref(spec, require_provider=True)
        provider, _ = router.resolve(ref)
    except (ValueError, LLMUnavailable) as exc:
        return ModelStatus(role, spec, enabled, False, f"bad model name: {exc}")
    name = str(ref)
    problem = provider.unusable()
    if problem:
        return ModelStatus(role, name, enabled, False, problem)
    if ref.provider not in listings:
        try:
            listings[ref.provider] = await provider.list_models()
        except LLMError as exc:
            listings[ref.provider] = exc
    listing = listings[ref.provider]
    usable, detail = _verdict(ref.provider, ref.name, listing, settings, router)
    thinking = await is_thinking_model(router, name, settings) if usable else False
    return ModelStatus(role, name, enabled, usable, detail, thinking)


def _verdict(
    provider: str, model: str, listing: Listing, settings: Settings, router: LLMRouter
) -> tuple[bool, str]:
    from agents.llm import LLMError, LLMMisconfigured, LLMUnavailable

    where = getattr(router.providers.get(provider), "base_url", None) or getattr(
        router.providers.get(provider), "host", ""
    )
    if isinstance(listing, LLMError):
        if provider == "anthropic" and "not reachable" in listing.reason:
            # The key is set; whether the API takes it cannot be known from here.
            return True, f"key set, not verified ({listing.reason})"
        if provider == "ollama" and isinstance(listing, LLMMisconfigured):
            return False, listing.reason  # it answers, but it is not Ollama
        if provider == "ollama":
            cause = "" if isinstance(listing, LLMUnavailable) else f" ({listing.reason})"
            return False, f"ollama not reachable at {where}{cause}"
        return False, listing.reason
    if listing is None:
        return True, f"reachable at {where}; the server has no model listing"
    if model in listing:
        return True, {
            "ollama": "pulled",
            "openai": f"served by {where}",
            "anthropic": "listed for this key (key verified)",
        }.get(provider, "listed")
    if provider == "ollama":
        return False, f"not pulled on the server (ollama pull {model})"
    shown = ", ".join(sorted(listing)[:5]) or "nothing"
    if provider == "anthropic":
        return False, f"key verified, but the API does not list {model} (it lists: {shown})"
    return False, f"{where} does not serve {model} (it serves: {shown})"


def format_table(statuses: list[ModelStatus]) -> str:
    rows = [("ROLE", "MODEL", "ENABLED", "STATUS")]
    for s in statuses:
        state = ("ok, " if s.usable else "NOT USABLE: ") + s.detail
        if s.thinking:
            state += " (thinking model: larger token budget)"
        if s.warning:
            state += f"; WARNING: {s.warning}"
        rows.append((s.role, s.model or "-", "yes" if s.enabled else "no", state))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths, strict=True)) + "  " + r[3]
        for r in rows
    )


async def _models(args: argparse.Namespace) -> int:
    from agents.settings_service import SettingsService
    from streams.cli import _jsonl as jsonl

    config = discover_config(args)
    settings = Settings()
    if config.database_url and not args.defaults:
        async with connect_database(config.database_url) as pool:
            settings = await SettingsService(pool).get()
    statuses = await check_models(settings)
    if args.json:  # JSON lines, as every --json of the CLI (streams.cli._jsonl)
        for status in statuses:
            jsonl.emit("model", asdict(status))
    else:
        print(format_table(statuses))
    return 0 if all(s.usable for s in statuses if s.enabled) else NOT_USABLE


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "models",
        parents=[dsn_option("(for the current settings)")],
        help="can the LLM reviewers reach their models? (exit 3 when an enabled one cannot)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    parser.add_argument(
        "--defaults", action="store_true", help="check the default settings, not the database's"
    )
    parser.add_argument("--json", action="store_true", help="JSON lines: one object per role")
    parser.set_defaults(func=run_command("multiqa models", _models))
