"""A writer's hold of a conversation in PostgreSQL: a session-level advisory lock.

`PostgresConversationStore` takes and releases holds; this module is what a hold is, the
advisory-lock keys named by a conversation id, and this process's registry of its holds
(which a forked child forgets, since the locks stay with the parent's sessions).
"""

from __future__ import annotations

import os
import threading
import uuid
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, final

from nucleo_core.conversations.writer_hold import this_host
from nucleo_core.stores.postgres import advisory_key

if TYPE_CHECKING:
    import psycopg

__all__ = ["HOLDS", "PostgresWriterHold", "held_here", "hold_key", "record_key"]

#: The holds this process has, by token (a refused opener tells whether it is this process).
HOLDS: weakref.WeakValueDictionary[str, PostgresWriterHold] = weakref.WeakValueDictionary()


@final
@dataclass(slots=True, weakref_slot=True, eq=False, kw_only=True)
class PostgresWriterHold:
    """This process's hold of one conversation: a session-level advisory lock.

    Attributes:
        conversation_id: The conversation held.
        connection: The session holding the lock (``None`` once released).
        token: A random id of this hold.
        pid: This process's id when the hold was taken.
        host: This host's name.
        since: When the hold was taken (UTC).
        lock: Serializes the transactions run on ``connection`` (the journal's writes of the
            conversation, and the release), whichever thread runs them.
    """

    conversation_id: str
    connection: psycopg.Connection[Any] | None
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    pid: int = field(default_factory=os.getpid)
    host: str = field(default_factory=this_host)
    since: datetime = field(default_factory=lambda: datetime.now(UTC))
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def held(self) -> bool:
        """Whether this process still holds the lock."""
        return self.connection is not None and not self.connection.closed


def hold_key(conversation_id: str) -> int:
    """The advisory lock whose holder writes ``conversation_id``."""
    return advisory_key("nucleo.conversation", conversation_id)


def record_key(conversation_id: str) -> int:
    """The advisory lock under which ``conversation_id``'s writer record is read and written."""
    return advisory_key("nucleo.conversation.writer-record", conversation_id)


def held_here(token: object) -> bool:
    """Whether the hold of that token is this process's (by token: a pid may be reused)."""
    return token in HOLDS


#: A forked child's copies of this process's hold sessions: kept referenced and never closed,
#: since closing one would end the session (and release the lock) the parent still holds.
_INHERITED: list[object] = []


def _forget_inherited_holds() -> None:
    for hold in list(HOLDS.values()):
        connection, hold.connection = hold.connection, None
        hold.lock = threading.Lock()  # another thread of the parent may have held it
        if connection is not None:
            _INHERITED.append(connection)
    HOLDS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_holds)
