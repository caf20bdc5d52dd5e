"""A minimal hand-written provider for the unit tests."""

from collections.abc import Mapping
from typing import Any

from nucleo_core import Tool, ToolProvider
from nucleo_core.tools import RawInput


class _Echo(Tool[Any, Any]):
    def run(self, input: Any) -> Any:
        return input


class MinimalProvider(ToolProvider):
    """Overrides only the abstract members and read_only."""

    def __init__(self, name: str, *, read_only: bool = False) -> None:
        self._name = name
        self._read_only = read_only

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return f"The {self._name} tool."

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object"}

    @property
    def read_only(self) -> bool:
        return self._read_only

    def parse_input(self, raw: RawInput) -> Any:
        return raw

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        return _Echo(parent)


def provider(name: str, *, read_only: bool = False) -> MinimalProvider:
    """A minimal provider called ``name``."""
    return MinimalProvider(name, read_only=read_only)
