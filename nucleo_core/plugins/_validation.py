"""Checking what a plugin hands the host: each hook's return, each tool it names."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import cast

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.plugins.contributions import SkillSource
from nucleo_core.plugins.decision import Decision, checked_decision
from nucleo_core.plugins.verdict import Verdict, checked_verdict
from nucleo_core.skills.skill import Skill
from nucleo_core.tools.decorator import declaration_of
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.providers import provider_for

__all__ = [
    "TOOLS_EXPECTED",
    "WrongType",
    "aliases_or_none",
    "as_provider",
    "decision_from",
    "names_from",
    "names_or_none",
    "sources_from",
    "sources_or_none",
    "tools_from",
    "tools_or_none",
    "verdict_from",
]

#: What a tool-bringing hook or factory must return.
TOOLS_EXPECTED = "an iterable of tool providers, @tool classes or @tool functions"


class WrongType(Exception):
    """A plugin returned something of the wrong type.

    Attributes:
        expected: What it should have returned.
        got: What it returned, by type name.
    """

    def __init__(self, expected: str, got: str) -> None:
        self.expected = expected
        self.got = got
        super().__init__(f"expected {expected}, got {got}")


def _type_name(value: object) -> str:
    return type(value).__name__


def as_provider(subject: object) -> ToolProvider | None:
    """The provider of a provider, a ``@tool`` class or a ``@tool`` function; else ``None``."""
    # A provider's class derives from ToolProvider: its MRO says so without the ABC's
    # instance check (a call of its own), asked for every tool of every turn's palette hooks.
    if ToolProvider in type(subject).__mro__:
        return cast(ToolProvider, subject)
    if isinstance(subject, ToolProvider):  # a virtual subclass (ToolProvider.register)
        return subject
    if declaration_of(subject) is None:
        return None
    try:
        return provider_for(subject)
    except ToolDeclarationError:  # declared, but of a kind no provider wraps
        return None


def _items(result: object, expected: str) -> Sequence[object]:
    """The items of an iterable result; a string is one value, never an iterable of them."""
    if type(result) is list or type(result) is tuple:  # most answers: read as they are
        return result
    if isinstance(result, str | bytes) or not isinstance(result, Iterable):
        raise WrongType(expected, _type_name(result))
    return list(result)


def tools_from(result: object, expected: str = TOOLS_EXPECTED) -> list[ToolProvider]:
    """The providers in a tool-bringing result.

    Raises:
        WrongType: ``result`` is not an iterable, or holds something that is not a tool.
    """
    providers: list[ToolProvider] = []
    for item in _items(result, expected):
        provider = as_provider(item)
        if provider is None:
            raise WrongType(expected, f"{_type_name(result)} holding {_type_name(item)}")
        providers.append(provider)
    return providers


def names_from(result: object) -> list[str]:
    """The tool names in a ``nucleo_reconcile_catalog`` answer.

    Raises:
        WrongType: ``result`` is not an iterable of strings.
    """
    expected = "an iterable of tool names (str), or None"
    names = _items(result, expected)
    for name in names:
        if not isinstance(name, str):
            raise WrongType(expected, f"{_type_name(result)} holding {_type_name(name)}")
    return [str(name) for name in names]


def decision_from(result: object) -> Decision | None:
    """A permission hook's answer.

    Raises:
        WrongType: ``result`` is neither ``None``, a `Decision`, nor exactly one of the four
            decision names.
    """
    if result is None:
        return None
    try:
        return checked_decision(result)
    except (TypeError, ValueError):
        expected = 'a Decision, one of "auto", "notify", "confirm", "deny", or None'
        got = "a str that is not a decision name" if isinstance(result, str) else None
        raise WrongType(expected, got or _type_name(result)) from None


def verdict_from(result: object) -> Verdict | None:
    """An admission hook's answer.

    Raises:
        WrongType: ``result`` is neither a `Verdict` nor ``None``, or its fields are not a
            bool and a str.
    """
    expected = "a Verdict (granted: bool, reason: str) or None"
    if result is None:
        return None
    if not isinstance(result, Verdict):
        raise WrongType(expected, _type_name(result))
    try:
        return checked_verdict(result)
    except TypeError:
        got = (
            f"a Verdict with granted: {_type_name(result.granted)}, "
            f"reason: {_type_name(result.reason)}"
        )
        raise WrongType(expected, got) from None


def sources_from(result: object) -> list[SkillSource]:
    """The skills and skill folders in a ``nucleo_skill_sources`` answer.

    Raises:
        WrongType: ``result`` is not an iterable of skills, paths or traversables.
    """
    expected = "an iterable of Skill objects, paths or importlib.resources traversables, or None"
    sources: list[SkillSource] = []
    for item in _items(result, expected):
        from importlib.resources.abc import Traversable  # only where a source is checked

        if not isinstance(item, Skill | str | os.PathLike | Traversable):
            raise WrongType(expected, f"{_type_name(result)} holding {_type_name(item)}")
        sources.append(item)
    return sources


def tools_or_none(result: object) -> list[ToolProvider]:
    """The tools of a tool-bringing hook's answer; none for ``None``."""
    if result is None:
        return []
    if type(result) is list:
        # Every turn asks each palette hook: its usual answer, a list of providers (most
        # often empty), is taken at once; anything else is read item by item.
        for item in result:
            if ToolProvider not in type(item).__mro__:
                break
        else:
            return list(result)
    return tools_from(result, f"{TOOLS_EXPECTED}, or None")


def names_or_none(result: object) -> list[str]:
    """The names of a ``nucleo_reconcile_catalog`` answer; none for ``None``."""
    return [] if result is None else names_from(result)


def sources_or_none(result: object) -> list[SkillSource]:
    """The skill sources of a ``nucleo_skill_sources`` answer; none for ``None``."""
    return [] if result is None else sources_from(result)


def aliases_or_none(result: object) -> dict[str, tuple[str, ...]]:
    """The aliases of a ``nucleo_skill_tool_aliases`` answer; none for ``None``."""
    from nucleo_core.skills.aliases import aliases_from

    if result is None:
        return {}
    try:
        return aliases_from(result, where="the aliases")
    except TypeError as exc:
        expected = "a mapping of skill tool names to tool names, or None"
        raise WrongType(expected, f"{type(result).__name__} ({exc})") from None
