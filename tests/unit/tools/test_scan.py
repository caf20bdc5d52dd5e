"""Unit tests of `tools_in_module`."""

import types

import _scan_elsewhere
import _scan_sample

from nucleo_core import ClassToolProvider, FunctionToolProvider, tools_in_module


def test_a_module_scan_finds_only_the_module_own_tools_in_definition_order() -> None:
    """Declared classes and functions defined in the module come back in the order defined."""
    found = tools_in_module(_scan_sample)
    assert [provider.name for provider in found] == ["omega", "zeta", "middle", "alpha"]
    assert found == [
        FunctionToolProvider(_scan_sample.omega),
        ClassToolProvider(_scan_sample.ZetaTool),
        FunctionToolProvider(_scan_sample.middle),
        FunctionToolProvider(_scan_sample.alpha),
    ]


def test_an_imported_tool_belongs_to_the_module_that_defines_it() -> None:
    """A tool imported into a module is found in its own module and not in the importer."""
    assert [provider.name for provider in tools_in_module(_scan_elsewhere)] == ["borrowed"]
    assert "borrowed" not in [provider.name for provider in tools_in_module(_scan_sample)]


def test_a_tool_bound_under_two_names_is_found_once() -> None:
    """An alias of a tool does not make it a second tool of the module."""
    names = [provider.name for provider in tools_in_module(_scan_sample)]
    assert names.count("alpha") == 1


def test_a_module_without_tools_yields_nothing() -> None:
    """A module defining no declared tool scans to an empty list."""
    assert tools_in_module(types.ModuleType("empty_module")) == []


def test_scanning_twice_gives_equal_results() -> None:
    """A scan has no side effects: a second scan equals the first."""
    assert tools_in_module(_scan_sample) == tools_in_module(_scan_sample)
