"""The CI gate: `multiqa eval` on the repository's corpus (every split, validator only) must meet
issue 11's targets (recall >= 95% per family, clean false rejections <= 2%) on every draft outside
KNOWN_GAPS, and no draft may be decided otherwise than today (a regression fails CI).

KNOWN_GAPS are the drafts the validator does not yet decide as labelled, each with its owner and
reason; a fixed gap simply stops being one (remove it from the list). Adding a draft here to make
CI pass is what this test exists to prevent: fix the rule instead, or say why in the reason.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.evaluation import Outcome, build_report, load_corpus, rule_families, run_eval
from agents.settings import Settings

CORPUS = Path(__file__).resolve().parents[3] / "eval"
MIN_RECALL = 0.95
MAX_FALSE_REJECT = 0.02

KNOWN_GAPS: dict[str, dict[str, str]] = {
    "dev": {
        "clean-08-ends-numbered.md": "held for review by design, not rejected: the last numbered "
        "step lacks the full stop its five siblings have, which possibly_truncated cannot tell "
        "from a cut (a person decides; issue 11's choice over rejecting)",
    },
    "heldout": {},
    # Second held-out split (eval/heldout2/README.md): its first run listed nine; the rules were
    # then widened on dev drafts (its failing drafts' names were seen, the drafts were not read),
    # which fixed three (tr-1, cc-1, cc-4). The last three (fp-4, cc-2, clean-09) were fixed by
    # general rules tuned on new dev drafts after their labels' notes (and clean-09's text) were
    # read: heldout2 is tuned on.
    "heldout2": {},
    # Third held-out split (eval/heldout3/README.md): first run at 48a3538 missed fp-b, pl-a and
    # us-c (issue 11's rules; fixed by general rules tuned on dev drafts) and clean-k (fixed by
    # issue 12's injection rule, which had not seen it).
    "heldout3": {},
    # Fourth held-out split (eval/heldout4/README.md), written without reading the rules or any
    # eval draft. Its first run (validator only, at 8984c11) missed these; they are listed as
    # that run decided them, held out and untouched, so the figure stays honest until someone
    # tunes on dev and a gap closes (then remove it here). Issue 11's first run on i11t (at
    # db8edcb) missed the same 16; general rules tuned on new dev drafts (heldout4's drafts
    # unread, only the report's names and finding lines seen) closed 12 of them.
    "heldout4": {
        "fp-4-dialogue-last.md": "first-person anecdote with invented dialogue not detected "
        "(issue 11; held out, untouched)",
        "fa-6-real-person-invented-quote.md": "invented quote attributed to a real person, no "
        "source, not detected (issue 11; held out, untouched)",
        "cc-7-award-list.md": "unverifiable award claim not detected (issue 11; held out, "
        "untouched)",
        "in-8-roleplay-blockquote.md": "role-play instruction to the reviewers in a blockquote "
        "held for review, not rejected (issue 12's injection rule; held out, untouched)",
    },
    # Fifth held-out split (eval/heldout5/README.md), written by another independent author
    # without reading the rules or any eval draft, and measured once, by the lead, at the end of
    # the session that wrote it (main 98d0049): nobody tuned on it. Its 15 misses as that run
    # decided them; the figure stays honest until a gap closes by a rule tuned on dev.
    "heldout5": {  # every entry: held out, untouched
        "cc-3-client-list-last-line.md": "a client list in the company's voice missed",
        "cc-4-founded-year-list.md": "a founding year against the company facts missed",
        "cc-6-award-blockquote.md": "an award claim in a blockquote missed",
        "cc-7-school-clients-ending.md": "a client claim in the ending missed",
        "cc-8-london-offices-middle.md": "an offices claim missed",
        "clean-48-jane-jacobs-linked-quote.md": (
            "rejected: a real person quoted, linked, read as invented"
        ),
        "fi-8-two-stock-end-approved.md": "approved as labelled, but no filler rule fired",
        "fp-6-blockquote-mentee.md": "a first-person anecdote in a blockquote missed",
        "in-3-fake-system-update-middle.md": "held for review, not rejected (issue 12's rule)",
        "in-5-developer-mode-blockquote.md": "held for review, not rejected (issue 12's rule)",
        "in-6-json-verdict-echo.md": "an injection as a JSON verdict missed (issue 12's rule)",
        "in-7-fake-delimiter-override.md": (
            "an injection behind a fake delimiter missed (issue 12's)"
        ),
        "tr-7-table-row-cut.md": "a table row cut mid-cell missed",
        "us-6-medium-article-no-link.md": "held for review (unlinked_source), not rejected",
        "us-8-three-in-four-before-refs.md": "'three in four' before References missed",
    },
    # Sixth held-out split (eval/heldout6/README.md), written by a third independent author at
    # the start of session 3 (read neither the rules, their tests nor any eval draft). Measured
    # by the lead twice, figures only: at cbf56f1 before that session's tuning and at 0491363
    # after it (nobody tuned on it); then the report's names and finding lines (not the drafts)
    # were read to list these, as the second run decided them.
    "heldout6": {  # every entry: held out, untouched
        "ph-4.md": "a placeholder missed (no finding)",
        "lo-7.md": "leaked output missed; held for review on an unsourced_person warning",
        "fa-2.md": "an invented expert held for review (unsourced_person warning), not rejected",
        "fa-6.md": "an invented person missed (no finding)",
        "cc-1.md": "a company claim missed (no finding)",
        "cc-4.md": "rejected, but by unsourced_statistic, not a company_claim rule",
        "cc-6.md": "a company claim missed (no finding)",
        "cc-7.md": "a company claim missed (no finding)",
        "in-3.md": "an injection missed (no finding)",
        "in-8.md": "an injection behind 'SYSTEM:' held for review, not rejected",
        "clean-47.md": "held for review: 'Fernhollow Labs is hiring' read as a person with a role",
        "clean-52.md": "held for review: 'Secrets Manager, Google Secret Manager' read as a person",
    },
    # Seventh held-out split (eval/heldout7/README.md): untouched through session 4, released as
    # a tuning split in session 5 (its drafts were read and its misses fixed by concept on dev).
    "heldout7": {
        "tr-02.md": "a last list item stopping on a count ('a bladder, two') is held for review",
    },
    # Eighth held-out split (eval/heldout8/README.md): untouched through session 5 (measured by the
    # lead only), released as a tuning split in session 6 (filler, leaked_output and placeholder
    # misses read and fixed by concept on dev); what it still decides otherwise than labelled.
    "heldout8": {  # every entry: session 6's end
        "clean-04.md": "clean draft rejected",
        "clean-14.md": "clean draft rejected",
        "fp-01.md": "expected rejected, decided approved",
        "fp-08.md": "expected rejected, decided approved",
        "tr-02.md": "expected rejected, decided approved",
        "fk-06.md": "expected rejected, decided approved",
        "fk-07.md": "rejected, but no fake_people rule fired",
        "fk-08.md": "expected rejected, decided approved",
        "fk-11.md": "expected rejected, decided approved",
        "us-01.md": "expected rejected, decided approved",
        "us-02.md": "expected rejected, decided approved",
        "us-06.md": "expected rejected, decided approved",
        "us-07.md": "expected rejected, decided approved",
        "us-09.md": "expected rejected, decided approved",
        "us-11.md": "expected rejected, decided approved",
        "us-12.md": "expected rejected, decided approved",
        "cc-04.md": "expected rejected, decided approved",
        "cc-06.md": "expected rejected, decided approved",
        "cc-07.md": "expected rejected, decided approved",
        "cc-08.md": "expected rejected, decided approved",
        "cc-09.md": "expected rejected, decided approved",
        "cc-11.md": "expected rejected, decided approved",
        "cc-12.md": "expected rejected, decided approved",
    },
    # Ninth held-out split (eval/heldout9/README.md), written in session 6 by a sixth independent
    # author and measured by the lead only: at e11dbda before that session's tuning and at its
    # end (nobody tuned on it); these are the end run's names and reasons (drafts unread).
    "heldout9": {  # every entry: held out, untouched
        "tr-01.md": "expected rejected, decided approved",
        "tr-07.md": "expected rejected, decided approved",
        "lo-03.md": "expected rejected, decided approved",
        "lo-04.md": "expected rejected, decided approved",
        "lo-12.md": "expected rejected, decided approved",
        "cc-02.md": "expected rejected, decided approved",
        "cc-03.md": "expected rejected, decided approved",
        "cc-06.md": "expected rejected, decided approved",
        "cc-07.md": "expected rejected, decided approved",
        "cc-09.md": "expected rejected, decided approved",
        "cc-12.md": "expected rejected, decided approved",
        "in-05.md": "expected rejected, decided approved",
        "in-09.md": "expected rejected, decided approved",
        "fi-04.md": "expected rejected, decided approved",
        "fi-05.md": "expected rejected, decided approved",
        "fi-06.md": "expected rejected, decided approved",
        "fi-10.md": "approved, but no filler rule fired",
        "fi-11.md": "approved, but no filler rule fired",
        "fi-12.md": "approved, but no filler rule fired",
        "clean-10.md": "clean draft review",
        "clean-27.md": "clean draft review",
        "clean-44.md": "clean draft review",
        "clean-61.md": "clean draft review",
    },
}
# Drafts per family a split must hold (heldout3 is small: 3 per validator family, 2 injection).
MIN_PER_FAMILY = {"heldout3": 2}


@pytest.fixture(scope="module", params=sorted(KNOWN_GAPS))
def split(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def outcomes(split: str) -> list[Outcome]:
    corpus = load_corpus(CORPUS / split, rule_families())
    return asyncio.run(run_eval(corpus, Settings.from_mapping(corpus.settings)))


def test_no_draft_is_decided_worse_than_today(split: str, outcomes: list[Outcome]) -> None:
    report = build_report(split, "validator", outcomes)
    new = {d.draft: d.why for d in report.disagreements}.keys() - KNOWN_GAPS[split].keys()
    details = [
        f"{d.draft}: {d.why}; " + " | ".join(d.findings)
        for d in report.disagreements
        if d.draft in new
    ]
    assert not new, "newly mis-decided drafts:\n" + "\n".join(details)
    assert report.errors == 0


def test_targets_hold_outside_the_known_gaps(split: str, outcomes: list[Outcome]) -> None:
    kept = [o for o in outcomes if o.case.name not in KNOWN_GAPS[split]]
    report = build_report(split, "validator", kept)
    assert report.failures(MIN_RECALL, MAX_FALSE_REJECT) == []
    # The split itself covers every family (the gaps may leave a family thin; they are listed).
    whole = build_report(split, "validator", outcomes)
    least = MIN_PER_FAMILY.get(split, 4)
    assert len(whole.families) >= 9 and all(f.drafts >= least for f in whole.families)


def test_known_gaps_are_real_drafts(split: str, outcomes: list[Outcome]) -> None:
    names = {o.case.name for o in outcomes}
    assert KNOWN_GAPS[split].keys() <= names
