"""The import graph of the packages: no edge from agents/ or schemas/ up into streams/ (nor from
schemas/ into agents/), and no cycle, counting every import: lazy ones inside functions and the
type-only ones under TYPE_CHECKING too (a cycle that only typing sees still ties two modules
together)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schemas", "agents", "streams")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """{module: the modules of the packages it imports}, every import statement counted."""
    files = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets: set[str] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in files else base)
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _layer(module: str) -> str:
    return module.split(".")[0]


def test_no_edge_up_into_streams_nor_from_schemas_into_agents() -> None:
    allowed = {"schemas": {"schemas"}, "agents": {"schemas", "agents"}}
    bad = sorted(
        f"{src} -> {dst}"
        for src, dsts in import_graph().items()
        for dst in dsts
        if _layer(src) in allowed and _layer(dst) not in allowed[_layer(src)]
    )
    assert not bad, bad


def test_the_runtime_never_imports_the_command_line() -> None:
    bad = sorted(
        f"{src} -> {dst}"
        for src, dsts in import_graph().items()
        for dst in dsts
        if src.startswith("streams.runtime") and dst.startswith("streams.cli")
    )
    assert not bad, bad


def test_no_import_cycle() -> None:
    """None at all: the last one (agents.settings <-> agents._setting_kinds, the settings'
    write-time validator asking the layers above it) went with agents.settings_check."""
    assert cycles(import_graph()) == []


def test_the_settings_import_nothing_that_reads_them() -> None:
    """agents.settings is imported by nearly every module: it imports only the value parsing
    and the schemas, so no module above it can close a cycle through it again."""
    assert import_graph()["agents.settings"] <= {"agents.values", "schemas"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
