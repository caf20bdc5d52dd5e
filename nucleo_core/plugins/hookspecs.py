"""The hook specifications: the extension points a nucleo plugin implements.

A plugin is a module with functions named after these hooks and marked with
``nucleo_core.hookimpl``. Only the plugin host calls them; it validates what each
implementation returns, records which distribution contributed it, and isolates failures (a
hook that raises, or returns the wrong type, is reported with its distribution and skipped,
unless the host is strict).

Every hook is synchronous; an implementation receives the arguments it names, matched by
name, and may name fewer than the specification. No argument has a default (pluggy would
never pass it): the host refuses an implementation that gives one, or that is ``async``.

=====================  ==========================================================
concern                hooks
=====================  ==========================================================
provider discovery     `nucleo_system_wide_tools`, `nucleo_compatible_tools`
per-thinker tools      `nucleo_palette_tools`
catalog reconciliation `nucleo_reconcile_catalog`
admission              `nucleo_admit_tool`, `nucleo_admit_skill`
skill resolution       `nucleo_skill_sources`, `nucleo_skill_tool_aliases`
permission             `nucleo_permission`
=====================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nucleo_core.plugins.markers import hookspec

if TYPE_CHECKING:
    import os
    from importlib.resources.abc import Traversable

    from nucleo_core.plugins.decision import Decision
    from nucleo_core.plugins.verdict import Verdict
    from nucleo_core.skills.skill import Skill
    from nucleo_core.tools.provider import ToolProvider

__all__ = [
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


@hookspec
def nucleo_system_wide_tools() -> Iterable[Any] | None:
    """Tools every thinker's palette holds, whatever its class.

    Called once per hub load (and again by ``ToolHub.load_plugins()`` for plugins loaded
    since). Every implementation's result is used.

    Returns:
        Tool providers, ``@tool``-declared classes or functions; or ``None`` for none.
    """


@hookspec
def nucleo_compatible_tools(thinker_class: type[Any]) -> Iterable[Any] | None:
    """Tools a thinker class may be granted through ``request_tools`` (its catalog).

    Called when the hub first resolves ``thinker_class``'s catalog, and for plugins loaded
    later, so that they widen catalogs already resolved. Every implementation's result is used.

    Args:
        thinker_class: The thinker class whose catalog is being resolved.

    Returns:
        Tool providers, ``@tool``-declared classes or functions; or ``None`` for none.
    """


@hookspec
def nucleo_palette_tools(thinker: Any) -> Iterable[Any] | None:
    """Tools built for one thinker's palette this turn: its own instances of them.

    Called every time a thinker assembles its palette, before every turn. Every
    implementation's result is used, in plugin order, after the thinker's own tools (declared,
    system-wide, added, granted). nucleo's own per-thinker tools come this way, from the
    builtin plugins registered first on every host: ``builtin:artifact_tools`` (the artifact
    tools over the run's conversation), ``builtin:sub_thinker``, then, last,
    ``builtin:request_tools`` and ``builtin:request_skill`` (over the turn's catalogs). A host
    switches one off by blocking its name (``PluginHost(block=["builtin:sub_thinker"])``).

    What is returned is offered, and checked at every call like any tool of the palette; it
    is never admitted through ``request_tools``.

    Args:
        thinker: The thinker assembling its palette.

    Returns:
        Tool providers, ``@tool``-declared classes or functions; or ``None`` for none.
    """


@hookspec
def nucleo_reconcile_catalog(thinker: Any, catalog: Sequence[str]) -> Iterable[str] | None:
    """Narrow one thinker's catalog for one turn.

    Called before every turn's definitions are built. A tool withheld here is neither listed
    in ``request_tools`` nor admitted that turn. Every implementation's result is used: the
    names withheld are the union of all answers.

    Args:
        thinker: The thinker about to take a turn.
        catalog: The names in its catalog, in catalog order.

    Returns:
        Names to withhold this turn (names not in ``catalog`` are ignored), or ``None``.
    """


@hookspec
def nucleo_admit_tool(thinker: Any, provider: ToolProvider) -> Verdict | None:
    """Decide whether a requested tool may join a thinker's palette.

    Called for every ``request_tools`` grant, one implementation at a time: each is asked even
    when another refused or raised. The tool is granted only if no implementation refuses
    (and every admission rule of the hub passes). An implementation that raises is recorded
    as an internal error, which refuses; it is never read as a verdict.

    Args:
        thinker: The thinker whose model asked for the tool.
        provider: The requested tool's provider.

    Returns:
        ``Verdict.refuse(reason)`` to refuse (the reason reaches the model),
        ``Verdict.grant()`` to grant explicitly, or ``None`` to have no opinion.
    """


@hookspec
def nucleo_admit_skill(thinker: Any, skill: Skill) -> Verdict | None:
    """Decide whether a requested skill may be attached to a thinker's conversation.

    Called like `nucleo_admit_tool`, for every ``request_skill`` grant.

    Args:
        thinker: The thinker whose model asked for the skill.
        skill: The requested skill.

    Returns:
        ``Verdict.refuse(reason)``, ``Verdict.grant()``, or ``None`` for no opinion.
    """


@hookspec
def nucleo_permission(
    thinker: Any, provider: ToolProvider, arguments: Mapping[str, Any]
) -> Decision | str | None:
    """Decide how one tool call may proceed: run, run and notify, wait for approval, or not.

    Called by the permission guard for every tool call that passed the call door's
    availability, read-only and input checks, one implementation at a time: each is asked
    even when another denied or failed. The call proceeds under the most restrictive of the
    guard's own policy and every answer (``deny`` > ``confirm`` > ``notify`` > ``auto``), so an
    implementation can only tighten, never loosen. An implementation that raises, answers
    anything but a decision or ``None``, or does not answer within the guard's time limit
    counts as ``deny`` (an internal error, reported against its plugin), never as ``auto``.

    Args:
        thinker: The thinker whose model made the call (``None`` for a call from outside any
            thinker).
        provider: The called tool's provider: its ``name``, ``source``, ``risk``,
            ``risk_declared`` and ``read_only`` are what to decide on.
        arguments: The call's input as validated against the published schema (read-only:
            do not change it). It may carry secrets: never log or echo it.

    Returns:
        A `Decision`, or exactly one of ``"auto"``, ``"notify"``, ``"confirm"``, ``"deny"``;
        or ``None`` for no opinion.
    """


@hookspec
def nucleo_skill_sources() -> Iterable[Skill | str | os.PathLike[str] | Traversable] | None:
    """Skills, or folders holding skill folders, to add to the hub's skill registry.

    Called once per hub load (and for plugins loaded later). Every implementation's result is
    used.

    Returns:
        `Skill` objects, paths of folders holding skill folders, or ``importlib.resources``
        traversables of such folders (a package's files, so it works from a wheel); or
        ``None``.
    """


@hookspec
def nucleo_skill_tool_aliases() -> Mapping[str, str | Sequence[str]] | None:
    """Aliases mapping the tool names published skills use onto this plugin's own tools.

    A skill written for another agent names that agent's tools in ``allowed-tools``
    (Claude Code's ``Read``, ``Grep``, ``Bash(git diff:*)``). A tool pack answers with the
    names its own tools stand for (``{"Read": "read_text_file"}``), so such a skill, attached,
    keeps the pack's tools instead of narrowing the palette to nothing. Called once per hub
    load (and for plugins loaded later).

    An alias naming a tool the plugin does not provide itself (through its ``nucleo.tools``
    entry point or `nucleo_system_wide_tools`) is not taken, and is reported; the project's
    configuration (``[tool.nucleo.skills.aliases]``) wins over every plugin.

    Returns:
        A mapping of ``allowed-tools`` entries (``"Read"``, or ``"Bash(git diff:*)"``) to a
        tool name or a list of tool names; or ``None``.
    """
