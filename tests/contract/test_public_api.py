"""The public interface of ``nucleo_core``: what it exports and what importing it costs."""

import importlib
import json
import subprocess
import sys
from types import ModuleType

import pytest

import nucleo_core

#: Private-looking names that are nevertheless part of the public interface.
PUBLIC_DUNDERS = {"__version__"}

#: Modules ``import nucleo_core`` must not import: schema machinery is imported on first use,
#: provider SDKs and their async HTTP stacks only by the adapters, the CLI only by the CLI.
HEAVY_MODULES = [
    "pydantic",
    "pydantic_core",
    "jsonschema",
    "docstring_parser",
    "anthropic",
    "openai",
    "httpx",
    "aiohttp",
    "anyio",
    "click",
    "rich",
    "nucleo_core.cli",
]


def _public_members(module: ModuleType) -> set[str]:
    """Names a module binds that a user can reach: no private names, no submodules."""
    return {
        name
        for name, value in vars(module).items()
        if (not name.startswith("_") or name in PUBLIC_DUNDERS)
        and not isinstance(value, ModuleType)
    }


def _ruff_order(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 keeps __all__ in: SCREAMING_CASE, then CamelCase, then the rest."""
    if len(name) > 1 and name.isupper():
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def test_all_is_exactly_the_set_of_exported_names() -> None:
    """Every public name in the package is in __all__ and __all__ lists nothing else."""
    assert set(nucleo_core.__all__) == _public_members(nucleo_core)


def test_all_is_sorted_without_duplicates() -> None:
    """__all__ is kept sorted, each name once."""
    assert nucleo_core.__all__ == sorted(set(nucleo_core.__all__), key=_ruff_order)


@pytest.mark.parametrize(
    "module_name",
    [
        "nucleo_core",
        "nucleo_core.errors",
        "nucleo_core.tools",
        "nucleo_core.guard",
        "nucleo_core.guard.audit",
    ],
)
def test_every_name_in_all_resolves(module_name: str) -> None:
    """Each name a public module lists in __all__ is bound in that module."""
    module = importlib.import_module(module_name)
    for name in module.__all__:
        assert getattr(module, name, None) is not None, name


@pytest.mark.parametrize(
    "module_name", ["nucleo_core.errors", "nucleo_core.tools", "nucleo_core.guard"]
)
def test_public_submodules_keep_a_sorted_all(module_name: str) -> None:
    """The public submodules keep the same sorted-__all__ discipline as the package."""
    module = importlib.import_module(module_name)
    assert module.__all__ == sorted(set(module.__all__), key=_ruff_order)
    assert set(module.__all__) <= _public_members(module)


def test_the_facade_re_exports_the_same_objects_as_the_modules() -> None:
    """A name exported by the package is the very object its defining module exports."""
    from nucleo_core import conversations, errors, tools

    for name in nucleo_core.__all__:
        for module in (conversations, errors, tools):
            if name in module.__all__:
                assert getattr(nucleo_core, name) is getattr(module, name), name


def test_the_version_is_a_string() -> None:
    """__version__ is exported as a plain version string."""
    assert isinstance(nucleo_core.__version__, str)
    assert nucleo_core.__version__


def test_importing_nucleo_core_imports_no_heavy_dependency() -> None:
    """A fresh `import nucleo_core` loads no pydantic, jsonschema, provider SDK or CLI."""
    program = (
        "import json, sys\n"
        "import nucleo_core\n"
        f"heavy = {HEAVY_MODULES!r}\n"
        "print(json.dumps(sorted(name for name in heavy if name in sys.modules)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(completed.stdout) == []


def test_declaring_and_registering_a_tool_imports_no_heavy_dependency() -> None:
    """Declaring a function tool and registering it builds no schema, so it imports no pydantic."""
    program = (
        "import json, sys\n"
        "from nucleo_core import ToolRegistry, tool\n"
        "@tool(read_only=True, risk='low')\n"
        "def echo(text: str) -> str:\n"
        "    '''Echo the text.'''\n"
        "    return text\n"
        "registry = ToolRegistry([echo])\n"
        f"heavy = {HEAVY_MODULES!r}\n"
        "print(json.dumps(sorted(name for name in heavy if name in sys.modules)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(completed.stdout) == []


def test_declaring_a_model_dependent_tool_imports_no_heavy_dependency() -> None:
    """Declaring and registering a function tool taking a ModelSeat imports nothing heavy."""
    program = (
        "import json, sys\n"
        "from nucleo_core import ModelSeat, ToolRegistry, tool\n"
        "@tool(read_only=True, risk='low')\n"
        "async def condense(text: str, seat: ModelSeat) -> str:\n"
        "    '''Condense a text.'''\n"
        "    return await seat.complete(text)\n"
        "registry = ToolRegistry([condense])\n"
        f"heavy = {HEAVY_MODULES!r}\n"
        "print(json.dumps(sorted(name for name in heavy if name in sys.modules)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(completed.stdout) == []
