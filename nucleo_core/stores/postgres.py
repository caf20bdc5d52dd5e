"""`PostgresDatabase`: one PostgreSQL database shared by the stores, and their migrations.

Imported only when a ``postgresql://`` store URL is used: it imports ``psycopg`` (the optional
extra ``nucleo-core[postgres]``), which ``import nucleo_core`` never does.

- **One pool per database and process**: `database` returns the process's `PostgresDatabase`
  of a URL, whose `psycopg_pool.ConnectionPool` every store of that URL borrows from. A forked
  child gets pools of its own (a connection must not be shared across a fork).
- **Schema versions**: the table ``nucleo_schema`` holds one row per concern (``component``,
  ``version``). `PostgresDatabase.migrate` runs a concern's forward-only steps from its version
  to the latest in one transaction, under a transaction-level advisory lock, so that workers
  starting at once migrate once and the others wait for it, then see the new version. A store
  of a later version than the code raises `StoreVersionError` and is not touched.
- **Failure**: every psycopg error is turned into the caller's error type, naming the URL with
  its password hidden.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final, final

from nucleo_core.stores.errors import StoreVersionError
from nucleo_core.stores.url import StoreURL, as_store_url

if TYPE_CHECKING:
    import psycopg
    from psycopg.rows import TupleRow
    from psycopg_pool import ConnectionPool

__all__ = ["PostgresDatabase", "advisory_key", "database"]

#: The advisory lock every migration of every concern takes (a transaction-level lock).
_MIGRATION_LOCK: Final = "nucleo.schema"

_SCHEMA_TABLE: Final = """
CREATE TABLE IF NOT EXISTS nucleo_schema (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)
"""

#: Libpq's keepalive settings: a holder whose host vanished (no FIN ever comes) is noticed
#: by the server within about a minute, and its session-level locks released.
_KEEPALIVES: Final = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}

#: The most sessions holding conversations at once, per process and database.
_HOLD_SESSIONS: Final = 64

_DATABASES: dict[tuple[int, str], PostgresDatabase] = {}
_DATABASES_LOCK = threading.Lock()


def advisory_key(*parts: str) -> int:
    """A signed 64-bit advisory-lock key naming ``parts`` (collisions: one in 2**64)."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def database(url: str | StoreURL) -> PostgresDatabase:
    """This process's `PostgresDatabase` of ``url`` (one pool per URL and process)."""
    parsed = as_store_url(url)
    key = (os.getpid(), parsed.url)
    with _DATABASES_LOCK:
        found = _DATABASES.get(key)
        if found is None or found.closed:
            found = _DATABASES[key] = PostgresDatabase(parsed)
        return found


