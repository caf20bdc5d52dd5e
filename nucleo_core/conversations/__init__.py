"""Conversations: where a run's messages live, how they are kept, compacted and rolled back.

- `ConversationService` opens a `ConversationContext` per run: temporary ones live in memory
  and vanish when closed; durable ones are kept in SQLite (`default_store_path`) and survive a
  restart, every change committed as it is made.
- `compact` replaces older turns by a summary, never separating a tool use from its result,
  and carries the registry's ``carried_state()`` in registry order.
- `ArtifactStore.custody` keeps large tool outputs as artifacts with a preview in the
  conversation; `artifact_tools` are the two tools that read them, and an `ArtifactRef` is what
  a sub-thinker is handed.
- `ConversationContext.rollback_to_last_user_utterance` is the abnormal-end discipline: the
  partial turn goes and a `Marker` records why.
- One process writes a durable conversation at a time: opening one held elsewhere raises
  `ConversationBusy`, naming the holder; a dead holder's conversation is taken over.

Importing this package imports neither ``sqlite3`` nor pydantic.
"""

from nucleo_core.conversations.artifact_tools import (
    GET_ARTIFACT_FIELD,
    SEARCH_ARTIFACT_CONTENT,
    ArtifactToolProvider,
    artifact_tools,
)
from nucleo_core.conversations.artifacts import Artifact, ArtifactRef, ArtifactStore
from nucleo_core.conversations.compaction import (
    CompactionResult,
    Summarizer,
    TokenEstimate,
    compact,
    estimate_tokens,
    needs_compaction,
    summary_message,
)
from nucleo_core.conversations.context import ConversationContext
from nucleo_core.conversations.errors import (
    ArtifactError,
    ArtifactNotFound,
    ArtifactPathError,
    ArtifactSearchError,
    ConversationBusy,
    ConversationClosedError,
    ConversationConflict,
    ConversationError,
    ConversationStoreError,
)
from nucleo_core.conversations.journal import ConversationJournal, ConversationSnapshot
from nucleo_core.conversations.marker import ABNORMAL_END, Marker, render_markers
from nucleo_core.conversations.message_codec import (
    decode_message,
    decode_usage,
    encode_message,
    encode_usage,
)
from nucleo_core.conversations.service import (
    CONVERSATIONS_ENVIRONMENT_VARIABLE,
    ConversationService,
    default_store_path,
)

__all__ = [
    "ABNORMAL_END",
    "CONVERSATIONS_ENVIRONMENT_VARIABLE",
    "GET_ARTIFACT_FIELD",
    "SEARCH_ARTIFACT_CONTENT",
    "Artifact",
    "ArtifactError",
    "ArtifactNotFound",
    "ArtifactPathError",
    "ArtifactRef",
    "ArtifactSearchError",
    "ArtifactStore",
    "ArtifactToolProvider",
    "CompactionResult",
    "ConversationBusy",
    "ConversationClosedError",
    "ConversationConflict",
    "ConversationContext",
    "ConversationError",
    "ConversationJournal",
    "ConversationService",
    "ConversationSnapshot",
    "ConversationStoreError",
    "Marker",
    "Summarizer",
    "TokenEstimate",
    "artifact_tools",
    "compact",
    "decode_message",
    "decode_usage",
    "default_store_path",
    "encode_message",
    "encode_usage",
    "estimate_tokens",
    "needs_compaction",
    "render_markers",
    "summary_message",
]
