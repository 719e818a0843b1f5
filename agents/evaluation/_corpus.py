"""A labelled corpus on disk: a folder of drafts, `labels.csv`, and optionally `settings.json`.

labels.csv (UTF-8, header row): `draft,expected,family[,title][,note]`, one row per draft.
- draft: a file name inside the folder (no path that leaves it);
- expected: the decision the draft should get: approved, review (needs a human) or rejected;
- family: `clean`, or the validator rule family the draft's defect belongs to;
- title, note: optional; other columns are ignored.
settings.json: a JSON object of settings the drafts assume (company facts, ...), checked by the
same validator `multiqa settings set` uses.

Everything wrong with a corpus is an `EvalError` whose message is one line naming the file (and
line) and what is wrong with it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas import OperatorError

LABELS_FILE = "labels.csv"
SETTINGS_FILE = "settings.json"
CLEAN = "clean"
DECISIONS = ("approved", "review", "rejected")
REQUIRED_COLUMNS = ("draft", "expected", "family")
# A labelled draft is a test input, not a real submission: big enough for the oversized rule,
# small enough that a mislabelled multi-gigabyte file is refused rather than read.
MAX_DRAFT_BYTES = 64 * 1024 * 1024
_MAX_LABELS_BYTES = 16 * 1024 * 1024


class EvalError(OperatorError):
    """A corpus, its labels or its settings cannot be used; str() is the one-line reason."""


@dataclass(frozen=True)
class Case:
    name: str  # the draft's file name, as in labels.csv
    expected: str  # one of DECISIONS
    family: str  # CLEAN or a rule family
    title: str
    content: str
    note: str = ""
    line: int = 0  # line in labels.csv

    @property
    def clean(self) -> bool:
        return self.family == CLEAN


@dataclass(frozen=True)
class Corpus:
    root: Path
    cases: tuple[Case, ...]
    settings: Mapping[str, str]  # from settings.json, already validated

    @property
    def name(self) -> str:
        return str(self.root)


def load_corpus(root: str | Path, families: Collection[str]) -> Corpus:
    """Read and check a labelled folder. `families` are the defect families a label may name
    (besides `clean`)."""
    folder = Path(root)
    if not folder.exists():
        raise EvalError(f"{folder}: no such directory")
    if not folder.is_dir():
        raise EvalError(f"{folder}: not a directory")
    labels = folder / LABELS_FILE
    if not labels.is_file():
        raise EvalError(f"{labels}: missing (a labelled folder needs {LABELS_FILE})")
    rows = list(_rows(labels))
    if not rows:
        raise EvalError(f"{labels}: lists no drafts")
    allowed = sorted(set(families) | {CLEAN})
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        cases.append(_case(folder, labels, line, row, allowed, seen))
    settings = _settings(folder / SETTINGS_FILE)
    return Corpus(folder, tuple(cases), settings)


def _rows(labels: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        raw = labels.read_bytes()[: _MAX_LABELS_BYTES + 1]
    except OSError as exc:
        raise EvalError(f"{labels}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > _MAX_LABELS_BYTES:
        raise EvalError(f"{labels}: larger than {_MAX_LABELS_BYTES // (1024 * 1024)} MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EvalError(f"{labels}: not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise EvalError(f"{labels}: contains NUL bytes (not a CSV file?)")
    reader = csv.reader(text.splitlines(), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise EvalError(
                f"{labels}: empty (expected a header row: {','.join(REQUIRED_COLUMNS)})"
            )
        columns = [name.strip().lower() for name in header]
        missing = [name for name in REQUIRED_COLUMNS if name not in columns]
        if missing:
            raise EvalError(
                f"{labels} line 1: header lacks column(s) {', '.join(missing)} "
                f"(expected {','.join(REQUIRED_COLUMNS)}[,title][,note])"
            )
        for fields in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in fields):
                continue  # blank line
            if len(fields) > len(columns):
                raise EvalError(
                    f"{labels} line {line}: {len(fields)} fields, the header has {len(columns)}"
                )
            row = {
                name: (fields[i].strip() if i < len(fields) else "")
                for i, name in enumerate(columns)
            }
            yield line, row
    except csv.Error as exc:
        raise EvalError(f"{labels} line {reader.line_num}: malformed CSV: {exc}") from None


def _case(
    folder: Path,
    labels: Path,
    line: int,
    row: Mapping[str, str],
    allowed: list[str],
    seen: dict[str, int],
) -> Case:
    where = f"{labels} line {line}"
    name = row.get("draft", "")
    if not name:
        raise EvalError(f"{where}: empty draft name")
    if name in seen:
        raise EvalError(f"{where}: draft {name!r} is already labelled on line {seen[name]}")
    seen[name] = line
    path = (folder / name).resolve()
    if Path(name).is_absolute() or not path.is_relative_to(folder.resolve()):
        raise EvalError(f"{where}: draft {name!r} is outside {folder}")
    expected = row.get("expected", "").lower()
    if expected not in DECISIONS:
        raise EvalError(
            f"{where}: expected {row.get('expected', '')!r} is not one of {', '.join(DECISIONS)}"
        )
    family = row.get("family", "")
    if family not in allowed:
        raise EvalError(f"{where}: unknown family {family!r} (known: {', '.join(allowed)})")
    if family == CLEAN and expected != "approved":
        raise EvalError(f"{where}: a clean draft is expected approved, not {expected}")
    return Case(
        name=name,
        expected=expected,
        family=family,
        title=row.get("title", ""),
        content=_read_draft(where, path, name),
        note=row.get("note", ""),
        line=line,
    )


def _read_draft(where: str, path: Path, name: str) -> str:
    if not path.is_file():
        raise EvalError(f"{where}: draft {name!r} not found")
    try:
        size = path.stat().st_size
        if size > MAX_DRAFT_BYTES:
            raise EvalError(
                f"{where}: draft {name!r} is {size:,} bytes (limit {MAX_DRAFT_BYTES:,})"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise EvalError(f"{where}: cannot read draft {name!r}: {exc.strerror or exc}") from None
    # Undecodable bytes are part of what a corpus may test (the binary-content rule): they are
    # read the way the validator reads bytes, not refused.
    return raw.decode("utf-8", errors="replace")


def _settings(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise EvalError(f"{path} line {exc.lineno}: not valid JSON: {exc.msg}") from None
    return check_settings(str(path), values)


def check_settings(source: str, values: Any) -> dict[str, str]:
    """Validate a mapping of settings the way `multiqa settings set` does; returns canonical text
    values. `source` names where they came from, for the error message."""
    from agents.settings import SettingsError
    from agents.settings_check import validate_value

    if not isinstance(values, dict):
        raise EvalError(f"{source}: settings must be a JSON object of key: value")
    checked: dict[str, str] = {}
    for key, value in values.items():
        if isinstance(value, dict | list) or value is None:
            raise EvalError(f"{source}: setting {key!r} must be a string, number or boolean")
        try:
            checked[str(key)] = validate_value(str(key), value)
        except SettingsError as exc:
            raise EvalError(f"{source}: {exc}") from None
    return checked
