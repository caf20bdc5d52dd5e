"""`ToolPackResult`: what a tool pack's callable returns when it brings plugins of its own."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nucleo_core.plugins.record import PluginRecord

if TYPE_CHECKING:
    from nucleo_core.tools.providers import ToolLike

__all__ = ["ToolPackResult"]


@dataclass(frozen=True, slots=True, init=False)
class ToolPackResult:
    """A ``nucleo.tools`` callable's tools, and a record of each plugin it brought them from.

    A callable named by a ``nucleo.tools`` entry point may return an iterable of tools, or
    this. A pack that loads plugins of another ecosystem (the ``llm`` bridge loads the ``llm``
    group's tool packs) returns it so that each of those plugins is reported like any nucleo
    plugin: `PluginHost` keeps the records on the pack's own record
    (`PluginRecord.subplugins`), ``nucleo plugins`` lists them under the pack, a failed one
    with its reason, and ``nucleo plugins --strict`` fails on one. A failed sub-plugin never
    fails the pack: its other sub-plugins' tools are still in.

    Example:
        >>> from nucleo_core.plugins import PluginRecord, ToolPackResult
        >>> broken = PluginRecord(
        ...     name="llm_tools_broken", group="llm", value="llm_tools_broken",
        ...     status="failed", error="missing dependency: llm_absent_dependency",
        ... )
        >>> ToolPackResult(tools=[], subplugins=[broken]).subplugins[0].plugin
        'llm:llm_tools_broken'

    Attributes:
        tools: The tools the pack brings: providers, ``@tool`` classes or ``@tool`` functions.
        subplugins: A record per plugin it loaded, in load order: ``group`` names that
            plugin's ecosystem (``llm``), ``status`` is ``loaded``, ``failed`` (with an
            ``error`` saying why, and how to fix it where it can), ``blocked``, ``duplicate``
            or ``disabled``; ``contributed`` lists ``tool: <name>`` per tool it brought, and
            ``hook_errors`` what of it was left out.
    """

    tools: tuple[ToolLike, ...]
    subplugins: tuple[PluginRecord, ...]

    def __init__(
        self, *, tools: Iterable[ToolLike] = (), subplugins: Iterable[PluginRecord] = ()
    ) -> None:
        """Keep ``tools`` and ``subplugins`` as tuples; each record is checked.

        Raises:
            TypeError: A sub-plugin is not a `PluginRecord`, has no name, an unknown status, or
                failed without an ``error``.
        """
        object.__setattr__(self, "tools", tuple(tools))
        object.__setattr__(self, "subplugins", tuple(subplugins))
        for record in self.subplugins:
            _check_record(record)


def _check_record(record: Any) -> None:
    """``record`` is a `PluginRecord` a report can show, or `TypeError` says what is wrong."""
    from typing import get_args

    from nucleo_core.plugins.record import PluginStatus

    if not isinstance(record, PluginRecord):
        raise TypeError(
            f"ToolPackResult.subplugins holds PluginRecord objects, not {type(record).__name__}"
        )
    if not isinstance(record.name, str) or not record.name:
        raise TypeError("a sub-plugin's PluginRecord needs a name (a non-empty str)")
    if record.status not in get_args(PluginStatus):
        raise TypeError(
            f"sub-plugin {record.name}: status must be one of {', '.join(get_args(PluginStatus))}"
        )
    if record.status == "failed" and not (isinstance(record.error, str) and record.error):
        raise TypeError(f"sub-plugin {record.name} failed: its PluginRecord needs an error (why)")
