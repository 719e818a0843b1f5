"""Typed, validated settings every reviewer and the aggregation read.

Defaults are the seed module's. Operators override them in PostgreSQL's `app_settings` table
(key, value as text); `Settings.from_mapping` parses and validates those strings, refusing values
that make no sense (a weight of -1, a threshold of 500) with a message naming the key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from agents.values import parse_value, split_list
from schemas import OperatorError


class SettingsError(OperatorError, ValueError):
    """A setting has a value of the wrong type, outside its range, of the wrong kind (not a URL,
    an unknown provider, ...), or contradicting another setting. str(error) is one line naming
    the key."""


# The model providers a `provider/model` setting may name: THE registry (agents.llm reads it as
# KNOWN_PROVIDERS). A provider is one line here plus its backend in agents/llm.
MODEL_PROVIDERS: tuple[str, ...] = (
    "ollama",
    "anthropic",
    "openai",
)


def _f(
    default: Any, doc: str, lo: float | None = None, hi: float | None = None, *, kind: str = ""
) -> Any:
    """A setting: its default, its doc line, its range (numbers) and, for text, the `kind` of
    value the write-time validator accepts (see `_KIND_CHECKS`; "" is free text)."""
    return field(default=default, metadata={"doc": doc, "min": lo, "max": hi, "kind": kind})


@dataclass(frozen=True)
class Settings:
    # --- aggregation -------------------------------------------------------------------------
    qa_validator_weight: float = _f(0.4, "Weight of the programmatic validator.", 0, 10)
    qa_critic_weight: float = _f(0.6, "Weight of the LLM critic.", 0, 10)
    qa_gate_weight: float = _f(0.3, "Weight of every gate (consistency, urls, ...).", 0, 10)
    qa_final_score_threshold: float = _f(70.0, "Approval cut-off (0-100).", 0, 100)
    qa_consistency_veto_threshold: float = _f(
        50.0,
        "Consistency below this vetoes. The seed exempted a score of 0 (it meant no score there); "
        "here a reviewer without a score is skipped, so a 0 is a real score and vetoes.",
        0,
        100,
    )
    qa_critic_veto_threshold: float = _f(
        50.0,
        "A critic score below this rejects however the other reviewers scored (0: off). Not "
        "in the seed; 50 is the lowest critic score with which the seed's validator and critic "
        "alone can reach the default approval threshold (0.4 x 100 + 0.6 x 50 = 70).",
        0,
        100,
    )
    content_validator_warning_qa_penalty: float = _f(
        3.0, "Points off the final score per validator warning.", 0, 100
    )
    content_validator_warning_reject_threshold: int = _f(
        3, "A warning category seen more than this many times becomes critical.", 0, 1000
    )
    qa_disagreement_spread: float = _f(
        40.0, "Score spread between reviewers that flags needs_human_review.", 0, 100
    )
    qa_required_to_pass: str = _f(
        "urls",
        "Comma-separated reviewers that must answer ok and approve (not applicable counts as a "
        "pass): one that skipped, errored or timed out blocks approval and asks for a human. "
        "The validator is always required.",
        kind="reviewers",
    )
    qa_advisory_reviewers: str = _f(
        "",
        "Comma-separated gates whose failed check does not veto (their score still counts), "
        "like the seed's qa_gates required_to_pass=false. Every other gate's failure vetoes.",
        kind="reviewers",
    )
    qa_aggregate_timeout_seconds: float = _f(
        300.0, "Stream: decide with what has arrived after this long.", 0.1, 86400
    )
    # --- critic ------------------------------------------------------------------------------
    qa_critic_enabled: bool = _f(True, "Run the LLM critic.")
    pipeline_critic_model: str = _f(
        "ollama/gemma3:27b", "Primary critic, provider/model.", kind="model"
    )
    qa_fallback_critic_model: str = _f(
        "ollama/llama3.1:8b",
        "Critic used when the primary fails, provider/model (empty: none). The default is another "
        "vendor's model family (Meta's, beside the primary's Google Gemma), so a fallback verdict "
        "has other blind spots and the writer's model is less likely to be both; small enough (8B) "
        "to load beside the primary on the same Ollama host, not a thinking model (standard "
        "budget, quick answer), and local like the primary (no API key, no per-token cost).",
        kind="model_or_empty",
    )
    qa_thinking_models: str = _f(
        "qwen3,glm-4.7,deepseek-r1,qwq,qwen3-vl",
        "Comma-separated thinking-model name prefixes.",
        kind="names",
    )
    qa_thinking_model_max_tokens: int = _f(8000, "Token budget for thinking models.", 1, 1_000_000)
    qa_standard_max_tokens: int = _f(1500, "Token budget for other models.", 1, 1_000_000)
    qa_temperature: float = _f(0.3, "Sampling temperature of critic and gates.", 0, 2)
    qa_critic_timeout_seconds: float = _f(120.0, "Per-call critic timeout.", 0.1, 3600)
    qa_critic_max_content_chars: int = _f(
        24000, "Content window shown to the critic.", 100, 10_000_000
    )
    qa_critic_max_sources: int = _f(10, "Research sources shown to the critic.", 0, 1000)
    qa_critic_feedback_max_chars: int = _f(
        2000,
        "Longest critic feedback asked for (the answer schema's maxLength; a small model that "
        "loops inside the string is stopped there instead of at the token budget).",
        50,
        20000,
    )
    ollama_base_url: str = _f(
        "",
        "Ollama server (empty: $OLLAMA_HOST, else http://127.0.0.1:11434).",
        kind="ollama_url",
    )
    ollama_health_timeout_seconds: float = _f(5.0, "Ollama health-check timeout.", 0.1, 120)
    openai_base_url: str = _f(
        "",
        "OpenAI-compatible API for openai/<model> (vLLM, llama.cpp, LM Studio, LiteLLM, ...); "
        "empty: $OPENAI_BASE_URL, else https://api.openai.com/v1. The key: $OPENAI_API_KEY.",
        kind="openai_url",
    )
    openai_health_timeout_seconds: float = _f(
        5.0, "OpenAI-compatible server health-check (GET /models) timeout.", 0.1, 120
    )
    anthropic_base_url: str = _f(
        "", "Anthropic API base URL (empty: the SDK default).", kind="anthropic_url"
    )
    electricity_rate_kwh: float = _f(0.15, "USD per kWh for local-model energy cost.", 0, 100)
    local_model_watts: float = _f(350.0, "Power draw assumed for local model calls.", 0, 100000)
    llm_health_cache_seconds: float = _f(
        10.0, "How long a model server's health-check result is reused.", 0, 3600
    )
    llm_max_response_bytes: int = _f(
        1_048_576, "Bytes read from a model's answer; larger answers are refused.", 1024, 1 << 30
    )
    # --- LLM gates -----------------------------------------------------------------------------
    qa_consistency_enabled: bool = _f(True, "Run the internal-consistency gate.")
    qa_topic_delivery_enabled: bool = _f(True, "Run the topic-delivery gate.")
    qa_gate_model: str = _f(
        "", "Model for LLM gates (empty: pipeline_critic_model).", kind="model_or_empty"
    )
    qa_gate_max_tokens: int = _f(600, "Token budget of LLM gates.", 1, 1_000_000)
    qa_gate_timeout_seconds: float = _f(60.0, "Timeout of LLM gate calls.", 0.1, 3600)
    qa_gate_retry_backoff_seconds: float = _f(
        1.0, "Pause before an LLM gate's single retry.", 0, 600
    )
    # --- web fact-check ------------------------------------------------------------------------
    qa_web_factcheck_enabled: bool = _f(True, "Verify product/spec claims by web search.")
    qa_web_factcheck_match_ratio: float = _f(
        0.6, "Share of a claim's key terms that must appear in snippets.", 0, 1
    )
    qa_web_factcheck_num_results: int = _f(3, "Search results per claim.", 1, 50)
    qa_web_factcheck_snippet_chars: int = _f(500, "Characters kept per snippet.", 10, 100000)
    qa_web_factcheck_min_term_len: int = _f(2, "Key terms must be longer than this.", 0, 50)
    qa_web_factcheck_max_claims: int = _f(3, "Claims checked per draft.", 0, 100)
    # --- citations and URLs --------------------------------------------------------------------
    qa_citation_verify_enabled: bool = _f(True, "HEAD-check cited URLs.")
    qa_citation_max_dead_ratio: float = _f(
        0.30,
        "Dead share above which citations fail. 0 switches the ratio check off, as in the seed "
        "(to allow no dead citation at all use a tiny ratio such as 0.001).",
        0,
        1,
    )
    qa_citation_min_count: int = _f(0, "Fewer cited URLs than this fails.", 0, 10000)
    qa_citation_timeout_seconds: float = _f(8.0, "Per-URL timeout.", 0.1, 600)
    qa_citation_concurrency: int = _f(5, "Concurrent citation checks.", 1, 100)
    qa_url_verify_enabled: bool = _f(True, "Check every external link resolves.")
    qa_url_allowlist: str = _f(
        "",
        "Comma-separated hosts/CIDRs the URL guard may reach despite being internal.",
        kind="hosts",
    )
    qa_fetch_max_redirects: int = _f(5, "Redirect hops the URL guard follows.", 0, 50)
    qa_fetch_max_bytes: int = _f(65536, "Bytes read from a fetched body.", 0, 64 * 1024 * 1024)
    site_url: str = _f(
        "", "The publishing site's URL (self-links are not external).", kind="url_or_empty"
    )
    site_domain: str = _f(
        "",
        "The publishing site's domain (self-links are not external).",
        kind="host_or_empty",
    )
    # --- vision --------------------------------------------------------------------------------
    qa_vision_check_enabled: bool = _f(False, "Judge inline images' relevance.")
    qa_vision_model: str = _f(
        "ollama/qwen3-vl:30b", "Vision model for image relevance.", kind="model"
    )
    qa_vision_max_images: int = _f(3, "Images judged per draft.", 0, 100)
    qa_vision_pass_threshold: float = _f(60.0, "Average image score to pass.", 0, 100)
    qa_vision_num_predict: int = _f(1024, "Output budget of vision calls.", 1, 1_000_000)
    qa_vision_thinking_num_predict: int = _f(
        8000, "Output budget of thinking vision models.", 1, 1_000_000
    )
    qa_vision_max_image_bytes: int = _f(
        8 * 1024 * 1024, "Largest image downloaded for the vision gate.", 1024, 1 << 30
    )
    qa_preview_screenshot_enabled: bool = _f(False, "Screenshot the rendered preview and judge it.")
    qa_preview_vision_model: str = _f(
        "ollama/qwen3-vl:30b", "Vision model for the preview.", kind="model"
    )
    qa_preview_pass_threshold: float = _f(70.0, "Preview score to pass.", 0, 100)
    qa_preview_viewport_width: int = _f(1280, "Screenshot viewport width.", 100, 10000)
    qa_preview_viewport_height: int = _f(1024, "Screenshot viewport height.", 100, 10000)
    qa_preview_browser_path: str = _f(
        "/usr/bin/chromium", "Chromium executable for Playwright.", kind="path"
    )
    qa_preview_timeout_seconds: float = _f(
        30.0, "Time allowed to load and screenshot the preview page.", 0.1, 600
    )
    # --- validator -----------------------------------------------------------------------------
    content_validator_disabled_rules: str = _f(
        "", "Comma-separated validator rule codes to switch off (all niches).", kind="rule_codes"
    )
    content_validator_max_chars: int = _f(
        200_000,
        "Longer content is a critical (oversized_content); only this much is scanned.",
        1000,
        50_000_000,
    )
    content_validator_buzzword_max_per_1000_words: float = _f(
        5.0,
        "Buzzwords (delve, tapestry, ...) per 1,000 words above which buzzword_density warns.",
        0,
        1000,
    )
    content_validator_max_code_ratio: float = _f(
        0.5, "Share of the content in fenced code above which code_density warns.", 0, 1
    )
    # Company facts: what the validator's company_claim rule checks a draft's claims against.
    company_name: str = _f("", "The publishing company's name, as drafts write it.")
    company_founded_year: int = _f(
        0,
        "Year the company was founded (0: unknown, so any claim of its age is critical).",
        0,
        9999,
    )
    company_team_size: int = _f(
        0, "People in the company (0: unknown, so any team-size claim is critical).", 0, 10_000_000
    )
    company_clients: str = _f(
        "", "Comma-separated clients a draft may name (naming any other client is critical)."
    )
    # Per-niche rule switches: keys `content_validator_disabled_rules.<niche>` (see `extra`).
    extra: Mapping[str, str] = field(default_factory=dict, metadata={"doc": "Other keys."})

    def __post_init__(self) -> None:
        # A read-only copy: the memoised version() must not go stale through the caller's dict.
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))
        for f in dataclasses.fields(self):
            lo, hi = f.metadata.get("min"), f.metadata.get("max")
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise SettingsError(f"setting {f.name}={value!r} is outside [{lo}, {hi}]")

    # --- construction --------------------------------------------------------------------------
    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Settings:
        """Build settings from text values (as in app_settings); unknown keys go to `extra`."""
        kwargs: dict[str, Any] = {}
        extra: dict[str, str] = {}
        known = {f.name: f for f in dataclasses.fields(cls) if f.name != "extra"}
        for key, raw in values.items():
            f = known.get(key)
            if f is None:
                extra[key] = str(raw)
                continue
            kwargs[key] = parse_setting(key, f.default, raw)
        return cls(**kwargs, extra=extra)

    def to_mapping(self) -> dict[str, Any]:
        """Plain values (extra keys included) that `from_mapping` reads back to equal settings."""
        values: dict[str, Any] = {
            f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"
        }
        values.update(self.extra)
        return values

    def with_overrides(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    # --- derived -------------------------------------------------------------------------------
    def required_to_pass(self) -> frozenset[str]:
        return frozenset(split_list(self.qa_required_to_pass))

    def advisory_reviewers(self) -> frozenset[str]:
        return frozenset(split_list(self.qa_advisory_reviewers))

    def thinking_models(self) -> tuple[str, ...]:
        return tuple(split_list(self.qa_thinking_models))

    def disabled_rules(self, niche: str | None = None) -> frozenset[str]:
        rules = set(split_list(self.content_validator_disabled_rules))
        if niche:
            rules |= set(
                split_list(self.extra.get(f"content_validator_disabled_rules.{niche}", ""))
            )
        return frozenset(rules)

    def url_allowlist(self) -> tuple[str, ...]:
        return tuple(split_list(self.qa_url_allowlist))

    def version(self) -> str:
        """A short stable hash of the effective settings (recorded in every decision).

        Computed once per instance: every reviewer result and decision asks for it, and settings
        never change after construction (`extra` is a read-only view)."""
        cached: str | None = self.__dict__.get("_version")
        if cached is None:
            payload = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
            payload["extra"] = dict(sorted(self.extra.items()))
            blob = json.dumps(payload, sort_keys=True, default=str).encode()
            cached = hashlib.sha256(blob).hexdigest()[:16]
            object.__setattr__(self, "_version", cached)  # frozen: not a field, a memo
        return cached

    @classmethod
    def describe(cls) -> list[tuple[str, Any, str]]:
        """(key, default, doc) for every setting, for `multiqa settings list` and the README."""
        return [
            (f.name, f.default, f.metadata.get("doc", ""))
            for f in dataclasses.fields(cls)
            if f.name != "extra"
        ]


def parse_setting(key: str, default: Any, raw: Any) -> Any:
    """`raw` read as the type of `default` (agents.values), SettingsError naming `key`."""
    try:
        return parse_value(raw, default)
    except ValueError as exc:
        raise SettingsError(f"setting {key}={raw!r} {exc}") from None


# --- write-time validation ------------------------------------------------------------------------
# The validator itself (`validate_value`, `apply_overrides`) is agents.settings_check: it asks the
# layers above this module (model names, the URL allowlist, the validator's rule codes), which
# all import Settings. Here: what it needs that imports nothing above (the cross-key rules'
# registry, the per-niche key prefix, the text form of a value).

NICHE_RULES_PREFIX = "content_validator_disabled_rules."

CrossKeyRule = Callable[["Settings"], "str | None"]
_CROSS_KEY_RULES: list[CrossKeyRule] = []


def cross_key_rule(rule: CrossKeyRule) -> CrossKeyRule:
    """Register a rule over several keys (e.g. a veto threshold above the approval threshold):
    it returns None when `settings` are fine, else one line naming the keys involved."""
    _CROSS_KEY_RULES.append(rule)
    return rule


def check_combination(settings: Settings) -> None:
    """Raise SettingsError when the settings contradict each other (every registered rule)."""
    problems = [p for rule in _CROSS_KEY_RULES if (p := rule(settings))]
    if problems:
        raise SettingsError("; ".join(problems))


def is_known_key(key: str) -> bool:
    """A key multiqa reads (a setting, or a per-niche rule switch)."""
    key = key.strip()
    return key in SETTING_FIELDS or key.startswith(NICHE_RULES_PREFIX)


def to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# Every setting's dataclass field by key (not `extra`): what agents.settings_check validates.
SETTING_FIELDS = {f.name: f for f in dataclasses.fields(Settings) if f.name != "extra"}
