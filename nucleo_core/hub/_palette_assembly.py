"""Assembling a thinker's palette into its registry: in full, or as a delta of the last one."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, TypeVar

from nucleo_core.tools.palette import ReadOnlyPalette
from nucleo_core.tools.provider import ToolProvider
from nucleo_core.tools.registry import ToolRegistry

__all__ = ["Assembly", "assemble", "narrowed", "reassembled_in_place", "same_members", "within"]

_M = TypeVar("_M")

#: A delegate's ceiling: the tools it may ever reach, by name, each the very provider allowed
#: (``None``: the delegate's own instance of a framework tool, such as its meta-tools).
Ceiling = Mapping[str, ToolProvider | None]


class Assembly(NamedTuple):
    """What one palette assembly was made of and what it left in the registry."""

    wanted: list[ToolProvider]
    #: The lengths of the parts of ``wanted`` (defaults, system-wide, added, granted,
    #: extras, contributed): the same names in the same parts give the same origins.
    segments: tuple[int, ...]
    #: Whether every name of ``wanted`` is there once.
    unique: bool
    ceiling: Ceiling | None
    inherited: dict[str, ToolProvider]
    registry: list[ToolProvider]


def within(ceiling: Ceiling | None, provider: ToolProvider) -> bool:
    """Whether a delegate's ceiling (if it has one) allows ``provider``."""
    if ceiling is None:
        return True
    if provider.name not in ceiling:
        return False
    allowed = ceiling[provider.name]
    return allowed is None or allowed is provider or allowed == provider


def assemble(
    registry: ToolRegistry,
    wanted: list[ToolProvider],
    segments: tuple[int, ...],
    *,
    fixed: Iterable[ToolProvider],
    system_wide: Iterable[ToolProvider],
    granted: Iterable[ToolProvider],
    inherited: dict[str, ToolProvider],
    ceiling: Ceiling | None,
    read_only: bool,
) -> tuple[dict[str, str], dict[str, ToolProvider], Assembly]:
    """Put ``wanted`` in ``registry`` in full; what the call door checks again, what is offered.

    Returns:
        The names offered because of state outside the thinker, with why (``"system-wide"``,
        ``"granted"``, ``"inherited"``); every tool the thinker itself put in the palette, by
        name; and the assembly, for the next turn's `reassembled_in_place`.
    """
    for provider in wanted:
        registry.register(provider, shadow=provider.shadows)
    # What the call door must check again at the call: tools offered because of
    # state outside this thinker, which can change while the model thinks.
    fixed_names = {provider.name for provider in fixed}
    fixed_names -= inherited.keys()
    conditional = {p.name: "system-wide" for p in system_wide}
    conditional.update((p.name, "granted") for p in granted)
    conditional.update(dict.fromkeys(inherited, "inherited"))
    conditional = {name: origin for name, origin in conditional.items() if name not in fixed_names}
    keep = {provider.name for provider in wanted}
    for name in registry.names():
        if name not in keep:
            registry.unregister(name)
    if ceiling is not None:  # a delegate is offered nothing beyond its ceiling
        for provider in registry.providers():
            if not within(ceiling, provider):
                registry.unregister(provider.name)
    # What this thinker itself put in its palette: a tool registered in the registry
    # any other way (behind its back) is refused at the call.
    offered = {provider.name: provider for provider in registry.providers()}
    if read_only:
        ReadOnlyPalette.sweep(registry)
    assembly = Assembly(
        wanted,
        segments,
        len(keep) == len(wanted),
        ceiling,
        dict(inherited),
        registry.providers(),
    )
    return conditional, offered, assembly


def reassembled_in_place(
    registry: ToolRegistry,
    last: Assembly,
    wanted: list[ToolProvider],
    segments: tuple[int, ...],
    *,
    ceiling: Ceiling | None,
    inherited: dict[str, ToolProvider],
    offered: dict[str, ToolProvider],
    read_only: bool,
) -> Assembly | None:
    """Apply this turn's palette to the registry as a delta, if the last assembly allows.

    Allowed when the registry holds exactly what the last assembly left (nothing was
    registered or removed behind the palette's back), the ceiling and inherited tools are
    the same, and ``wanted`` differs from the last turn's only by providers replaced under
    their own names (a meta-tool rebuilt for a changed catalog), every name once: then
    the full assembly would register those and leave everything else as it is; ``offered``
    is updated in place, and the new assembly returned. ``None`` (nothing done) otherwise:
    the caller assembles in full.
    """
    if (
        not last.unique
        or last.segments != segments
        or last.ceiling is not ceiling
        or last.inherited != inherited
        or not same_members(last.registry, registry.providers())
    ):
        return None
    if same_members(last.wanted, wanted):  # most turns: nothing to apply
        return last
    changed = [new for old, new in zip(last.wanted, wanted, strict=True) if old is not new]
    replaced = {id(old) for old, new in zip(last.wanted, wanted, strict=True) if old is not new}
    names = [provider.name for provider in changed]
    if [p.name for p in last.wanted if id(p) in replaced] != names:
        return None
    for provider in changed:
        registry.register(provider, shadow=provider.shadows)
    for name in names:
        held = registry.get_provider_by_name(name)
        if held is None:
            offered.pop(name, None)
        elif not within(ceiling, held):
            registry.unregister(name)
            offered.pop(name, None)
        else:
            offered[name] = held
            if read_only and not held.read_only:
                ReadOnlyPalette.sweep(registry)  # the rest was swept at the last assembly
    return Assembly(wanted, segments, True, ceiling, last.inherited, registry.providers())


def narrowed(catalog: Sequence[_M], answer: Iterable[_M]) -> list[_M]:
    """``answer`` kept to what ``catalog`` holds: an override may narrow, never widen."""
    held = {id(member) for member in catalog}
    kept = [member for member in answer if id(member) in held or member in catalog]
    return kept


def same_members(previous: Sequence[object], current: Sequence[object]) -> bool:
    """Whether two catalogs hold the very same objects in the same order."""
    if previous is current:
        return True
    return len(previous) == len(current) and all(map(operator.is_, previous, current))
