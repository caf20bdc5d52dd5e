"""`ConversationService`: where conversations are opened, kept, closed and deleted."""

from __future__ import annotations

import os
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, final

from nucleo_core._closing import ClosesOnExit
from nucleo_core.conversations.context import ConversationContext
from nucleo_core.conversations.errors import ConversationConflict

if TYPE_CHECKING:
    from typing import TypeAlias

    from nucleo_core.conversations.postgres_store import (
        PostgresConversationStore,
        PostgresWriterHold,
    )
    from nucleo_core.conversations.sqlite_store import SQLiteConversationStore
    from nucleo_core.conversations.writer_hold import WriterHold
    from nucleo_core.tools.registry import ToolRegistry

    _Store: TypeAlias = SQLiteConversationStore | PostgresConversationStore
    _Hold: TypeAlias = WriterHold | PostgresWriterHold

__all__ = ["CONVERSATIONS_ENVIRONMENT_VARIABLE", "ConversationService", "default_store_path"]

#: Names the SQLite file durable conversations are kept in, when no path is given.
CONVERSATIONS_ENVIRONMENT_VARIABLE = "NUCLEO_CONVERSATIONS"


def default_store_path() -> Path:
    """Where durable conversations are kept when `ConversationService` is given no path.

    ``$NUCLEO_CONVERSATIONS`` when set; else ``conversations.sqlite3`` in ``nucleo`` under
    ``$XDG_DATA_HOME``, which defaults to ``~/.local/share``.
    """
    configured = os.environ.get(CONVERSATIONS_ENVIRONMENT_VARIABLE)
    if configured:
        return Path(configured).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or "~/.local/share"
    return Path(data_home).expanduser() / "nucleo" / "conversations.sqlite3"


