"""The reviewer list is the only list, and a typo in it or in a module fails loudly (the old
registry dropped a misspelled module or an unlisted name silently)."""

from __future__ import annotations

import sys
import types

import pytest

from agents import base, registry
from agents.registry import (
    REVIEWER_NAMES,
    REVIEWERS,
    ReviewerRegistryError,
    all_reviewers,
    check_entries,
    load_specs,
)


def test_the_list_is_every_reviewer_in_order() -> None:
    assert [spec.name for spec in all_reviewers()] == [name for name, _ in REVIEWERS]
    for (name, module), spec in zip(REVIEWERS, all_reviewers(), strict=True):
        assert spec.name == name
        # The spec is defined by the module the list names (or a module inside it).
        assert spec.review.__module__.startswith(module), (name, spec.review.__module__)


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        (
            (("critic", "agents.reviewers.critic"), ("critic", "agents.reviewers.critic")),
            "listed twice",
        ),
        ((("critic", "agents.critik"),), "no module 'agents.critik'"),
        ((("critic", "agents.nowhere.critic"),), "no module 'agents.nowhere.critic'"),
        ((("Critic", "agents.reviewers.critic"),), "not a lower-case identifier"),
        ((("", "agents.reviewers.critic"),), "not a lower-case identifier"),
    ],
)
def test_a_bad_entry_fails_before_any_module_loads(entries, says) -> None:
    with pytest.raises(ReviewerRegistryError, match=says):
        check_entries(entries)


def test_a_misspelled_name_fails_when_the_reviewers_load() -> None:
    with pytest.raises(
        ReviewerRegistryError, match=r"agents.reviewers.critic.SPECS has no reviewer 'critc'"
    ):
        load_specs((("critc", "agents.reviewers.critic"),))


def test_a_reviewer_the_list_does_not_give_its_module_fails(monkeypatch) -> None:
    """A module that publishes a second reviewer, listed for one of them: the other would be
    dropped silently."""
    from agents.reviewers.citations import SPECS as CITATIONS

    spec = CITATIONS[0]
    module = types.ModuleType("agents._test_two")
    module.SPECS = (spec, base.ReviewerSpec("tone", spec.provider, spec.review, lambda s: True))  # type: ignore[attr-defined]
    module.__spec__ = importlib_spec("agents._test_two")
    monkeypatch.setitem(sys.modules, "agents._test_two", module)
    with pytest.raises(ReviewerRegistryError, match=r"publishes 'tone'"):
        load_specs((("citations", "agents._test_two"),))


def test_two_reviewers_in_one_home_fail_before_any_module_loads() -> None:
    """One home per reviewer: two names listed for one module are refused."""
    entries = (
        ("consistency", "agents.reviewers.consistency"),
        ("topic_delivery", "agents.reviewers.consistency"),
    )
    with pytest.raises(ReviewerRegistryError, match="share the module"):
        check_entries(entries)


def test_each_reviewer_has_a_home_of_its_own() -> None:
    modules = [module for _, module in REVIEWERS]
    assert len(set(modules)) == len(modules)


def test_a_new_reviewer_is_one_module_and_one_line(monkeypatch) -> None:
    """What adding a reviewer takes: a module publishing SPECS, and its line in the list."""
    from agents.reviewers.citations import SPECS as CITATIONS

    module = types.ModuleType("agents._test_reviewer")
    module.SPECS = (  # type: ignore[attr-defined]
        base.ReviewerSpec("tone", CITATIONS[0].provider, CITATIONS[0].review, lambda s: True),
    )
    module.__spec__ = importlib_spec("agents._test_reviewer")
    monkeypatch.setitem(sys.modules, "agents._test_reviewer", module)
    entries = (*REVIEWERS, ("tone", "agents._test_reviewer"))
    assert [s.name for s in load_specs(entries)] == [*REVIEWER_NAMES, "tone"]


def importlib_spec(name: str):
    import importlib.machinery

    return importlib.machinery.ModuleSpec(name, loader=None)


def test_the_names_are_what_settings_accept() -> None:
    """qa_required_to_pass is checked against the same list."""
    from agents.settings import SettingsError
    from agents.settings_check import validate_value

    assert validate_value("qa_required_to_pass", "urls,preview") == "urls,preview"
    with pytest.raises(SettingsError, match="preveiw"):
        validate_value("qa_required_to_pass", "urls,preveiw")
    assert registry.REVIEWER_NAMES == REVIEWER_NAMES
