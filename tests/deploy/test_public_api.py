"""The public `__all__` lists are what docs/api.md says, name for name, and every name they list
exists. A public module is one with no underscore in its dotted path; each that declares
`__all__` has a section in the page, and the page documents no module that is not there."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import agents
import schemas
import streams

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def documented() -> dict[str, list[str]]:
    """{module: names of its Exports paragraph, in order}."""
    sections: dict[str, list[str]] = {}
    module = None
    exports: list[str] | None = None
    for line in [*PAGE.read_text().splitlines(), ""]:
        heading = re.fullmatch(r"## `([\w.]+)`", line)
        if heading and exports is not None:
            raise AssertionError(f"no blank line after the Exports of {module}")
        if heading:
            module = heading.group(1)
            assert module not in sections, f"{module} documented twice"
        elif line.startswith("Exports:"):
            assert module is not None, line
            exports = []
        if exports is not None:
            if not line.strip():
                assert module is not None
                sections[module] = exports
                exports = None
            else:
                exports += re.findall(r"`(\w+)`", line)
    return sections


def public_modules_with_all() -> dict[str, list[str]]:
    found = {}
    for package in (schemas, agents, streams):
        names = [package.__name__] + [
            info.name
            for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
            if not any(part.startswith("_") for part in info.name.split("."))  # and __main__
        ]
        for name in names:
            module = importlib.import_module(name)
            if hasattr(module, "__all__"):
                found[name] = list(module.__all__)
    return found


def test_every_public_all_is_documented_name_for_name() -> None:
    code, page = public_modules_with_all(), documented()
    assert set(page) == set(code), (
        f"undocumented: {sorted(set(code) - set(page))}; "
        f"documented but without __all__ (or gone): {sorted(set(page) - set(code))}"
    )
    differ = {m: (page[m], code[m]) for m in code if page[m] != code[m]}
    assert not differ, f"(docs/api.md, __all__) differ: {differ}"


def test_every_listed_name_exists() -> None:
    missing = [
        f"{module}.{name}"
        for module, names in public_modules_with_all().items()
        for name in names
        if not hasattr(importlib.import_module(module), name)
    ]
    assert not missing, missing


def test_the_page_reader_reads_wrapped_lists() -> None:
    """The reader itself: a list wrapped over lines is read whole and in order."""
    page = documented()
    assert page["schemas"][0] == "BadMagicError" and page["schemas"][-1] == "utc_now"
    assert len(page["schemas"]) == len(schemas.__all__) > 20
