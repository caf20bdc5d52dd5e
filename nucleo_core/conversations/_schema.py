"""The journal's tables: SQLite's schema with its versions, PostgreSQL's migrations.

Both stores keep the same tables holding the same records (`_journal_sql` reads and writes
them); PostgreSQL's names start with ``nucleo_`` (a shared database) and version under the
``conversations`` component of ``nucleo_schema`` (`nucleo_core.stores.postgres`), SQLite's
version by ``PRAGMA user_version``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "POSTGRES_COMPONENT",
    "POSTGRES_MIGRATIONS",
    "SQLITE_SCHEMA",
    "SQLITE_SCHEMA_VERSION",
    "SQLITE_SKILL_RECORDS",
    "SQLITE_WRITERS",
]

#: The schema the SQLite store writes; a file of a later version is refused.
SQLITE_SCHEMA_VERSION: Final = 3

#: Who writes each conversation held now (version 2). Not tied to ``conversations``: a hold is
#: taken before the conversation it holds is created. A row whose lock is free is a holder that
#: ended without releasing (it died); the next holder replaces it.
SQLITE_WRITERS = """
CREATE TABLE writers (
    conversation_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since TEXT NOT NULL
) WITHOUT ROWID
"""

#: Version 3 keeps each attached skill's record beside its name (``NULL``: attached by name
#: only, as every skill of an earlier version was), so a resumed conversation rebuilds the
#: skill's instructions and ``allowed-tools`` restriction as they were when it was attached.
SQLITE_SKILL_RECORDS = "ALTER TABLE skills ADD COLUMN record TEXT"

#: The tables of version 1; version 2 adds `SQLITE_WRITERS`, version 3 `SQLITE_SKILL_RECORDS`.
SQLITE_SCHEMA = """
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    summary TEXT,
    carried TEXT NOT NULL
);
CREATE TABLE messages (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (conversation_id, position)
) WITHOUT ROWID;
CREATE TABLE skills (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (conversation_id, position)
) WITHOUT ROWID;
CREATE TABLE markers (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL,
    position INTEGER,
    PRIMARY KEY (conversation_id, number)
) WITHOUT ROWID;
CREATE TABLE metadata (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (conversation_id, key)
) WITHOUT ROWID;
CREATE TABLE artifacts (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    content TEXT NOT NULL,
    media_type TEXT NOT NULL,
    created TEXT NOT NULL,
    UNIQUE (conversation_id, id)
);
"""


#: The forward-only steps of the ``conversations`` component: ``MIGRATIONS[n]`` goes from
#: version ``n`` to ``n + 1``. Timestamps are ISO text, as in SQLite, so both read alike.
POSTGRES_MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE nucleo_conversations (
        id TEXT PRIMARY KEY,
        seq BIGSERIAL UNIQUE,
        created TEXT NOT NULL,
        summary TEXT,
        carried TEXT NOT NULL
    );
    CREATE TABLE nucleo_messages (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (conversation_id, position)
    );
    CREATE TABLE nucleo_skills (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        record TEXT,
        PRIMARY KEY (conversation_id, position)
    );
    CREATE TABLE nucleo_markers (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL,
        at TEXT NOT NULL,
        position INTEGER,
        PRIMARY KEY (conversation_id, number)
    );
    CREATE TABLE nucleo_metadata (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (conversation_id, key)
    );
    CREATE TABLE nucleo_artifacts (
        conversation_id TEXT NOT NULL REFERENCES nucleo_conversations(id) ON DELETE CASCADE,
        seq BIGSERIAL,
        id TEXT NOT NULL,
        content TEXT NOT NULL,
        media_type TEXT NOT NULL,
        created TEXT NOT NULL,
        UNIQUE (conversation_id, id)
    );
    CREATE TABLE nucleo_writers (
        conversation_id TEXT PRIMARY KEY,
        token TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        since TEXT NOT NULL
    )
    """,
    # A writer's record lives as long as its session, which a server crash ends: the table
    # needs no write-ahead log (taking and releasing a hold then wait for no disk flush).
    "ALTER TABLE nucleo_writers SET UNLOGGED",
)

POSTGRES_COMPONENT: Final = "conversations"
