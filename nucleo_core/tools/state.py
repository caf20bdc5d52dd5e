"""State a tool keeps for a conversation: carried across its compaction, dropped at its end.

A tool declares per-conversation state with ``@tool(state=Factory)``: ``Factory`` (a class, or
any callable taking no argument) makes one state object per conversation, on the tool's first
call in it. A class tool reads it as ``self.state``; a function tool receives it in its
parameter named ``state`` (which is not part of the tool's input). The state object may define
either hook, or both:

- ``carried_state(self) -> CarriedState | str | None``: what the model should still read after
  older turns are replaced by a summary (a ``str`` is carried under the tool's name);
- ``forget_conversation_state(self) -> None``: release what the state holds (a file, a
  connection) when the conversation ends, just before nucleo drops the object.

Which conversation a call belongs to is the thinker's to say (`Thinker.state_owner`): the run's
own, or, for a tool a sub-thinker inherited from its parent, the parent's, so a delegate works
on the same state as the thinker that delegated and its end does not drop that state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from nucleo_core.errors import MisuseError

__all__ = ["CarriedState", "ConversationStates", "state_conversation_id"]

_S = TypeVar("_S")


@dataclass(frozen=True, slots=True, kw_only=True)
class CarriedState:
    """What one tool asks to keep when older turns are replaced by a summary.

    Attributes:
        tool: The name of the tool that carries the state.
        text: The state as text the model reads after the compaction.
        data: Optional structured state for the tool itself; the framework never reads it.
    """

    tool: str
    text: str
    data: Mapping[str, Any] | None = None


class ConversationStates(Generic[_S]):
    """One state object per conversation id, made on first use; safe from several threads.

    ``@tool(state=...)`` keeps one of these per declared tool; a hand-written `ToolProvider`
    may keep one too and answer its ``carried_state`` / ``forget_conversation_state`` from it.

    Args:
        factory: Makes a fresh state object (called with no argument).
        tool: The tool's name, which a ``str`` carried state is carried under.
    """

    __slots__ = ("_factory", "_lock", "_states", "tool")

    def __init__(self, factory: Callable[[], _S], *, tool: str) -> None:
        self._factory = factory
        self.tool = tool
        self._states: dict[str, _S] = {}
        self._lock = threading.Lock()

    def get(self, conversation_id: str) -> _S:
        """The state of ``conversation_id``, made now if it has none yet."""
        with self._lock:
            state = self._states.get(conversation_id)
            if state is None:
                state = self._states[conversation_id] = self._factory()
            return state

    def fresh(self) -> _S:
        """A state that nothing keeps: for a call made outside any conversation."""
        return self._factory()

    def peek(self, conversation_id: str) -> _S | None:
        """The state of ``conversation_id`` if it has one, without making one."""
        with self._lock:
            return self._states.get(conversation_id)

    def ids(self) -> list[str]:
        """The conversations that have a state now, oldest first."""
        with self._lock:
            return list(self._states)

    def carried(self, conversation_id: str | None) -> CarriedState | None:
        """What the state of ``conversation_id`` asks to carry (its ``carried_state()``), if any.

        Raises:
            MisuseError: The state's ``carried_state()`` returned something other than a
                `CarriedState`, a ``str`` or ``None``.
        """
        state = None if conversation_id is None else self.peek(conversation_id)
        hook = getattr(state, "carried_state", None)
        if not callable(hook):
            return None
        carried = hook()
        if carried is None or isinstance(carried, CarriedState):
            return carried
        if isinstance(carried, str):
            return CarriedState(tool=self.tool, text=carried)
        raise MisuseError(
            f"the state of tool '{self.tool}' returned a {type(carried).__name__} from "
            "carried_state(): return a CarriedState, a str or None"
        )

    def forget(self, conversation_id: str | None) -> None:
        """Drop the state of ``conversation_id`` (``None``: of every conversation).

        Each dropped state's ``forget_conversation_state()`` is called first, when it has one;
        the states are dropped even if it raises, and the failures are raised afterwards
        (one as is, several as an ``ExceptionGroup``).
        """
        with self._lock:
            if conversation_id is None:
                dropped = list(self._states.values())
                self._states.clear()
            else:
                state = self._states.pop(conversation_id, None)
                dropped = [] if state is None else [state]
        failures: list[Exception] = []
        for state in dropped:
            hook = getattr(state, "forget_conversation_state", None)
            if callable(hook):
                try:
                    hook()
                except Exception as exc:
                    failures.append(exc)
        if len(failures) == 1:
            raise failures[0]
        if failures:
            raise ExceptionGroup(f"tool '{self.tool}' failed to forget some states", failures)

    def __len__(self) -> int:
        with self._lock:
            return len(self._states)

    def __repr__(self) -> str:
        return f"<ConversationStates {self.tool}: {len(self)} conversation(s)>"


def state_conversation_id(parent: object, provider: object) -> str | None:
    """The id of the conversation a call of ``provider`` made for ``parent`` keeps state in.

    Asked of the thinker (``parent.state_owner(provider)``, then that thinker's open
    ``conversation``); ``None`` when there is no thinker or no conversation is open.
    """
    owner_of = getattr(parent, "state_owner", None)
    owner = owner_of(provider) if callable(owner_of) else parent
    conversation = getattr(owner, "conversation", None)
    conversation_id = getattr(conversation, "id", None)
    return conversation_id if isinstance(conversation_id, str) else None
