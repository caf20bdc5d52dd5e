"""Unit tests of the ``nucleo_core.plugins`` facade: its exports and the cost of importing it."""

import json
import subprocess
import sys
from types import ModuleType

import nucleo_core.plugins
from nucleo_core.plugins import hookspecs


def _public_members(module: ModuleType) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }


def _ruff_order(name: str) -> tuple[int, str]:
    if len(name) > 1 and name.isupper():
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def test_all_is_exactly_the_exported_names_in_ruff_order() -> None:
    """__all__ lists every public name of the facade, once, in RUF022 order."""
    exported = nucleo_core.plugins.__all__
    assert set(exported) == _public_members(nucleo_core.plugins)
    assert exported == sorted(set(exported), key=_ruff_order)


def test_the_hook_specifications_are_the_nine_documented_hooks() -> None:
    """The host registers exactly the hooks hookspecs lists."""
    assert hookspecs.__all__ == [
        "nucleo_admit_skill",
        "nucleo_admit_tool",
        "nucleo_compatible_tools",
        "nucleo_palette_tools",
        "nucleo_permission",
        "nucleo_reconcile_catalog",
        "nucleo_skill_sources",
        "nucleo_skill_tool_aliases",
        "nucleo_system_wide_tools",
    ]


def test_importing_the_plugins_layer_loads_no_plugin_and_no_heavy_module() -> None:
    """Importing nucleo_core.plugins reads no entry point and imports no schema machinery."""
    probe = (
        "import sys, importlib.metadata as m\n"
        "calls = []\n"
        "real = m.entry_points\n"
        "m.entry_points = lambda *a, **k: calls.append(1) or real(*a, **k)\n"
        "import nucleo_core.plugins\n"
        "nucleo_core.plugins.PluginHost()\n"
        "heavy = [n for n in ('pydantic', 'jsonschema', 'yaml') if n in sys.modules]\n"
        "print(json.dumps({'calls': len(calls), 'heavy': heavy}))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", "import json\n" + probe],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert json.loads(output) == {"calls": 0, "heavy": []}
