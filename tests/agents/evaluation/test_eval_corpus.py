"""Loading a labelled corpus: every way a folder, its labels or its settings can be wrong is one
EvalError naming the file (and line); good corpora load exactly as labelled."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.evaluation import EvalError, load_corpus, rule_families

FAMILIES = rule_families()


def corpus(
    tmp_path: Path, labels: str | bytes, files: dict[str, str | bytes] | None = None
) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir(exist_ok=True)
    for name, text in (files if files is not None else {"a.md": "Text.", "b.md": "More."}).items():
        path = folder / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    (folder / "labels.csv").write_bytes(labels if isinstance(labels, bytes) else labels.encode())
    return folder


def error(folder: Path) -> str:
    with pytest.raises(EvalError) as caught:
        load_corpus(folder, FAMILIES)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_good_corpus_loads_as_labelled(tmp_path: Path) -> None:
    folder = corpus(
        tmp_path,
        "draft,expected,family,title,note,extra\n"
        "a.md,approved,clean,A title,a note,ignored\n\n"
        "b.md,rejected,placeholder,,\n",
    )
    loaded = load_corpus(folder, FAMILIES)
    assert [(c.name, c.expected, c.family, c.title) for c in loaded.cases] == [
        ("a.md", "approved", "clean", "A title"),
        ("b.md", "rejected", "placeholder", ""),
    ]
    assert loaded.cases[0].content == "Text." and loaded.cases[0].clean
    assert loaded.settings == {}


def test_the_repository_corpus_loads_with_enough_drafts_per_family() -> None:
    root = Path(__file__).resolve().parents[3] / "eval"
    cases = [c for split in ("dev", "heldout") for c in load_corpus(root / split, FAMILIES).cases]
    assert len(cases) >= 150
    families = {c.family for c in cases if not c.clean}
    for family in families:
        assert sum(c.family == family for c in cases) >= 10, family
    assert sum(c.clean for c in cases) >= 60


def test_missing_folder_and_file_instead_of_folder(tmp_path: Path) -> None:
    assert "no such directory" in error(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    assert "not a directory" in error(tmp_path / "file")


def test_missing_labels_file(tmp_path: Path) -> None:
    assert "labels.csv: missing" in error(tmp_path)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ("", "empty"),
        ("draft,expected,family\n", "lists no drafts"),
        ("draft,family\na.md,clean\n", "lacks column(s) expected"),
        ("draft,expected,family\na.md,approved,fabricaton\n", "unknown family 'fabricaton'"),
        ("draft,expected,family\na.md,maybe,clean\n", "not one of approved, review, rejected"),
        ("draft,expected,family\na.md,rejected,clean\n", "clean draft is expected approved"),
        ("draft,expected,family\na.md,approved,clean\na.md,approved,clean\n", "already labelled"),
        ("draft,expected,family\n../x.md,approved,clean\n", "outside"),
        ("draft,expected,family\n/etc/passwd,approved,clean\n", "outside"),
        ("draft,expected,family\nmissing.md,approved,clean\n", "not found"),
        ("draft,expected,family\n,approved,clean\n", "empty draft name"),
        ("draft,expected,family\na.md,approved,clean,x,y\n", "5 fields, the header has 3"),
        ('draft,expected,family\n"a.md,approved,clean\n', "malformed CSV"),
        (b"draft,expected,family\na.md,approved,\xff\n", "not UTF-8"),
        (b"draft,expected,family\na.md,approved,clean\x00\n", "NUL"),
    ],
)
def test_bad_labels_are_one_line_naming_the_problem(
    tmp_path: Path, labels: str | bytes, expected: str
) -> None:
    message = error(corpus(tmp_path, labels))
    assert expected in message
    assert "labels.csv" in message


def test_bad_label_names_its_line(tmp_path: Path) -> None:
    message = error(corpus(tmp_path, "draft,expected,family\na.md,approved,clean\nb.md,x,clean\n"))
    assert "line 3" in message


def test_undecodable_draft_is_read_not_refused(tmp_path: Path) -> None:
    folder = corpus(
        tmp_path, "draft,expected,family\nbin.md,rejected,shape\n", {"bin.md": b"\xff\xfe"}
    )
    assert load_corpus(folder, FAMILIES).cases[0].content == "\ufffd\ufffd"


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"no_such_setting": 1}', "unknown setting"),
        ('{"qa_critic_weight": "heavy"}', "not a number"),
        ('{"company_team_size": -3}', "outside"),
        ('{"company_clients": ["a"]}', "string, number or boolean"),
    ],
)
def test_bad_settings_json(tmp_path: Path, settings: str, expected: str) -> None:
    folder = corpus(tmp_path, "draft,expected,family\na.md,approved,clean\n")
    (folder / "settings.json").write_text(settings)
    message = error(folder)
    assert "settings.json" in message and expected in message


def test_settings_json_is_validated_and_kept(tmp_path: Path) -> None:
    folder = corpus(tmp_path, "draft,expected,family\na.md,approved,clean\n")
    (folder / "settings.json").write_text('{"company_team_size": 8, "qa_critic_enabled": false}')
    assert load_corpus(folder, FAMILIES).settings == {
        "company_team_size": "8",
        "qa_critic_enabled": "false",
    }
