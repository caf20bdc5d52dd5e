"""Who asked, for the audit record: a thinker, its conversation and the thinkers above it."""

from __future__ import annotations

import contextlib
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nucleo_core.guard.audit.events import Requester

__all__ = ["requester_of"]

# Each thinker's last `Requester`, with what it was made from: a thinker asks for one every
# turn, and building it (its validation, its JSON) costs more than checking it still holds.
_KEPT: weakref.WeakKeyDictionary[Any, tuple[object, tuple[tuple[int, type], ...], Requester]] = (
    weakref.WeakKeyDictionary()
)


def requester_of(thinker: Any) -> Requester:
    """The `Requester` of ``thinker``'s records now (``None`` asks from outside any thinker).

    Its class by qualified name, its instance id, the conversation it runs in (when one is
    open) and, for a sub-thinker, the thinkers that launched it, root first; for a thinker
    acting for an MCP gateway's client, that client comes first (`_outside`).
    """
    from nucleo_core.guard.audit.events import Requester

    if thinker is None:
        return Requester(thinker_class="(no thinker)")
    conversation = getattr(thinker, "conversation", None)
    conversation_id = getattr(conversation, "id", None)
    chain: list[Any] = []
    above = getattr(thinker, "_delegator", None)
    while above is not None:
        chain.append(above)
        above = getattr(above, "_delegator", None)
    identity = tuple((id(parent), type(parent)) for parent in chain)
    try:
        kept = _KEPT.get(thinker)
    except TypeError:  # a thinker that cannot be weakly referenced or hashed: not kept
        kept = None
    if kept is not None and kept[0] == conversation_id and kept[1] == identity:
        return kept[2]
    requester = Requester(
        thinker_class=_qualified(type(thinker)),
        thinker_id=f"{id(thinker):x}",
        conversation_id=conversation_id if isinstance(conversation_id, str) else None,
        parents=(
            *_outside(thinker),
            *(f"{_qualified(type(p))}#{id(p):x}" for p in reversed(chain)),
        ),
    )
    with contextlib.suppress(TypeError):  # not weakly referable: made anew every time
        _KEPT[thinker] = (conversation_id, identity, requester)
    return requester


def _outside(thinker: Any) -> tuple[str, ...]:
    """Who asked from outside the process, root first (``_requested_for``), or nothing.

    The MCP gateway sets it on the thinker acting for a client: the holder of the client's
    token and the client's name and version, as the gateway took them from the connection.
    """
    outside = getattr(thinker, "_requested_for", ())
    if type(outside) is not tuple or any(type(each) is not str for each in outside):
        return ()
    return outside


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
