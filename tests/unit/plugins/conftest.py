"""Fixtures of the plugin tests: a fake site of real distributions, and a clean environment."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from _plugin_site import FakeSite, fake_site

from nucleo_core.plugins import (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSite]:
    """A folder on sys.path to add distributions to; its modules are forgotten afterwards."""
    yield from fake_site(tmp_path, monkeypatch)


@pytest.fixture(autouse=True)
def _no_plugin_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own plugin environment variables out of every test."""
    for variable in (
        ALLOW_ENVIRONMENT_VARIABLE,
        BLOCK_ENVIRONMENT_VARIABLE,
        DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    ):
        monkeypatch.delenv(variable, raising=False)
