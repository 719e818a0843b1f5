"""One exception root: every exception class the packages define is a MultiqaError, the tree drawn
in schemas._errors is the real one (names and parents), and the command line prints any
OperatorError, including one it has never heard of, as one line."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re

import pytest

import agents
import schemas
import streams
from schemas import MultiqaError, OperatorError
from schemas import _errors as errors_module
from streams.cli._command import run_command


def _modules() -> list[str]:
    names = []
    for package in (schemas, agents, streams):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.endswith(".__main__"):  # running it is the command itself
                names.append(info.name)
    return names


def defined_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined (not just imported) in schemas, agents and streams."""
    found: dict[str, type[BaseException]] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for cls in vars(module).values():
            if (
                inspect.isclass(cls)
                and issubclass(cls, BaseException)
                and cls.__module__ == module.__name__
            ):
                assert cls.__name__ not in found or found[cls.__name__] is cls, (
                    f"two exception classes named {cls.__name__}"
                )
                found[cls.__name__] = cls
    return found


def drawn_tree() -> dict[str, str | None]:
    """{class name: parent name} read off the drawing in schemas._errors' docstring."""
    doc = errors_module.__doc__ or ""
    start = doc.index("    MultiqaError\n")
    block = doc[start : doc.index("\n\n", start)]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []  # (column of the name, name)
    for line in block.splitlines():
        match = re.search(r"[A-Z]\w+", line)
        assert match, line
        column, name = match.start(), match.group(0)
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[name] = stack[-1][1] if stack else None
        stack.append((column, name))
    return parents


def _multiqa_parent(cls: type[BaseException]) -> str | None:
    """The nearest base of `cls` that is itself a MultiqaError (builtin bases are drawn in
    parentheses, not as parents)."""
    for base in cls.__bases__:
        if issubclass(base, MultiqaError):
            return base.__name__
    return None


def test_every_exception_class_is_under_the_one_root() -> None:
    outside = [
        f"{cls.__module__}.{name}"
        for name, cls in defined_exceptions().items()
        if not issubclass(cls, MultiqaError)
    ]
    assert not outside, f"not a MultiqaError: {outside}"


def test_the_drawn_tree_is_the_real_tree() -> None:
    real = {name: _multiqa_parent(cls) for name, cls in defined_exceptions().items()}
    drawn = drawn_tree()
    assert set(drawn) == set(real), (
        f"drawn but not defined: {sorted(set(drawn) - set(real))}; "
        f"defined but not drawn: {sorted(set(real) - set(drawn))}"
    )
    wrong = {n: (drawn[n], real[n]) for n in real if drawn[n] != real[n]}
    assert not wrong, f"(drawn parent, real parent): {wrong}"


def test_the_tree_reader_sees_a_wrong_parent() -> None:
    """The check above can fail: a drawing that puts OversizeError under CodecError directly is
    read as exactly that."""
    drawn = drawn_tree()
    assert drawn["OversizeError"] == "InvalidRecordError"
    assert drawn["InvalidRecordError"] == "CodecError"
    assert drawn["MultiqaError"] is None
    assert drawn["ModelUnavailable"] == "DevStackError"


def _command_raising(exc: BaseException) -> argparse.Namespace:
    def command(args: argparse.Namespace) -> int:
        raise exc

    return argparse.Namespace(func=run_command("multiqa try", command))


def test_a_new_operator_error_is_one_line_without_being_listed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class QuotaExhausted(OperatorError):
        """Defined here: no list in the command line names it."""

    args = _command_raising(QuotaExhausted("the search quota is used up until 00:00 UTC"))
    assert args.func(args) == 1
    err = capsys.readouterr().err
    assert err == "multiqa try: error: the search quota is used up until 00:00 UTC\n"


def test_an_error_that_is_not_the_operators_keeps_its_traceback() -> None:
    from agents.llm import LLMError

    args = _command_raising(LLMError("model server sent garbage"))
    with pytest.raises(LLMError):
        args.func(args)
