"""Every third-party module the packages import is a dependency pyproject.toml declares.

A module imported at the top of a file must be in `[project] dependencies` (an installed `multiqa`
imports it on start-up); one imported lazily (inside a function, or behind `except ImportError`)
may instead come from an extra. Something that only arrives as another package's dependency
(`httpx2` came with anthropic and openai) breaks the day that package drops it, so it counts as
undeclared. The scan reads the source (ast), so it sees imports of modules that are not installed
here too (xllamacpp of the `model` extra).
"""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import re
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("schemas", "agents", "streams")

# A distribution the code imports that pyproject declares through a meta-package: the `otlp` extra
# names opentelemetry-exporter-otlp, whose only content is its two transport packages.
DECLARED_THROUGH = {"opentelemetry-exporter-otlp-proto-http": "opentelemetry-exporter-otlp"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Import:
    module: str  # dotted name as written
    file: str
    line: int
    lazy: bool  # inside a function or guarded by `except ImportError`


def _guards_import_error(node: ast.Try) -> bool:
    names = []
    for handler in node.handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names += [k.id for k in kinds if isinstance(k, ast.Name)]
    return bool({"ImportError", "ModuleNotFoundError"} & set(names))


def _is_lazy_scope(node: ast.AST) -> bool:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return True
    return isinstance(node, ast.Try) and _guards_import_error(node)


def _imports(tree: ast.AST, file: str, lazy: bool = False) -> Iterator[Import]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, file, node.lineno, lazy)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                # `from opentelemetry import trace` may name a submodule: the deepest name resolves
                # a namespace package to the distribution that holds it.
                for alias in node.names:
                    yield Import(f"{node.module}.{alias.name}", file, node.lineno, lazy)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue  # never imported at run time
        elif _is_lazy_scope(node):
            yield from _imports(node, file, lazy=True)
        else:
            yield from _imports(node, file, lazy)


def third_party_imports() -> list[Import]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            for imp in _imports(ast.parse(path.read_text(), rel), rel):
                top = imp.module.split(".")[0]
                if top not in sys.stdlib_module_names and top not in PACKAGES:
                    found.append(imp)
    return found


@cache
def _providers() -> dict[str, list[str]]:
    return dict(metadata.packages_distributions())


@cache
def _dist_files(dist: str) -> frozenset[str]:
    return frozenset(str(f) for f in metadata.distribution(dist).files or ())


def distribution_of(module: str) -> str:
    """The installed distribution that provides `module` (for a namespace package such as
    opentelemetry, the one whose files hold the submodule); the import name itself when nothing
    installed provides it (an optional extra not installed here)."""
    top = module.split(".")[0]
    candidates = _providers().get(top, [])
    if len(candidates) > 1:
        parts = module.split(".")
        for depth in range(len(parts), 0, -1):
            prefix = "/".join(parts[:depth])
            owners = [
                d
                for d in candidates
                if any(f == f"{prefix}.py" or f.startswith(prefix + "/") for f in _dist_files(d))
            ]
            if len(set(map(_norm, owners))) == 1:
                return _norm(owners[0])
    return _norm(candidates[0]) if candidates else _norm(top)


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return _norm(match.group(0))


def declared() -> tuple[set[str], set[str]]:
    """(names in [project] dependencies, names in any optional extra)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    required = {_requirement_name(r) for r in project["dependencies"]}
    extras = {
        _requirement_name(r) for group in project["optional-dependencies"].values() for r in group
    }
    return required, extras


def _is_declared(dist: str, names: set[str]) -> bool:
    return dist in names or DECLARED_THROUGH.get(dist) in names


def test_every_runtime_import_is_a_declared_dependency() -> None:
    required, extras = declared()
    problems = []
    for imp in third_party_imports():
        dist = distribution_of(imp.module)
        if _is_declared(dist, required):
            continue
        if imp.lazy and _is_declared(dist, extras):
            continue
        where = "dependencies or an extra" if imp.lazy else "[project] dependencies"
        problems.append(f"{imp.file}:{imp.line}: import {imp.module} ({dist}) not in {where}")
    assert not problems, "\n".join(problems)


def test_the_scan_sees_what_it_must() -> None:
    """The check itself: it finds imports in functions and behind `except ImportError`, knows them
    lazy, skips TYPE_CHECKING blocks, and resolves a namespace package to the right
    distribution."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "import httpx2\n"
        "if TYPE_CHECKING:\n    import never_at_run_time\n"
        "try:\n    import rocksdict\nexcept ImportError:\n    rocksdict = None\n"
        "def f():\n    import xllamacpp\n"
    )
    got = {(i.module, i.lazy) for i in _imports(ast.parse(source), "x.py")}
    assert got == {
        ("typing.TYPE_CHECKING", False),
        ("httpx2", False),
        ("rocksdict", True),
        ("xllamacpp", True),
    }
    assert distribution_of("opentelemetry.sdk.trace") == "opentelemetry-sdk"
    assert distribution_of("opentelemetry.trace") == "opentelemetry-api"
    assert distribution_of("PIL.Image") == "pillow"
    assert distribution_of("faust.tables") == "faust-streaming"
    # Nothing installed provides it: judged by its import name.
    assert distribution_of("not_installed_anywhere") == "not-installed-anywhere"
