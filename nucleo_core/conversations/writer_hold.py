"""`WriterHold`: the one writer of a durable conversation, held as a kernel lock on a file.

A durable conversation is written by one `ConversationService` at a time. The service holds
it, while the conversation is open, by an exclusive ``flock`` on a lock file of its own, in the
folder ``<store file>-writers`` beside the SQLite file (one file per conversation, named by the
SHA-256 of its id). Who holds it (pid, host, since when) is recorded in the store's ``writers``
table, so that a refused opener can name the holder (`ConversationBusy`).

Why a kernel lock rather than a lease guessed from a pid or a clock: the kernel releases the
lock when the holder's process ends, however it ends (``SIGKILL``, a crash, power loss), and
only then. A pid can be reused by an unrelated process, exec'd into another program, or mean
another process in another pid namespace (a container sharing the file); a lease needs a
heartbeat and a timeout that is either too long for a crash or too short for a slow turn. The
lock knows none of these ambiguities. It needs the lock file on a local file system, which
SQLite's write-ahead log (the store's journal mode) needs already; across hosts (a network
file system) neither SQLite nor the lock can be trusted, so the store is not meant to be
shared between hosts.

- **Taking a hold** happens inside one ``BEGIN IMMEDIATE`` transaction of the store, as does
  releasing it: so an opener that finds the lock taken always reads the row of the process
  that took it, never a half-written or a previous holder's record.
- **Inheritance**: the lock file is opened close-on-exec, and a process forked from the holder
  closes its copy at once (`os.register_at_fork`): only the holding process itself keeps the
  conversation held, not a child that outlives it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import socket
import sys
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import final

from nucleo_core.conversations.errors import ConversationBusy, ConversationStoreError

__all__ = [
    "WriterHold",
    "busy",
    "lock_path",
    "this_host",
    "try_lock",
    "unlock",
    "warn_taken_over",
]

logger = logging.getLogger("nucleo.conversations")

#: Every hold whose lock file is open in this process (for the fork handler).
_HOLDS: weakref.WeakSet[WriterHold] = weakref.WeakSet()


@final
@dataclass(slots=True, weakref_slot=True, eq=False, kw_only=True)
class WriterHold:
    """This process's hold of one conversation: the locked file and the record naming it.

    Attributes:
        conversation_id: The conversation held.
        token: A random id of this hold, so that releasing it deletes its own record only.
        pid: This process's id when the hold was taken.
        host: This host's name.
        since: When the hold was taken (UTC).
        lock_file: The locked file.
        fd: The locked file's descriptor; ``-1`` once released (or in a forked child).
    """

    conversation_id: str
    lock_file: Path
    fd: int
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    pid: int = field(default_factory=os.getpid)
    host: str = field(default_factory=lambda: this_host())
    since: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __post_init__(self) -> None:
        _HOLDS.add(self)

    @property
    def held(self) -> bool:
        """Whether this process still holds the lock."""
        return self.fd >= 0


def this_host() -> str:
    """The host name a hold records (``socket.gethostname``)."""
    return socket.gethostname()


def lock_path(store_path: str, conversation_id: str) -> Path:
    """The lock file of ``conversation_id`` in the store ``store_path``."""
    digest = hashlib.sha256(conversation_id.encode("utf-8", "surrogatepass")).hexdigest()
    return Path(f"{store_path}-writers") / f"{digest}.lock"


def try_lock(path: Path, conversation_id: str) -> int | None:
    """Open and lock ``path`` exclusively; its descriptor, or ``None`` when another holds it.

    Raises:
        ConversationStoreError: The lock file cannot be created, opened or locked.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # os.open makes descriptors non-inheritable (close-on-exec): an exec'd program does not
        # keep the conversation held under the holder's pid.
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise _lock_error(path, conversation_id, exc) from exc
    try:
        locked = _lock(fd)
    except OSError as exc:
        os.close(fd)
        raise _lock_error(path, conversation_id, exc) from exc
    if not locked:
        os.close(fd)
        return None
    return fd


def unlock(hold: WriterHold) -> None:
    """Release the lock of ``hold`` and close its file (nothing when it is released already)."""
    fd, hold.fd = hold.fd, -1
    _HOLDS.discard(hold)
    if fd < 0:
        return
    try:
        _unlock(fd)
    finally:
        os.close(fd)  # closing alone releases the lock too; unlocking first says so


def busy(
    conversation_id: str,
    record: Sequence[object] | None,
    *,
    ours: Callable[[object], bool] | None = None,
) -> ConversationBusy:
    """The error for a conversation whose lock another holds.

    Args:
        conversation_id: The conversation.
        record: Its ``writers`` row (``pid, host, since, token``), or ``None`` when there is
            none.
        ours: Whether a token is of a hold of this process (default: a lock-file hold's).
    """
    if record is None:
        return ConversationBusy(conversation_id, pid=None, host=None, since=None)
    pid, host, since, token = record
    try:
        when = datetime.fromisoformat(since) if isinstance(since, str) else None
    except ValueError:
        when = None
    return ConversationBusy(
        conversation_id,
        pid=pid if isinstance(pid, int) else None,
        host=host if isinstance(host, str) else None,
        since=when,
        # By the token, not the pid: another pid namespace (a container) may reuse this pid.
        this_process=(ours or _held_here)(token),
    )


def warn_taken_over(conversation_id: str, record: Sequence[object], pid: int) -> None:
    """Log that this process (``pid``) took over a hold whose writer ``record`` died."""
    previous_pid, host, since, _ = record
    logger.warning(
        "conversation %s: its previous writer (pid %s on host %s, since %s) ended "
        "without closing it; this process (pid %d) takes it over",
        conversation_id,
        previous_pid,
        host,
        since,
        pid,
    )


def _held_here(token: object) -> bool:
    return any(hold.token == token for hold in list(_HOLDS))


def _lock_error(path: Path, conversation_id: str, exc: OSError) -> ConversationStoreError:
    return ConversationStoreError(
        f"cannot take the writer's lock of conversation {conversation_id} ({path}): {exc}; "
        "the conversation store and its '-writers' folder must be on a local, writable file "
        "system"
    )


if sys.platform == "win32":  # pragma: no cover - nucleo is tested on POSIX systems
    import msvcrt

    def _lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)


def _forget_inherited_holds() -> None:
    """In a forked child: close the copies of the parent's locked files, without unlocking.

    ``flock`` belongs to the open file, which a fork shares: a child keeping its copy would
    keep the conversation held after the parent died. Closing the copy (rather than unlocking
    it, which would release the parent's lock too) leaves the parent the only holder.
    """
    for hold in list(_HOLDS):
        fd, hold.fd = hold.fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
    _HOLDS.clear()


# Registered when this module is first imported, which is on a process's first durable
# conversation: before that there is no hold a fork could inherit.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_holds)
