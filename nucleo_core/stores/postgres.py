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

import hashlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final, final

from nucleo_core.stores.errors import StoreVersionError
from nucleo_core.stores.url import StoreURL, parse_store_url

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

_DATABASES: dict[tuple[int, str], PostgresDatabase] = {}
_DATABASES_LOCK = threading.Lock()


def advisory_key(*parts: str) -> int:
    """A signed 64-bit advisory-lock key naming ``parts`` (collisions: one in 2**64)."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def database(url: str | StoreURL) -> PostgresDatabase:
    """This process's `PostgresDatabase` of ``url`` (one pool per URL and process)."""
    parsed = url if isinstance(url, StoreURL) else parse_store_url(url)
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

    __slots__ = ("_closed", "_lock", "_pool", "max_size", "url")

    def __init__(self, url: StoreURL, *, max_size: int = 8) -> None:
        self.url = url
        self.max_size = max_size
        self._pool: ConnectionPool[psycopg.Connection[TupleRow]] | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._closed

    def _get_pool(
        self, error: Callable[[str], Exception]
    ) -> ConnectionPool[psycopg.Connection[TupleRow]]:
        with self._lock:
            if self._pool is not None:
                return self._pool
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
            pool: ConnectionPool[psycopg.Connection[TupleRow]] = ConnectionPool(
                self.url.url,
                min_size=1,
                max_size=self.max_size,
                kwargs={"autocommit": True, **_KEEPALIVES},
                open=False,
                name="nucleo",
                timeout=30.0,
            )
            try:
                pool.open(wait=True, timeout=30.0)
            except Exception as exc:
                pool.close()
                raise error(f"cannot connect to the store {self.url}: {exc}") from exc
            self._pool = pool
            return pool

    @contextmanager
    def transaction(
        self, doing: str, error: Callable[[str], Exception]
    ) -> Iterator[psycopg.Cursor[TupleRow]]:
        """A cursor inside one transaction on a pooled connection, committed on success.

        A psycopg error (and a lost connection) rolls the transaction back and raises
        ``error("cannot <doing>: ...")``.
        """
        import psycopg

        pool = self._get_pool(error)
        try:
            with (
                pool.connection() as connection,
                connection.transaction(),
                connection.cursor() as cursor,
            ):
                yield cursor
        except psycopg.Error as exc:
            raise error(f"cannot {doing} ({self.url}): {exc}") from exc

    def connect(self, error: Callable[[str], Exception]) -> psycopg.Connection[TupleRow]:
        """A connection of its own (not pooled, autocommit): for session-level locks.

        Its locks last as long as it does: closing it, or the death of this process, releases
        them.
        """
        import psycopg

        self._get_pool(error)  # the same clear message when psycopg is missing
        try:
            return psycopg.connect(self.url.url, autocommit=True, **_KEEPALIVES)  # type: ignore[arg-type]  # libpq keywords
        except psycopg.Error as exc:
            raise error(f"cannot connect to the store {self.url}: {exc}") from exc

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
        """Close the pool (connections of `connect` are their owners' to close)."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
