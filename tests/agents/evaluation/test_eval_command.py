"""`multiqa eval`: figures, exit codes, JSON, progress, and bad input as one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.evaluation import load_corpus, rule_families, run_eval
from agents.evaluation._run import decision_of
from agents.settings import Settings
from schemas.records import QADecision
from streams.cli import main

CLEAN = "# Watering tomatoes\n\nWater deeply every morning and keep the soil evenly moist.\n"
PLACEHOLDER = CLEAN + "\nSee [the guide](url) for more.\n"


def make_corpus(tmp_path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    folder = tmp_path / "c"
    folder.mkdir()
    lines = ["draft,expected,family,title"]
    for name, expected, family, text in rows:
        (folder / name).write_text(text)
        lines.append(f"{name},{expected},{family},Title of {name}")
    (folder / "labels.csv").write_text("\n".join(lines) + "\n")
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["eval", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_all_right_exits_0_with_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_corpus(
        tmp_path,
        [("a.md", "approved", "clean", CLEAN), ("b.md", "rejected", "placeholder", PLACEHOLDER)],
    )
    code, out, err = run(capsys, str(folder))
    assert code == 0
    assert "placeholder             1      1  100.0%" in out
    assert "0 rejected (0.0% false rejections)" in out
    assert "result: PASS" in out
    assert "eval: 2/2 drafts reviewed" in err  # progress on stderr, never on stdout


def test_misses_exit_1_and_every_disagreement_is_listed_with_its_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_corpus(
        tmp_path,
        [
            ("clean.md", "approved", "clean", PLACEHOLDER),  # a clean draft rejected
            ("miss.md", "rejected", "placeholder", CLEAN),  # a defect nobody finds
            ("other.md", "rejected", "truncation", PLACEHOLDER),  # rejected by another family
        ],
    )
    code, out, _ = run(capsys, str(folder), "--quiet")
    assert code == 1
    assert "clean.md [clean] clean draft rejected" in out
    assert "validator: critical placeholder '](url)'" in out
    assert "miss.md [placeholder] expected rejected, decided approved" in out
    assert "no findings" in out
    assert "other.md [truncation] rejected, but no truncation rule fired" in out
    assert "result: FAIL" in out and "truncation recall 0.0% < 95%" in out
    assert "1 rejected (100.0% false rejections > 2%)" in out


def test_thresholds_decide_the_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_corpus(
        tmp_path,
        [("a.md", "approved", "clean", PLACEHOLDER), ("b.md", "rejected", "placeholder", CLEAN)],
    )
    assert run(capsys, str(folder), "--quiet")[0] == 1
    assert (
        run(capsys, str(folder), "--quiet", "--min-recall", "0", "--max-false-reject", "100%")[0]
        == 0
    )


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_corpus(
        tmp_path,
        [("a.md", "approved", "clean", CLEAN), ("b.md", "rejected", "placeholder", CLEAN)],
    )
    code, out, err = run(capsys, str(folder), "--json")
    assert code == 1
    document = json.loads(out)  # stdout is the JSON document alone
    assert document["families"]["placeholder"] == {"drafts": 1, "caught": 0, "recall": 0.0}
    assert document["clean"]["false_reject_rate"] == 0.0
    assert document["confusion"]["rejected"]["approved"] == 1
    assert document["passed"] is False
    assert document["disagreements"][0]["draft"] == "b.md"
    assert "eval:" in err


def test_settings_file_and_set_apply_over_the_folders_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_corpus(tmp_path, [("a.md", "approved", "clean", PLACEHOLDER)])
    assert run(capsys, str(folder), "--quiet")[0] == 1
    switched = tmp_path / "s.json"
    switched.write_text('{"content_validator_disabled_rules": "placeholder"}')
    assert run(capsys, str(folder), "--quiet", "--settings", str(switched))[0] == 0
    assert (
        run(
            capsys, str(folder), "--quiet", "--set", "content_validator_disabled_rules=placeholder"
        )[0]
        == 0
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--settings", "{missing}"], "no such file"),
        (["--settings", "{bad_json}"], "not valid JSON"),
        (["--set", "no_equals_sign"], "expected KEY=VALUE"),
        (["--set", "qa_critic_weight=heavy"], "not a number"),
        (["--set", "not_a_setting=1"], "unknown setting"),
    ],
)
def test_bad_settings_options_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    folder = make_corpus(tmp_path, [("a.md", "approved", "clean", CLEAN)])
    (tmp_path / "bad.json").write_text("{oops")
    argv = [a.format(missing=tmp_path / "nope.json", bad_json=tmp_path / "bad.json") for a in argv]
    code, out, err = run(capsys, str(folder), "--quiet", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("multiqa eval: error: ") and expected in err


def test_missing_folder_and_bad_labels_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, str(tmp_path / "nope"))
    assert code == 2 and "no such directory" in err and err.count("\n") == 1
    folder = make_corpus(tmp_path, [("a.md", "approved", "nonsense", CLEAN)])
    code, _, err = run(capsys, str(folder))
    assert code == 2 and "unknown family 'nonsense'" in err and err.count("\n") == 1


@pytest.mark.parametrize("value", ["1.5", "-0.1", "abc", "120%"])
def test_bad_thresholds_are_refused_by_the_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", str(tmp_path), "--min-recall", value])
    assert exit_.value.code == 2
    assert "--min-recall" in capsys.readouterr().err


async def test_a_review_that_fails_is_an_error_outcome_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.qa import MultiModelQA

    folder = make_corpus(
        tmp_path,
        [("a.md", "approved", "clean", CLEAN), ("b.md", "rejected", "placeholder", PLACEHOLDER)],
    )
    original = MultiModelQA.review

    async def flaky(self: MultiModelQA, title: str, content: str, *args: object, **kw: object):
        if "url" in content:
            raise RuntimeError("model server on fire")
        return await original(self, title, content, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(MultiModelQA, "review", flaky)
    outcomes = await run_eval(load_corpus(folder, rule_families()), Settings())
    assert [o.decision for o in outcomes] == ["approved", "error"]
    assert "model server on fire" in outcomes[1].error
    assert not outcomes[1].caught


def _decision(**kw: object) -> QADecision:
    base: dict[str, object] = dict(
        decision_id="d",
        draft_id="x",
        version=1,
        approved=True,
        final_score=90.0,
        summary="",
        feedback_text="",
    )
    base.update(kw)
    return QADecision(**base)  # type: ignore[arg-type]


def test_decisions_as_a_publisher_sees_them() -> None:
    assert decision_of(_decision()) == "approved"
    assert decision_of(_decision(approved=False)) == "rejected"
    assert decision_of(_decision(needs_human_review=True)) == "review"
    assert decision_of(_decision(approved=False, needs_human_review=True)) == "review"
    short = _decision(approved=False, needs_human_review=True, short_circuited=True)
    assert decision_of(short) == "rejected"
