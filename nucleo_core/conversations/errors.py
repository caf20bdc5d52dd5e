"""The errors of the conversations package, placed in nucleo's one hierarchy.

::

    MisuseError
    └── ConversationError           a conversation was used in a way it cannot be
        ├── ConversationStoreError  the store or one of its records is unusable (corrupt,
        │                           unwritable, a value that cannot be stored)
        ├── ConversationClosedError a closed conversation was asked to change
        ├── ConversationConflict    a conversation changed under an operation, or was opened
        │                           in a mode it does not have
        └── ConversationBusy        another process (or another service of this one) is
                                    writing the conversation; names it: pid, host, since when
    CorrectableError
    └── ArtifactError               an artifact tool call the model can correct
        ├── ArtifactNotFound        no artifact of that id; lists the ids there are
        ├── ArtifactPathError       a field path that does not resolve; names where it stopped
        └── ArtifactSearchError     a search that cannot be run as asked

An artifact error's ``str()`` is what the model reads: it names ids, positions and the shape of
the artifact, never the text the model sent nor large content.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from nucleo_core.errors import CorrectableError, MisuseError

__all__ = [
    "ArtifactError",
    "ArtifactNotFound",
    "ArtifactPathError",
    "ArtifactSearchError",
    "ConversationBusy",
    "ConversationClosedError",
    "ConversationConflict",
    "ConversationError",
    "ConversationStoreError",
]

#: How many known artifact ids an `ArtifactNotFound` lists at most (the most recent ones).
_LISTED_IDS = 20


class ConversationError(MisuseError):
    """A conversation was used in a way it cannot be."""


class ConversationStoreError(ConversationError):
    """The conversation store, or a record in it, is unusable.

    Raised for a corrupt or unreadable record (the message says which conversation and what is
    wrong with it), a database that cannot be opened or written, and a value that cannot be
    stored (metadata or carried state that is not JSON).
    """


class ConversationClosedError(ConversationError):
    """A closed conversation was asked to change; open it again to continue it."""


class ConversationConflict(ConversationError):
    """A conversation changed under an operation, or was opened in a mode it does not have."""


class ConversationBusy(ConversationError):
    """Another writer holds the conversation: one process writes a conversation at a time.

    Raised by `ConversationService.open` (durable), `ConversationService.make_durable` and
    `ConversationService.delete` while another process, or another `ConversationService` of
    this process on the same file, has the conversation open for writing. Nothing was read or
    changed: retry once the holder closed the conversation (a thinker closes it at the end of
    each run or turn) or ended. A holder that died holds nothing: its hold is a kernel lock,
    released when its process ends however it ends.

    Attributes:
        conversation_id: The conversation asked for.
        pid: The holder's process id, or ``None`` when the holder left no record of itself.
        host: The holder's host name, or ``None`` likewise.
        since: When the holder opened the conversation (UTC), or ``None`` likewise.
        this_process: Whether the holder is this very process (another service on the file).
    """

    def __init__(
        self,
        conversation_id: str,
        *,
        pid: int | None,
        host: str | None,
        since: datetime | None,
        this_process: bool = False,
    ) -> None:
        self.conversation_id = conversation_id
        self.pid = pid
        self.host = host
        self.since = since
        self.this_process = this_process
        when = f", since {since.isoformat(timespec='seconds')}" if since is not None else ""
        if this_process:
            message = (
                f"conversation {conversation_id} is already open for writing in this process "
                f"(pid {pid}{when}), by another ConversationService on the same file: open it "
                "through that service, or close it there first"
            )
        else:
            holder = (
                f"pid {pid} on host {host}{when}"
                if pid is not None
                else "a process that left no record of itself"
            )
            message = (
                f"conversation {conversation_id} is open for writing in another process "
                f"({holder}); one process writes a conversation at a time: wait until that "
                "process ends its turn and closes the conversation, or end that process, then "
                "open it again"
            )
        super().__init__(message)


class ArtifactError(CorrectableError):
    """An artifact tool call the model can correct."""


class ArtifactNotFound(ArtifactError):
    """No artifact of the requested id is kept in this conversation.

    The requested id is not repeated (it is the model's own text); the known ids are listed.

    Attributes:
        known: The ids of the artifacts this conversation keeps, oldest first.
    """

    def __init__(self, known: Sequence[str]) -> None:
        self.known = tuple(known)
        if not self.known:
            listed = "none: this conversation keeps no artifact"
        elif len(self.known) <= _LISTED_IDS:
            listed = ", ".join(self.known)
        else:
            recent = ", ".join(self.known[-_LISTED_IDS:])
            listed = f"{recent} (the {_LISTED_IDS} most recent of {len(self.known)})"
        super().__init__(f"No artifact with that id is kept here. Known artifact ids: {listed}")


class ArtifactPathError(ArtifactError):
    """A field path that does not resolve in an artifact.

    The message names the part of the path that resolved (rebuilt from the artifact, not copied
    from the request) and what is there, so the model can pick a path that exists.
    """


class ArtifactSearchError(ArtifactError):
    """A search that cannot be run as asked (an empty query, a result count out of range)."""