@final
class PostgresDatabase:
    """A PostgreSQL database reached through a connection pool.

    Args:
        url: The ``postgresql://`` store URL.
        max_size: The most connections the pool opens.
    """

    __slots__ = ("_closed", "_holds", "_lock", "_pool", "max_size", "url")

    def __init__(self, url: StoreURL, *, max_size: int = 8) -> None:
        self.url = url
        self.max_size = max_size
        self._pool: ConnectionPool[psycopg.Connection[TupleRow]] | None = None
        self._holds: ConnectionPool[psycopg.Connection[TupleRow]] | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._closed

    def _get_pool(
        self, error: Callable[[str], Exception], *, holds: bool = False
    ) -> ConnectionPool[psycopg.Connection[TupleRow]]:
        with self._lock:
            found = self._holds if holds else self._pool
            if found is not None:
                return found
            if self._closed:
                raise error(f"the store {self.url} was closed")
            try:
                import psycopg  # noqa: F401  (checked here for a clear message)
                from psycopg_pool import ConnectionPool
            except ImportError as exc:
                raise error(
                    f"the store {self.url} is on PostgreSQL, which needs psycopg 3: "
                    'python3 -m pip install "psycopg[binary,pool]>=3.2" (the extra '
                    "nucleo-core[postgres] pins it)"
                ) from exc
            # The sessions that hold conversations are kept apart: one is held for as long as
            # its conversation is open, and must not starve the journal's transactions.
            pool: ConnectionPool[psycopg.Connection[TupleRow]] = ConnectionPool(
                self.url.url,
                min_size=0 if holds else 1,
                max_size=_HOLD_SESSIONS if holds else self.max_size,
                kwargs={"autocommit": True, **_KEEPALIVES},
                open=False,
                name="nucleo-holds" if holds else "nucleo",
                timeout=30.0,
            )
            try:
                pool.open(wait=not holds, timeout=30.0)
            except Exception as exc:
                pool.close()
                raise error(f"cannot connect to the store {self.url}: {exc}") from exc
            if holds:
                self._holds = pool
            else:
                self._pool = pool
            return pool

    @contextmanager
    def transaction(
        self, doing: str, error: Callable[[str], Exception], *, pipeline: bool = False
    ) -> Iterator[psycopg.Cursor[TupleRow]]:
        """A cursor inside one transaction on a pooled connection, committed on success.

        A psycopg error (and a lost connection) rolls the transaction back and raises
        ``error("cannot <doing>: ...")``.

        With ``pipeline``, the connection is in pipeline mode: statements are sent without
        waiting for each one's answer, up to the first result read (or the commit), so that
        ``BEGIN``, the writes and ``COMMIT`` cost one round trip to the server. A statement's
        failure is raised when its result is read, or at the commit, and rolls back all.
        """
        import psycopg

        pool = self._get_pool(error)
        try:
            with pool.connection() as connection, contextlib.ExitStack() as stack:
                if pipeline:
                    stack.enter_context(connection.pipeline())
                stack.enter_context(connection.transaction())
                yield stack.enter_context(connection.cursor())
        except psycopg.Error as exc:
            raise error(f"cannot {doing} ({self.url}): {exc}") from exc

    def hold_session(self, error: Callable[[str], Exception]) -> psycopg.Connection[TupleRow]:
        """A session of its own for session-level locks, until `end_session` (autocommit).

        Taken from a second pool, of sessions that hold locks, so that opening a conversation
        does not start a server process each time. Its locks last as long as the caller keeps
        it: give it back with `end_session` once they are released; the death of this process
        ends the session, and its locks, however it dies.
        """
        self._get_pool(error)  # the same clear message when psycopg is missing
        pool = self._get_pool(error, holds=True)
        try:
            return pool.getconn()
        except Exception as exc:  # a PoolTimeout, or psycopg's errors
            raise error(f"cannot connect to the store {self.url}: {exc}") from exc

    def end_session(self, connection: psycopg.Connection[TupleRow], *, released: bool) -> None:
        """Give back a `hold_session`; closed first unless its locks were ``released``."""
        if not released:
            with contextlib.suppress(Exception):
                connection.close()  # its locks end with the session
        pool = self._holds
        if pool is None:
            with contextlib.suppress(Exception):
                connection.close()
            return
        with contextlib.suppress(Exception):
            pool.putconn(connection)

    def migrate(
        self,
        component: str,
        steps: Sequence[str],
        error: Callable[[str], Exception],
    ) -> int:
        """Bring ``component``'s tables to version ``len(steps)``; the version found before.

        ``steps[n]`` is the SQL (statements separated by ``;``) from version ``n`` to ``n + 1``.
        Forward-only, in one transaction under the migration lock: of several processes
        starting at once, one migrates and the others find it done.

        Raises:
            StoreVersionError: The store holds a later version of ``component``.
        """
        latest = len(steps)
        with self.transaction(f"migrate the {component} store", error) as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key(_MIGRATION_LOCK),))
            cursor.execute(_SCHEMA_TABLE)
            cursor.execute("SELECT version FROM nucleo_schema WHERE component = %s", (component,))
            row = cursor.fetchone()
            found = 0 if row is None else int(row[0])
            if found > latest:
                raise StoreVersionError(str(self.url), component, found, latest)
            for step in steps[found:]:
                for statement in step.split(";"):
                    if statement.strip():
                        cursor.execute(statement)
            if found < latest:
                cursor.execute(
                    "INSERT INTO nucleo_schema (component, version) VALUES (%s, %s) "
                    "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                    (component, latest),
                )
        return found

    def versions(self, error: Callable[[str], Exception]) -> dict[str, int]:
        """Every concern's schema version in the store (nothing migrated)."""
        with self.transaction("read the schema versions", error) as cursor:
            cursor.execute("SELECT to_regclass('nucleo_schema') IS NOT NULL")
            row = cursor.fetchone()
            if row is None or not row[0]:
                return {}
            cursor.execute("SELECT component, version FROM nucleo_schema ORDER BY component")
            return {str(name): int(version) for name, version in cursor.fetchall()}

    def close(self) -> None:
        """Close both pools (a session taken by `hold_session` is closed with its pool)."""
        with self._lock:
            self._closed = True
            pools = (self._pool, self._holds)
            self._pool = self._holds = None
        for pool in pools:
            if pool is not None:
                pool.close()
