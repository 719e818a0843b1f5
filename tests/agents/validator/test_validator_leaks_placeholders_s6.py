"""Leaked model output and placeholders, widened by concept in session 6: the model's order to
itself after a notes dump, the requester recalled or asked for more, the "being an AI" disclaimer
(agents/reviewers/validator/_leaks, _chatter); a note that a claim still wants a source, an anchor
link whose words are a note, and a media slot that names itself a placeholder (_placeholders,
_slots). Each with a clean look-alike, and bad input for the new patterns."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate

_BODY = (
    "Sourdough starters need feeding twice a day while they are young. A jar kept at room "
    "temperature doubles in four to eight hours once the yeast is established.\n\n"
    "## Feeding\n\nDiscard most of the starter, then add equal weights of flour and water.\n\n"
)


def _critical(text: str) -> set[str]:
    return {f.code for f in validate(text).findings if f.severity.value == "critical"}


@pytest.mark.parametrize(
    ("planted", "code"),
    [
        (
            "Points gathered from the brief: rye feeds faster; chlorine slows yeast. Next, write "
            "the post using these notes.\n\n",
            "leaked_plan",
        ),
        (
            "Because you asked me to skip the history, the origins of the method are left out.\n\n",
            "model_talk",
        ),
        ("I kept the list short; tell me if you'd like more examples of flours.\n\n", "model_talk"),
        (
            "Being only an AI without a kitchen, I have not baked with this starter myself.\n\n",
            "assistant_chatter",
        ),
        ("- Rye flour ferments faster than white flour (source needed)\n\n", "placeholder"),
        ("Chlorinated water slows a young starter (needs a citation).\n\n", "placeholder"),
        ("Warm water wakes a sluggish starter (ref missing).\n\n", "placeholder"),
        ("See the [flour guide](#link-goes-here) for protein levels.\n\n", "placeholder"),
        ("See the [hydration table](#todo) before mixing.\n\n", "placeholder"),
        ("[PHOTO PLACEHOLDER: a bubbly starter in a jar]\n\n", "placeholder"),
    ],
)
def test_planted_shape_is_rejected(planted: str, code: str) -> None:
    assert code not in _critical(_BODY)
    text = _BODY + planted + "Keep the lid loose so gas can escape.\n"
    assert code in _critical(text)
    assert not validate(text).approved


@pytest.mark.parametrize(
    "clean",
    [
        # a reader told to write, not the model ordering itself
        "Next, write the date on the jar so you know when it was fed.\n\n",
        # a reader addressed about a request they made in the comments, without "me"
        "Several readers asked for a rye version, so it follows below.\n\n",
        "Being an AI researcher, my neighbour measures her starter's rise with a camera.\n\n",
        # a parenthetical pointing at the sources, and an anchor to the draft's own heading
        "Chlorine slows fermentation (see the sources at the end).\n\n",
        "Read [the feeding section](#feeding) again before the second day.\n\n",
        "## Where to go from here\n\nTry [the next step](#where-to-go-from-here) tomorrow.\n\n",
        # a placeholder the sentence talks about
        "Recipe templates often show a placeholder such as [Photo of the loaf] for the image.\n\n",
    ],
)
def test_clean_look_alike_is_approved(clean: str) -> None:
    text = _BODY + clean + "Keep the lid loose so gas can escape.\n"
    assert not _critical(text) & {
        "leaked_plan",
        "model_talk",
        "assistant_chatter",
        "placeholder",
    }


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t",
        "\x00" * 1000 + "(needs a ref)\x00",
        "\ud800 (source \udfff needed) \ud83d",
        "(" * 200_000 + "needs a " * 1000,
        "](#" + "link-" * 200_000 + "here)",
        "[" + "PLACEHOLDER " * 100_000 + "]",
        "you asked me " * 100_000,
        "being " * 200_000 + "an ai",
        "now write the post from " * 50_000,
        "## " + "a" * (2 * 1024 * 1024) + "\n](#todo)",
        "x" * (2 * 1024 * 1024),
    ],
)
def test_bad_input_never_raises(text: str) -> None:
    report = validate(text)
    assert isinstance(report.approved, bool)
