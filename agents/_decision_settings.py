"""Settings that contradict the aggregation's rules, refused when written (agents.settings'
cross-key rules; every write path runs them: `settings set|unset`, `rescore --set`, ...).

Each rule returns one line naming the keys involved, or None. Imported by agents.aggregate, so the
rules are registered whenever agents is (agents/__init__ imports the aggregation).

Should such settings reach a worker anyway (written by hand in SQL), the aggregation still fails
closed: a required reviewer that is not enabled blocks approval, and required beats advisory.
"""

from __future__ import annotations

from agents.settings import Settings, cross_key_rule

# The setting that switches each reviewer on (the validator always runs).
ENABLED_BY: dict[str, str] = {
    "critic": "qa_critic_enabled",
    "consistency": "qa_consistency_enabled",
    "topic_delivery": "qa_topic_delivery_enabled",
    "citations": "qa_citation_verify_enabled",
    "urls": "qa_url_verify_enabled",
    "web_factcheck": "qa_web_factcheck_enabled",
    "vision": "qa_vision_check_enabled",
    "preview": "qa_preview_screenshot_enabled",
}


@cross_key_rule
def critic_veto_within_approval(s: Settings) -> str | None:
    if s.qa_critic_veto_threshold > s.qa_final_score_threshold:
        return (
            f"qa_critic_veto_threshold={s.qa_critic_veto_threshold:g} is above "
            f"qa_final_score_threshold={s.qa_final_score_threshold:g}: a critic score that "
            "approves would also veto"
        )
    return None


@cross_key_rule
def required_reviewers_enabled(s: Settings) -> str | None:
    off = [
        (name, ENABLED_BY[name])
        for name in sorted(s.required_to_pass())
        if name in ENABLED_BY and not getattr(s, ENABLED_BY[name])
    ]
    if not off:
        return None
    listed = ", ".join(f"{name} ({key}=false)" for name, key in off)
    return (
        f"qa_required_to_pass names {listed}: a required reviewer that never runs would block "
        "every draft; enable it or remove it from qa_required_to_pass"
    )


@cross_key_rule
def required_not_advisory(s: Settings) -> str | None:
    both = sorted(s.required_to_pass() & s.advisory_reviewers())
    if both:
        return (
            f"qa_required_to_pass and qa_advisory_reviewers both name {', '.join(both)}: a "
            "reviewer cannot be required and advisory"
        )
    if "validator" in s.advisory_reviewers():
        return (
            "qa_advisory_reviewers names validator: the validator is always required "
            "(its criticals short-circuit)"
        )
    return None
