"""Who asked, for the audit record: a thinker, its conversation and the thinkers above it."""

from __future__ import annotations

import weakref
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nucleo_core.guard.audit.events import Requester

__all__ = ["requester_of"]

# Each thinker's last `Requester`, by the thinker's id, with a weak reference to the thinker
# (its entry leaves when the thinker does) and what the requester was made from: a thinker
# asks for one every turn, and making it (its validation, its JSON) costs more than checking
# that the kept one still holds.
_Kept = tuple[
    "weakref.ref[Any]", object, tuple[tuple[int, type], ...], tuple[str, ...], "Requester"
]
_KEPT: dict[int, _Kept] = {}
_UNSET = object()


def requester_of(thinker: Any) -> Requester:
    """The `Requester` of ``thinker``'s records now (``None`` asks from outside any thinker).

    Its class by qualified name, its instance id, the conversation it runs in (when one is
    open) and, for a sub-thinker, the thinkers that launched it, root first; for a thinker
    acting for an MCP gateway's client, that client first (`_outside`).
    """
    if thinker is None:
        from nucleo_core.guard.audit.events import Requester

        return Requester(thinker_class="(no thinker)")
    # A thinker's conversation is read where the base class keeps it, not through its
    # `conversation` property: a subclass's override neither runs here (an admission must not
    # run thinker code) nor names another conversation on the record.
    conversation = getattr(thinker, "_context", _UNSET)
    if conversation is _UNSET:  # not a `Thinker`: whatever it says it runs in
        conversation = getattr(thinker, "conversation", None)
    conversation_id = getattr(conversation, "id", None)
    above = getattr(thinker, "_delegator", None)
    chain: list[Any] = []
    while above is not None:
        chain.append(above)
        above = getattr(above, "_delegator", None)
    identity = tuple((id(parent), type(parent)) for parent in chain) if chain else ()
    outside = getattr(thinker, "_requested_for", ())
    if type(outside) is not tuple or outside:  # the common case, nobody outside, checks nothing
        outside = _outside(thinker)
    key = id(thinker)
    kept = _KEPT.get(key)
    if (
        kept is not None
        and kept[0]() is thinker
        and kept[1] == conversation_id
        and kept[2] == identity
        and kept[3] == outside
    ):
        return kept[4]
    # Imported only here: an import statement costs more than the rest of a kept look-up.
    from nucleo_core.guard.audit.events import Requester

    requester = Requester(
        thinker_class=_qualified(type(thinker)),
        thinker_id=f"{key:x}",
        conversation_id=conversation_id if isinstance(conversation_id, str) else None,
        parents=(
            *outside,
            *(f"{_qualified(type(p))}#{id(p):x}" for p in reversed(chain)),
        ),
    )
    try:
        reference = weakref.ref(thinker, partial(_forget, key))
    except TypeError:  # not weakly referable: made anew every time
        return requester
    _KEPT[key] = (reference, conversation_id, identity, outside, requester)
    return requester


def _forget(key: int, reference: weakref.ref[Any]) -> None:
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is reference:  # not a later thinker's, of a recycled id
        del _KEPT[key]


def _outside(thinker: Any) -> tuple[str, ...]:
    """Who asked from outside the process, root first (``_requested_for``), or nothing.

    The MCP gateway (`nucleo_core.gateway`) sets it, once, on the thinker acting for one
    client: the holder of the client's token and the client's name and version.
    """
    outside = getattr(thinker, "_requested_for", ())
    if type(outside) is not tuple or any(type(each) is not str for each in outside):
        return ()
    return outside


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