@final
class ConversationService(ClosesOnExit):
    """Gives each run a `ConversationContext`, and keeps the durable ones.

    - **Temporary** conversations live in memory only and vanish when closed.
    - **Durable** conversations are kept in a SQLite file (write-ahead log, ``synchronous=FULL``)
      and survive a restart of the process: opening a stored id loads its messages, skills,
      markers, summary, carried states, metadata and artifacts. Every change is committed
      before it shows in the context.
    - The file is created, with its folder, on the first durable use, never before: a service
      that only runs temporary conversations touches no disk. ``":memory:"`` keeps durable
      conversations in an in-memory database instead, for as long as the service runs.
    - A conversation open in this service is one object: opening its id again returns it.
    - **One writer per durable conversation.** While a durable conversation is open here, this
      service holds it: opening it for writing anywhere else (another process, or another
      service on the same file in this process) raises `ConversationBusy`, which names the
      holder (pid, host, since when). The hold ends when the conversation is closed (a thinker
      closes it at the end of each run or turn), at `shutdown`, at process exit, and when the
      process dies however it dies: its hold is a kernel lock (see `writer_hold`), so the next
      opener takes over a dead holder's conversation, and only then a
      `ReactiveThinker` rolls back the turn the dead holder had left in progress.
    - Safe from several threads (one SQLite connection behind a lock). Several services and
      processes may read the same file.

    Use the service as a context manager, or call `shutdown`, to close the database.

    A ``postgresql://`` URL as ``path`` keeps durable conversations in PostgreSQL instead
    (`PostgresConversationStore`, the extra ``nucleo-core[postgres]``), shared by every
    process on every host that reaches the database, with the same guarantees: the one writer
    is held by a session-level advisory lock, which the server releases when the holder's
    session ends however it ends.

    Args:
        path: The SQLite file, or a ``postgresql://`` store URL. Default:
            ``$NUCLEO_CONVERSATIONS``, else the project's store URL (``$NUCLEO_STORE_URL``,
            ``store`` in its configuration), else `default_store_path`.
        wait: How long opening a conversation another process holds waits for it to be let
            go, in seconds, before `ConversationBusy` (PostgreSQL only; ``0``: at once).
    """

    __slots__ = ("_holds", "_lock", "_open", "_store", "path", "wait")

    _close_on_exit = "shutdown"

    def __init__(self, path: str | os.PathLike[str] | None = None, *, wait: float = 0.0) -> None:
        self.path: str = os.fspath(path) if path is not None else _default_target()
        self.wait = wait
        self._store: _Store | None = None
        self._open: dict[str, ConversationContext] = {}
        self._holds: dict[str, _Hold] = {}
        self._lock = threading.RLock()

    # -- conversations ----------------------------------------------------------------------

    def open(
        self, conversation_id: str | None = None, *, durable: bool = False
    ) -> ConversationContext:
        """The conversation ``conversation_id``: the open one, the stored one, or a new one.

        Args:
            conversation_id: The id; a new conversation with a fresh ``uuid4`` hex id when
                ``None``.
            durable: Keep the conversation in the store. A stored id is loaded with everything
                it holds; an unknown one is created (and stored) now.

        A durable conversation is held by this service until it is closed (see the class):
        it is loaded once the hold is taken, so it holds whatever its previous writer
        committed.

        Raises:
            ConversationBusy: ``durable`` is true and another process, or another service of
                this process, has the conversation open for writing.
            ConversationConflict: The id names a durable conversation and ``durable`` is false,
                or a temporary one open here and ``durable`` is true (see `make_durable`).
            ConversationStoreError: The store cannot be opened or holds a corrupt record of the
                conversation.
        """
        with self._lock:
            if conversation_id is None:
                conversation_id = uuid.uuid4().hex
            context = self._open.get(conversation_id)
            if context is not None:
                if context.durable != durable:
                    raise _mode_conflict(conversation_id, context.durable)
                return context
            if durable:
                store = self._journal()
                # The hold, the load and (for a new id) the creation, as the store does them
                # at once (on PostgreSQL, one transaction).
                hold, snapshot = store.open_for_writing(conversation_id, created=datetime.now(UTC))
                context = ConversationContext._restore(snapshot, store)
                self._keep_hold(conversation_id, hold)
            else:
                if self._store_if_any() is not None and self._journal().exists(conversation_id):
                    raise _mode_conflict(conversation_id, durable=True)
                context = ConversationContext(conversation_id)
            self._open[conversation_id] = context
            return context

    def close(self, context: ConversationContext, *, registry: ToolRegistry | None = None) -> None:
        """End this use of ``context``: a temporary one is discarded, a durable one kept.

        A durable context has nothing left to write (every change was committed as it was
        made); this service's hold of it ends. The context is closed either way: it can be
        read, not changed. Closing twice is harmless.

        Args:
            context: The context to close.
            registry: A tool registry whose every tool is told the conversation ended
                (``forget_conversation_state(context.id)``), even if closing failed. Give it
                only when this close ends the conversation: the thinkers tell their own tools
                themselves, at the conversation's end rather than at each chat turn's.
        """
        try:
            with self._lock:
                if self._open.get(context.id) is context:
                    del self._open[context.id]
                    self._release(self._store, self._holds.pop(context.id, None))
                context._close()
        finally:
            if registry is not None:
                registry.forget_conversation_state(context.id)

    def make_durable(self, context: ConversationContext) -> None:
        """Store a temporary ``context`` with everything it holds, and keep it from now on.

        From now on this service holds it, as it holds every durable conversation open here.

        Raises:
            ConversationBusy: Another process, or another service of this process, has a
                conversation of that id open for writing.
            ConversationConflict: A different conversation of that id is stored already, or
                is open in this service.
            ConversationClosedError: The context was closed.
            ConversationStoreError: The context could not be stored.
        """
        with self._lock:
            if context.durable:
                return
            store = self._journal()
            if context.id in self._holds:
                raise _stored_already(context.id)
            if self._open.get(context.id, context) is not context:
                raise ConversationConflict(
                    f"another conversation {context.id} is open in this service: close it "
                    "before making this one durable"
                )
            hold = store.hold(context.id)
            try:
                if store.exists(context.id):
                    raise _stored_already(context.id)
                context._bind(store)
            except BaseException:
                self._release(store, hold)
                raise
            self._open[context.id] = context
            self._keep_hold(context.id, hold)

    def delete(self, conversation_id: str) -> bool:
        """Delete the conversation (stored or open) and everything kept with it.

        An open context of that id is closed first. A stored conversation is held while it
        is deleted, so one open for writing elsewhere is not deleted under its writer.

        Returns:
            Whether there was anything to delete.

        Raises:
            ConversationBusy: Another process, or another service of this process, has the
                conversation open for writing.
        """
        with self._lock:
            store = self._store_if_any()
            hold = self._holds.pop(conversation_id, None)
            context = self._open.get(conversation_id)
            if hold is None and store is not None and store.exists(conversation_id):
                hold = store.hold(conversation_id)  # before closing anything here
            self._open.pop(conversation_id, None)
            if context is not None:
                context._close()
            try:
                stored = store is not None and store.delete(conversation_id)
            finally:
                self._release(store, hold, forget=True)
            return stored or context is not None

    def exists(self, conversation_id: str) -> bool:
        """Whether the id names a stored conversation or one open here."""
        with self._lock:
            if conversation_id in self._open:
                return True
            return self._store_if_any() is not None and self._journal().exists(conversation_id)

    def list_ids(self) -> list[str]:
        """The ids `exists` is true for: stored ones oldest first, then open temporary ones."""
        with self._lock:
            stored = self._journal().ids() if self._store_if_any() is not None else []
            known = set(stored)
            temporary = [cid for cid, ctx in self._open.items() if not ctx.durable]
            return stored + [cid for cid in temporary if cid not in known]

    # -- the store --------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Close every open conversation and the database (a later durable use reopens it).

        With ``":memory:"``, the durable conversations are gone afterwards.
        """
        with self._lock:
            for context in list(self._open.values()):
                context._close()
            self._open.clear()
            self._holds.clear()  # closing the store releases them
            store, self._store = self._store, None
            if store is not None:
                store.close()

    def __repr__(self) -> str:
        return f"<ConversationService {self.path} {len(self._open)} open>"

    def _journal(self) -> _Store:
        if self._store is None:
            if _is_postgres(self.path):
                # Imported here: only a PostgreSQL URL imports psycopg.
                from nucleo_core.conversations.postgres_store import PostgresConversationStore

                self._store = PostgresConversationStore(self.path, wait=self.wait)
                return self._store
            # Imported here: `import nucleo_core` must not import sqlite3.
            from nucleo_core.conversations.sqlite_store import SQLiteConversationStore

            self._store = SQLiteConversationStore(self.path)
        return self._store

    def _keep_hold(self, conversation_id: str, hold: _Hold | None) -> None:
        if hold is not None:
            self._holds[conversation_id] = hold

    @staticmethod
    def _release(store: _Store | None, hold: _Hold | None, *, forget: bool = False) -> None:
        if store is not None and hold is not None:
            store.release(hold, forget=forget)  # type: ignore[arg-type]  # its own kind

    def _store_if_any(self) -> _Store | None:
        """The store, when there is anything stored to consult (without creating the file)."""
        if self._store is not None:
            return self._store
        if _is_postgres(self.path) or (self.path != ":memory:" and Path(self.path).exists()):
            return self._journal()
        return None


def _default_target() -> str:
    """``$NUCLEO_CONVERSATIONS``, else the project's store URL, else `default_store_path`."""
    if not os.environ.get(CONVERSATIONS_ENVIRONMENT_VARIABLE):
        from nucleo_core.stores.url import resolve_store_url

        url = resolve_store_url()
        if url is not None:
            return url.url if url.folder is None else os.fspath(url.sqlite_file("conversations"))
    return os.fspath(default_store_path())


def _is_postgres(path: str) -> bool:
    return path.startswith(("postgresql://", "postgres://"))


def _mode_conflict(conversation_id: str, durable: bool) -> ConversationConflict:
    if durable:
        return ConversationConflict(
            f"conversation {conversation_id} is durable: open it with durable=True"
        )
    return ConversationConflict(
        f"conversation {conversation_id} is open as a temporary conversation: use "
        "make_durable(context) to keep it"
    )


def _stored_already(conversation_id: str) -> ConversationConflict:
    return ConversationConflict(
        f"a durable conversation {conversation_id} is stored already; "
        "open it with durable=True instead"
    )
