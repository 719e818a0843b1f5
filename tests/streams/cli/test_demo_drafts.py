"""The demo's three sample drafts lead to the outcomes the README promises, through the same
reviewers and aggregation the stream runs (in-process here; `make demo` runs them in a worker)."""

from __future__ import annotations

from agents.qa import MultiModelQA
from agents.settings import Settings
from streams.cli.demo import local_pages, sample_drafts


class DemoSettings:
    """The demo's allowlist; the LLM reviewers off so a local Ollama cannot change the outcome."""

    async def get(self) -> Settings:
        return Settings(
            qa_url_allowlist="127.0.0.1",
            qa_critic_enabled=False,
            qa_consistency_enabled=False,
            qa_topic_delivery_enabled=False,
            qa_web_factcheck_enabled=False,
        )


async def test_demo_drafts_are_approved_short_circuited_and_vetoed_for_a_dead_link():
    qa = MultiModelQA(None, settings_service=DemoSettings())
    with local_pages() as pages:
        clean, statistic, dead_link = sample_drafts(pages, "t1")
        results = [await qa.review_draft(d) for d in (clean, statistic, dead_link)]

    approved, rejected_stat, rejected_link = (r.decision for r in results)
    assert approved.approved and approved.final_score >= 70 and not approved.vetoes
    assert not rejected_stat.approved and rejected_stat.short_circuited
    assert any("unsourced_statistic" in v for v in rejected_stat.vetoes)
    assert not rejected_link.approved
    assert any(v.startswith("urls") and "dead link" in v for v in rejected_link.vetoes)
    assert f"{pages}/docs/retired-debugging-guide" in rejected_link.feedback_text
    assert [d.draft_id for d in (clean, statistic, dead_link)] == [
        "demo-t1-clean",
        "demo-t1-statistic",
        "demo-t1-dead-link",
    ]


def test_the_clean_and_dead_link_drafts_break_no_writing_rule() -> None:
    # They show one thing each (approved; a dead link): the validator finds nothing in them but
    # the local pages' addresses (the demo serves its pages on 127.0.0.1: internal_path).
    from agents.reviewers.validator._core import validate

    clean, _, dead_link = sample_drafts("http://127.0.0.1:8123", "t2")
    for draft in (clean, dead_link):
        codes = {f.code for f in validate(draft.content, title=draft.title).findings}
        assert codes <= {"internal_path"}, (draft.draft_id, codes)
