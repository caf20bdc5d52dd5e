"""The call door: the one check every tool call passes, which no subclass can replace.

DESIGN.md's order is available → read-only → input → permission → execute → record. This
module holds the first two steps for every thinker family; the executor parses the input next,
and the permission guard is to be the step after that. The thinker loop calls `call_door`
itself, never an overridable method, and the function calls `ThinkerBase`'s own
implementations by name, so an override of `check_call` (or of anything else) can narrow what
a thinker offers but cannot widen what may run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nucleo_core.errors import UnknownTool
from nucleo_core.tools.palette import ReadOnlyPalette

if TYPE_CHECKING:
    from nucleo_core.hub.thinker_base import ThinkerBase
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["call_door"]


def call_door(thinker: ThinkerBase, name: str | None) -> ToolProvider:
    """The provider a call to ``name`` may run, checked now, at the call.

    **Read-only**: a read-only thinker runs only tools declared read-only. **Available**: put in
    this turn's palette by the thinker itself, inside every restriction and phase and, for a
    delegate, inside the surface its parent had at launch; and still offered at this moment: a
    system-wide tool withdrawn since the palette was built is refused, and so is a granted tool
    whose catalog no longer holds it (the grant is then revoked, on the record).

    Raises:
        UnknownTool: The name is not available now (the model is told the names that are).
        ReadOnlyViolation: The thinker is bound read-only and the tool is not declared so.
    """
    from nucleo_core.hub.thinker_base import ThinkerBase

    registry = thinker._registry
    provider = registry.available(name)
    if provider is not None and thinker._read_only:
        ReadOnlyPalette.require_read_only(provider)
    if (
        provider is None
        or not ThinkerBase._within_ceiling(thinker, provider)
        or not ThinkerBase._offered_now(thinker, provider)
    ):
        raise UnknownTool(
            [
                each.name
                for each in registry.providers()
                if registry.available(each.name) is each
                and thinker._offered.get(each.name) == each
                and ThinkerBase._within_ceiling(thinker, each)
            ]
        )
    return provider
