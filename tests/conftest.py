"""Configuration shared by every test: hypothesis profiles, and no plugin switches from outside.

``nucleo`` (the default) has no per-example deadline, because the first example of a property
builds pydantic models and JSON schemas, which is slow once and fast afterwards; ``thorough``
(``HYPOTHESIS_PROFILE=thorough``) runs ten times as many examples, for CI or before a release.
"""

import importlib.util
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings

from nucleo_core.plugins import (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    PATH_ENVIRONMENT_VARIABLE,
)

#: The session's PostgreSQL server (``pg_url``), for the stores' tests on PostgreSQL.
pytest_plugins = ["pg_server"]

settings.register_profile("nucleo", deadline=None)
settings.register_profile("thorough", parent=settings.get_profile("nucleo"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "nucleo"))

#: The variables that choose which plugins every host loads (even registered ones: a block list
#: applies to them too); a developer's own settings must not decide what a test sees.
PLUGIN_SWITCHES = (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    PATH_ENVIRONMENT_VARIABLE,
)


@pytest.fixture(autouse=True)
def _no_plugin_switches_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset the plugin selection variables for each test (and the processes it starts)."""
    for variable in PLUGIN_SWITCHES:
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture(autouse=True)
def _mcp_pins_of_the_test_alone(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Give each test (and the processes it starts) a pin store of its own.

    MCP tool definitions are pinned by server id; tests reuse ids for different servers, which
    a store shared across the suite would rightly quarantine. The file is outside the test's
    ``tmp_path``, and created only if the test pins something.
    """
    store = tmp_path_factory.getbasetemp() / "mcp-pins" / f"{uuid.uuid4().hex}.sqlite3"
    monkeypatch.setenv("NUCLEO_MCP_PINS", str(store))


def _plugin_site_module() -> ModuleType:
    """``tests/unit/plugins/_plugin_site.py``, the fake site of real distributions, loaded once."""
    module = sys.modules.get("_plugin_site")
    if module is None:
        path = Path(__file__).parent / "unit" / "plugins" / "_plugin_site.py"
        spec = importlib.util.spec_from_file_location("_plugin_site", path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["_plugin_site"] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A folder on sys.path holding real distributions; its modules are forgotten afterwards."""
    yield from _plugin_site_module().fake_site(tmp_path, monkeypatch)
