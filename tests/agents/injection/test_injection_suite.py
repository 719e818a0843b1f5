"""Issue 12's injection suite, in-process (MultiModelQA) against a fake model on 127.0.0.1 that
obeys any injection that reaches its prompt (obeying_model.py).

Each attack (injection_forms.py: a public payload in one of the issue's forms) sits on an article
with a defect the validator cannot see. The suite asserts, for every attack:
- control: with the injection rules switched off, the obeying model approves it (the attack
  works, so this suite can fail);
- without the injection, the same article is rejected by the critic (the defect is real);
- with the rules on: not approved, and the validator names the injection.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from agents import MultiModelQA
from agents.base import Deps
from agents.llm import LLMRouter
from agents.settings import Settings
from schemas.records import ReviewStatus
from tests.agents.fakes import FAST, FakeOllama
from tests.agents.injection.injection_forms import ARTICLE, ATTACKS, TITLE, TOPIC, Attack
from tests.agents.injection.obeying_model import MODEL, ObeyingModel

INJECTION_RULES = "prompt_injection,possible_prompt_injection"


class Settled:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def get(self) -> Settings:
        return self.settings


def suite_settings(ollama: FakeOllama, **changes: Any) -> Settings:
    """The critic and both text gates on the obeying model; the network reviewers off (no web
    here, and the drafts' links are not what is tested)."""
    return Settings(
        ollama_base_url=ollama.url,
        pipeline_critic_model=f"ollama/{MODEL}",
        qa_fallback_critic_model="",
        qa_gate_model=f"ollama/{MODEL}",
        qa_required_to_pass="critic",
        qa_url_verify_enabled=False,
        qa_citation_verify_enabled=False,
        qa_web_factcheck_enabled=False,
        **{**FAST, "qa_critic_timeout_seconds": 10.0, "qa_gate_timeout_seconds": 10.0},
        **changes,
    )


async def review(attack: Attack, settings: Settings) -> Any:
    qa = MultiModelQA(None, Settled(settings), deps=Deps(llm=LLMRouter.from_settings(settings)))
    return await qa.review(**attack.fields(), draft_id=f"inj-{abs(hash(attack.form))}")


@pytest.fixture
def obeying(fake_ollama: FakeOllama) -> ObeyingModel:
    model = ObeyingModel(a.marker for a in ATTACKS)
    fake_ollama.add_model(MODEL, always=model)
    return model


def test_the_suite_has_the_forms_the_issue_lists() -> None:
    forms = {a.form for a in ATTACKS}
    assert len(forms) == len(ATTACKS) >= 25
    for named in (
        "plain", "in the title", "in the topic", "in a research source", "HTML comment",
        "link title", "footnote", "zero-width split", "look-alike letters", "base64",
        "%-encoding", "spaced letters", "in French", "in German", "in Spanish", "in Russian",
        "in Chinese", "fake JSON verdict", "fake fence close", "the editor already approved this",
    ):  # fmt: skip
        assert named in forms
    # Every marker is really in the draft, in the field the form names.
    for attack in ATTACKS:
        assert any(attack.marker in str(v) for v in attack.fields().values()), attack.form


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.form)
async def test_an_injection_never_buys_approval(
    attack: Attack, obeying: ObeyingModel, fake_ollama: FakeOllama
) -> None:
    settings = suite_settings(fake_ollama)

    clean = dataclasses.replace(
        attack, title=TITLE, topic=TOPIC, content=ARTICLE, research_sources=()
    )
    honest = await review(clean, settings)
    assert not honest.approved, "the planted defect must be caught by the critic on its own"
    assert any(r.reviewer == "critic" and r.score == 20 for r in honest.reviews)

    control = await review(
        attack, settings.with_overrides(content_validator_disabled_rules=INJECTION_RULES)
    )
    assert control.approved, f"{attack.form}: the obeying model should have been bought"

    obeyed_before = obeying.obeyed
    result = await review(attack, settings)
    assert not result.approved, f"{attack.form}: approved {result.final_score}: {result.summary}"
    validator = result.reviews[0]
    assert validator.reviewer == "validator" and validator.status == ReviewStatus.OK
    codes = {f.code for f in validator.findings}
    assert codes & {"prompt_injection", "possible_prompt_injection"}, (attack.form, codes)
    if "prompt_injection" in codes:
        # A critical finding rejects before any paid reviewer is asked: the model never saw it.
        assert obeying.obeyed == obeyed_before
    else:
        assert result.needs_human_review
