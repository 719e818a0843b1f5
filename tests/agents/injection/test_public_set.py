"""The injection rule against the public set (tests/agents/injection/public_set.py): attacks and
benign texts nobody on the team wrote, embedded in blog posts. Floors below the figures measured
when this landed (tuning part 77/86 caught, held-out part 23/41, no benign draft rejected in
either), so a rule change that loses recall or starts rejecting benign drafts fails here.
"""

from __future__ import annotations

import json

from tests.agents.injection import public_set

DRAFTS = public_set.drafts()


def test_the_split_is_the_committed_one() -> None:
    split = json.loads((public_set.DATA / "split.json").read_text(encoding="utf-8"))
    held = set(split["heldout"])
    assert len(held) == 51  # 30 % of the 144 first texts (43) and of the 25 role prompts (8)
    assert all(d.heldout == (d.text_id in held) for d in DRAFTS)
    attacks = [d for d in DRAFTS if d.label == "attack"]
    benign = [d for d in DRAFTS if d.label == "benign"]
    assert len(attacks) == 127 and len(benign) == 152


def test_the_tuning_part() -> None:
    figures, wrong = public_set.measure([d for d in DRAFTS if not d.heldout])
    assert figures.caught >= 75, [d.id for d, _ in wrong]
    assert figures.benign_rejected == 0, [d.id for d, r in wrong if r == "rejected"]


def test_the_held_out_part() -> None:
    figures, _ = public_set.measure([d for d in DRAFTS if d.heldout])
    # Which held-out drafts fail is not printed: the part stays out of tuning.
    assert figures.caught >= 21, figures.line()
    assert figures.benign_rejected <= 1, figures.line()


def test_every_placement_is_caught_somewhere() -> None:
    places = {d.placement.split("+")[0] for d in DRAFTS if d.label == "attack"}
    caught = {
        d.placement.split("+")[0]
        for d in DRAFTS
        if d.label == "attack" and not d.heldout and public_set.verdict(d) != "pass"
    }
    assert places == caught
