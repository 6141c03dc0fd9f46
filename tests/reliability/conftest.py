"""Reliability tests: hostile files, hostile clients, random edits, fixes that never lose data.

Hypothesis profiles: `ci` (the default: bounded, part of every run) and `long`
(`HYPOTHESIS_PROFILE=long pytest -n 0 -m slow tests/reliability -p no:cacheprovider`, see SECURITY.md).
Neither keeps an example database (Hypothesis' own caches go to the git-ignored .hypothesis/).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=50, deadline=None, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long", max_examples=2000, deadline=None, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _no_check_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """`check` keeps no cache here: every run analyses from scratch and nothing is written outside tmp."""
    monkeypatch.setenv("SKILL_LSP_CACHE_DIR", "")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the project (tmp_path/proj), never part of its workspace."""
    path = tmp_path / "outside"
    path.mkdir()
    return path


def pytest_itemcollected(item: pytest.Item) -> None:
    """Every reliability test is slow (stress, hostile clients, properties): CI runs them, the everyday
    run (`python -m pytest -q`) does not; `python -m pytest -q -n 0 -m slow tests/reliability` runs them alone."""
    item.add_marker(pytest.mark.slow)
