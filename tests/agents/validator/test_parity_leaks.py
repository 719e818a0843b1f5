"""Leaked model output, ported from the seed's upstream tests (Glad-Labs/poindexter
content_validator tests: TestReasoningTokenLeak, TestDetectPromptLeak, TestPromptLeakRule,
TestParaphrasedInstructionEchoRule, TestDetectPlanningDumpPreamble, TestPlanningDumpRule and
test_content_validator_scaffold.py), in multiqa's words. Upstream splits these into several
categories (reasoning_token_leak, prompt_leak, planning_dump, leaked_planning_scaffold); multiqa's
family is `leaked_output`, every rule of it critical."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import rules, validate
from schemas.records import Severity

LEAK_CODES = {r.code for r in rules() if r.family == "leaked_output"}
ARTICLE = (
    "Local models changed how developers think about inference costs. Running a model on your "
    "own machine removes per-token billing entirely.\n"
)


def leaks(content: str, title: str = "") -> list[str]:
    return [c for c in validate(content, title=title).codes() if c in LEAK_CODES]


def assert_rejected_for_leak(content: str) -> None:
    report = validate(content)
    found = [f for f in report.findings if f.code in LEAK_CODES]
    assert found, report.codes()
    assert all(f.severity == Severity.CRITICAL for f in found)
    assert not report.approved


@pytest.mark.parametrize(
    "token",
    [
        "<|channel>thought\n<channel|>",
        "<|im_start|>assistant\n",
        "<|im_end|>\n",
        "<think>plan</think>",
    ],
)
def test_control_and_reasoning_tokens_reject(token: str) -> None:
    """follows upstream test_catches_glm_channel_header_in_body,
    test_catches_chatml_im_start_in_body,
    test_catches_im_end_token, test_catches_think_block_in_body,
    test_reasoning_token_leak_is_critical_not_warning"""
    assert_rejected_for_leak(token + ARTICLE)


def test_a_token_in_the_middle_is_found_not_only_at_the_end() -> None:
    """follows upstream test_mid_body_token_detected_not_just_final_line"""
    assert_rejected_for_leak(ARTICLE + "<|channel>thought\n<channel|>\n" + ARTICLE)


def test_tokens_shown_as_code_are_examples() -> None:
    """follows upstream test_no_false_positive_inside_triple_backtick_fence,
    test_no_false_positive_inside_inline_backtick, test_no_false_positive_on_clean_content"""
    fenced = (
        "ChatML looks like this:\n\n```\n<|im_start|>system\nBe brief.\n<|im_end|>\n```\n\nDone."
    )
    inline = "The ``<|im_start|>`` token opens a turn; some models use `<think>` and `</think>`."
    assert leaks(fenced) == [] and leaks(inline) == [] and leaks(ARTICLE) == []


@pytest.mark.parametrize(
    "echo",
    [
        "Please revise a draft article based on the listed fixes.",
        "Grounding: use only provided snippets and never invent facts.",
        "LEAD WITH STAKES, then explain.",
        "Lead with stakes.\nThread bundle facts through the narrative.\nClose with reflection.",
        "Revise a draft article based on specific fixes.\nReturn complete Markdown body only.",
        "* Key elements from sources:\n  * hot water and a stiff brush\n  * re-oil after washing",
        "    *   Grounding: Use only provided snippets and web sources.\n"
        "    *   Verify links; no placeholders like [INTERNAL SNIPPET].",
    ],
)
def test_echoed_writer_instructions_reject(echo: str) -> None:
    """follows upstream test_returns_marker_for_reviser_echo,
    test_returns_marker_for_writer_instruction,
    test_case_insensitive, test_reviser_prompt_echo_is_critical,
    test_writer_persona_and_instruction_leak_is_critical,
    test_dev_diary_scaffolding_leak_detected; "Key elements from sources:" alone is issue 11's
    (upstream needs a second tell)"""
    assert_rejected_for_leak(echo + "\n\n" + ARTICLE)


def test_instructions_quoted_in_a_fence_are_an_example() -> None:
    """follows upstream test_prompt_text_inside_code_fence_not_flagged,
    test_clean_article_has_no_prompt_leak, test_clean_prose_returns_empty,
    test_empty_returns_empty"""
    quoted = (
        "Here is the reviser prompt we ship:\n\n```\nRevise a draft article based on specific "
        "fixes.\nReturn complete Markdown body only.\n```\n\nThe model then emits the article."
    )
    assert leaks(quoted) == [] and leaks(ARTICLE) == []


def test_paraphrased_expand_instructions_reject() -> None:
    """follows upstream test_e46_paraphrased_expand_instructions_critical,
    test_9921_bullet_instruction_echo_critical, test_expand_shape_tolerates_adjectives"""
    assert_rejected_for_leak(
        "Expand a 323-word draft to approximately 1057 words. Do NOT pad, repeat or add "
        "filler. No preamble.\n\n" + ARTICLE
    )
    assert_rejected_for_leak(
        "    *   Preserve existing facts, links, headings, and voice.\n"
        "    *   NO padding, repeating, or filler.\n    *   End on a complete sentence.\n\n"
        + ARTICLE
    )


def test_one_instruction_shape_in_real_prose_is_not_a_leak() -> None:
    """follows upstream test_single_shape_in_real_prose_not_flagged,
    test_two_shapes_inside_code_fence_not_flagged"""
    prose = (
        "A common workflow is to ask the model to expand a draft into a full post overnight. "
        "Length is cheap, substance is not.\n"
    )
    fenced = "Our prompt:\n\n```\nExpand a draft to closer to 900 words.\nNo preamble.\n```\n\nOk."
    assert leaks(prose) == [] and leaks(fenced) == []


PLANNING_DUMP = (
    "*   Topic: Ellipses and triple-dot punctuation marks.\n"
    "    *   Source Material provided:\n"
    "        *   Wikipedia (Ellipsis).\n"
    "        *   (Irrelevant source: a crime novel's description).\n"
    "    *   Ensure inline links use `[Tool Name](url)`.\n"
    "    *   Discard irrelevant data.An **ellipsis** is a punctuation mark of three dots.\n\n"
    "### Etymology\nThe term comes from the Greek *elleipsis*.\n"
)


@pytest.mark.parametrize(
    "dump",
    [
        PLANNING_DUMP,
        "# Decoding the Dots\n\n" + PLANNING_DUMP,
        "*   *Introduction:* Define hallucination.\n"
        "    *   I should provide before-and-after examples.\n"
        "*   *Conclusion:* Summarise.\n    *   Check word count (aiming for ~1057).\n"
        "    *   Ensure all links are preserved.\n\n# Addressing Hallucinations\n\nText.\n",
        '*   User wants a comprehensive explanation of an "ellipsis."\n'
        "    *   I have several provided sources and some irrelevant snippets.\n\n"
        "### Use in quotations\nAn ellipsis marks omitted words.\n",
        "*   Topic: Why VRAM capacity beats raw compute.\n    *   Format: Blog post section.\n"
        "    *   Key concept: memory bandwidth vs compute.\n### The Hard Wall\n\nText.\n",
        "*   SEO Value: They target high-intent keywords.\n*   Neutral Tone: helpful.\n"
        "*   Clarity: a technical piece.\n*   Shifted from a guide format.\n"
        "*   Focuses on specific metrics.\n\n## Why frame time matters\n\nConsistency.\n",
    ],
)
def test_planning_dumps_reject(dump: str) -> None:
    """follows upstream test_e46_planning_dump_detected, test_dump_below_leading_h1_detected,
    test_ecaf_style_section_plan_outline_detected, test_task_receipt_inventory_dump_detected,
    test_assignment_spec_dump_detected, test_draft_meta_commentary_dump_detected,
    test_e46_planning_dump_body_critical"""
    assert_rejected_for_leak(dump)


@pytest.mark.parametrize(
    "content",
    [
        "*   Length: 304 mm.\n*   Format: Triple-slot.\n*   Memory: 24 GB.\n*   TDP: 350 W.\n\n"
        "## How it performs\n\nWell.\n",
        "When the retriever returns irrelevant snippets, the writer grounds its draft in noise. "
        "The user wants an article, not a lottery.\n\n## Filtering\n\nStart with an allowlist.\n",
        "Local model routing sounds simple until you meet the failure modes.\n\n## "
        "Timeouts\n\nx.\n",
        "## What You Will Need\n\n*   A GPU with 12 GB.\n*   Ollama 0.5.\n*   A Postgres "
        "instance.\n"
        "*   40 GB of disk.\n*   Patience.\n*   A terminal.\n\nStart by pulling the model.\n",
        "*   Timeouts on cold loads.\n*   VRAM fragmentation.\n*   Silent fallbacks.\n"
        "*   Retry storms.\n*   Checkpoint corruption.\n*   Disk pressure.\n\n## The "
        "thread\n\nGPU.\n",
        "Our style guide bans filler. We track word count per section, require markdown format "
        "for every draft.\n\n## Why\n\nReaders notice padding.\n",
        "*   Word count matters less than substance.\n*   Markdown format is table stakes.\n\n"
        "That is the short version.\n",
        "*   Focuses on raster performance.\n*   Ships with 16 GB.\n*   Draws 220 W.\n\n## "
        "Verdict\n\nGood.\n",
        "Focused on performance, the card rewrites what a consumer card can do. Shifted from the "
        "compute-bound regime, today's bottleneck is memory.\n\n## Numbers\n\nFast.\n",
        "- Input: a UTF-8 string\n- Output Format: JSON\n- Input: a locale\n- Output Format: "
        "same\n\n"
        "## Behaviour\n\nThe service validates each field.\n",
        "Wait, you might say, isn't this premature optimisation? It is a fair objection.\n\n## "
        "Answer\n\nNo.\n",
        "## Writing Tips\n\nOne trick: vary sentence length so prose does not read flat.\n",
        "## How We Plan Sprints\n\n- Task: ship the exporter swap\n\nThat label keeps standups "
        "honest.\n",
        "## The Two-Pass Rule\n\nOur editors revise the draft twice before it ships.\n",
        "We caught our writer leaking its plan:\n\n```\n" + PLANNING_DUMP + "```\n\nWe fixed it.\n",
    ],
)
def test_look_alikes_of_planning_dumps_pass(content: str) -> None:
    """follows upstream test_hardware_spec_list_not_flagged,
    test_prose_about_irrelevant_snippets_not_flagged,
    test_clean_prose_intro_returns_empty, test_bullet_list_after_heading_not_flagged,
    test_leading_bullets_without_planning_vocab_not_flagged,
    test_planning_vocab_in_prose_without_bullets_not_flagged, test_short_bullet_opening_not_flagged,
    test_feature_comparison_bullets_not_flagged, test_participial_prose_opening_not_flagged,
    test_api_doc_bullets_alone_stay_silent, test_single_rhetorical_wait_stays_silent,
    test_single_tell_does_not_fire, test_single_benign_task_bullet_does_not_fire,
    test_single_revision_mention_in_prose_does_not_fire, test_dump_inside_code_fence_not_flagged,
    test_tells_inside_code_fence_ignored, test_article_with_midbody_bullets_not_flagged"""
    assert leaks(content) == []


@pytest.mark.parametrize(
    "scaffold",
    [
        "* Key elements from sources:\n* Models used/tested: gemma-4-31B.\n* Vary sentence "
        "length.\n",
        "*   Task: Revise a draft article based on specific fixes.\n    *   Constraints: keep it.\n"
        "    *   Fix 1: Unlinked citation.\n",
        'Revise a draft article about "Postgres survival".\n\n        *   Preserve structure, '
        "headings, length, links, citations, and voice.\n        *   No new sections unless "
        "required.\n    *   *Wait*, the fix list also asks for a tighter closing.\n",
        "*   Role: Reviewer checking contradictions.\n    *   Task: Fix contradictions only.\n"
        "    *   Constraint 1: Fix *only* the identified contradictions.\n",
        "*   Task: Fix specific contradictions.\n    Wait, the prompt says fix contradictions "
        "only.\n"
        "    Let's re-read carefully: the analysis concludes with PASS.\n"
        "    If I change things already vetted, am I overstepping?\n    I'll provide the "
        "original text.\n",
    ],
)
def test_scaffolds_and_revision_briefs_reject(scaffold: str) -> None:
    """follows upstream test_flags_leaked_scaffold_as_critical,
    test_flags_revision_briefing_as_critical,
    test_flags_label_free_briefing_dialect_as_critical, test_revision_brief_bullet_dump_flagged,
    test_deliberation_prose_stream_flagged"""
    assert_rejected_for_leak(scaffold + "\n## Real section\n\nThe article body goes here.\n")


@pytest.mark.parametrize(
    "opening",
    [
        "Okay, let me think about how to structure this. I'll open with the answer.",
        "Alright, so the user wants a practical piece. I should keep it beginner friendly.",
        "As an AI language model, I don't have personal experience of running.",
        "As an AI, I cannot taste food, but here is a recipe.",
        "Here is the revised article with the changes you asked for:",
        "Sure! Here's a blog post about choosing a knife.",
        "I hope this article helps! Let me know if you'd like me to adjust the tone.",
    ],
)
def test_the_model_talking_about_its_task_rejects(opening: str) -> None:
    """multiqa cases for the issue's "Okay, let me think about how to structure this" and the seed's
    assistant-chatter list (upstream has no test of its own for these)"""
    assert_rejected_for_leak(opening + "\n\n" + ARTICLE)


@pytest.mark.parametrize(
    "role",
    [
        "As an AI researcher at Princeton, Fei-Fei Li led the effort to build ImageNet.",
        "As an AI engineer, you will spend more time on data than on models.",
        "As an AI startup founder, she cannot compete on compute.",
        "As an AI policy lead, one has to balance helpfulness and harm.",
        "He works as an AI safety researcher in London.",
    ],
)
def test_a_sentence_about_someones_ai_job_is_not_the_disclaimer(role: str) -> None:
    """issue 11's precision case: the disclaimer needs the disclaimer ("as an AI language model"),
    not the words "as an AI" (upstream test_clean_content_passes is the same spirit)"""
    assert validate(ARTICLE + "\n" + role + "\n").findings == ()
