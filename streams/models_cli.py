"""`multiqa models`: can the LLM reviewers reach the models the settings name?

For each model role (critic, its fallback, the LLM gates, the two vision gates) it shows the
provider and model, whether the role is enabled, and whether the model is usable now: the backend
answers (Ollama's health check; for Anthropic, an API key is set) and, for Ollama, the model is
pulled on the server. Without a usable model a reviewer skips and the decision says so; this
command says it before a draft does. Exit 0 when every enabled role is usable, 3 otherwise (like
`multiqa dev status`).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from typing import Any

from agents.llm import LLMError, LLMRouter, OllamaProvider, is_thinking_model, model_ref
from agents.settings import Settings
from agents.settings_service import SettingsService
from streams._command import connect_database, discover_config, dsn_option, run_command

NOT_USABLE = 3


@dataclass(frozen=True)
class ModelStatus:
    role: str
    model: str  # provider/model, normalised
    enabled: bool
    usable: bool
    detail: str  # why not usable, or what was found
    thinking: bool = False


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


async def check_models(settings: Settings, router: LLMRouter | None = None) -> list[ModelStatus]:
    """The status of every LLM role under `settings` (one health check and one model listing per
    backend, however many roles share it)."""
    router = router or LLMRouter.from_settings(settings)
    installed: dict[str, set[str] | str] = {}
    found: list[ModelStatus] = []
    for role, spec, enabled in model_roles(settings):
        try:
            ref = model_ref(spec)
        except ValueError as exc:
            found.append(ModelStatus(role, spec, enabled, False, f"bad model name: {exc}"))
            continue
        if not await router.healthy(ref):
            reason = (
                "no Anthropic API key (set ANTHROPIC_API_KEY)"
                if ref.provider == "anthropic"
                else f"ollama not reachable at {settings.ollama_base_url}"
            )
            found.append(ModelStatus(role, str(ref), enabled, False, reason))
            continue
        provider = router.providers.get(ref.provider)
        usable, detail = True, "reachable"
        if isinstance(provider, OllamaProvider):
            if ref.provider not in installed:
                try:
                    installed[ref.provider] = set(await provider.installed_models())
                except LLMError as exc:
                    installed[ref.provider] = str(exc)
            names = installed[ref.provider]
            if isinstance(names, str):
                usable, detail = False, f"cannot list models: {names}"
            elif ref.name not in names:
                usable, detail = False, f"not pulled on the server (ollama pull {ref.name})"
            else:
                detail = "pulled"
        thinking = await is_thinking_model(router, str(ref), settings) if usable else False
        found.append(ModelStatus(role, str(ref), enabled, usable, detail, thinking))
    return found


def format_table(statuses: list[ModelStatus]) -> str:
    rows = [("ROLE", "MODEL", "ENABLED", "STATUS")]
    for s in statuses:
        state = ("ok, " if s.usable else "NOT USABLE: ") + s.detail
        if s.thinking:
            state += " (thinking model: larger token budget)"
        rows.append((s.role, s.model, "yes" if s.enabled else "no", state))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths, strict=True)) + "  " + r[3]
        for r in rows
    )


async def _models(args: argparse.Namespace) -> int:
    config = discover_config(args)
    settings = Settings()
    if config.database_url and not args.defaults:
        async with connect_database(config.database_url) as pool:
            settings = await SettingsService(pool).get()
    statuses = await check_models(settings)
    if args.json:
        print(json.dumps([asdict(s) for s in statuses], indent=2))
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
    parser.add_argument("--json", action="store_true", help="one JSON object per role")
    parser.set_defaults(func=run_command("multiqa models", _models))
