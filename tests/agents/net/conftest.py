"""Fixtures for the URL guard tests."""

from __future__ import annotations

import pytest

from tests.agents.net.net_fakes import FakeDNS


@pytest.fixture
def dns() -> FakeDNS:
    return FakeDNS()
