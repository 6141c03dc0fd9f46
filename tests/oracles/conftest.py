"""The oracle tests run only when asked for (`pytest -m oracle tests/oracles`): they start the runtimes' own
validators (scripts/install-oracles) about 150 times, which the everyday test run should not wait for."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "oracle" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="oracle test: run with `pytest -m oracle tests/oracles` (scripts/install-oracles first)")
    for item in items:
        if item.get_closest_marker("oracle"):
            item.add_marker(skip)
