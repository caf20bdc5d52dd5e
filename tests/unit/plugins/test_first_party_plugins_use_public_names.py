"""The first-party plugins import only nucleo_core's public names, as any third party must."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PLUGINS = Path(__file__).resolve().parents[3] / "plugins"
SOURCES = sorted(PLUGINS.glob("*/src/*/**/*.py"))


def _private_imports(source: Path) -> list[str]:
    """Each ``nucleo_core`` module or name with a leading underscore that ``source`` imports."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules, names = [node.module], [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            modules, names = [alias.name for alias in node.names], []
        else:
            continue
        for module in modules:
            if module.split(".")[0] != "nucleo_core":
                continue
            private = [part for part in module.split(".") if part.startswith("_")]
            private += [name for name in names if name.startswith("_")]
            found += [f"line {node.lineno}: {module}: {', '.join(private)}"] if private else []
    return found


def test_the_plugin_sources_are_found() -> None:
    """The scan below reads every first-party plugin's package (the llm bridge among them)."""
    assert any("nucleo_tools_llm" in str(source) for source in SOURCES)


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: str(path.relative_to(PLUGINS)))
def test_a_first_party_plugin_imports_no_private_core_name(source: Path) -> None:
    """No plugin module imports a ``nucleo_core`` module or name starting with an underscore."""
    assert _private_imports(source) == []
