"""What every SQLite store does alike: open its file, set it up, and write in one transaction.

The conversations, the approvals and the audit each keep one SQLite file (the embedded
default; `nucleo_core.stores.url`): each opens it with `open_sqlite` (its folder made, one
connection shared by the store's threads, autocommit so that the store says where a
transaction begins), versions its schema by ``PRAGMA user_version`` (`schema_version`), runs
its schema's statements (`run_script`) and writes inside `immediate`. What goes wrong is raised
as the store's own error, in its own words: a store passes the function that makes it. A store
that keeps its connection until it is closed does so through `OneConnection`.

``sqlite3`` is imported when a file is first opened, not with this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "MEMORY",
    "OneConnection",
    "immediate",
    "open_sqlite",
    "readable_schema_version",
    "run_script",
    "schema_version",
]

#: SQLite's name for a database in memory, which has no folder to make.
MEMORY = ":memory:"


def open_sqlite(
    path: str,
    *,
    timeout: float,
    pragmas: Iterable[str],
    prepare: Callable[[sqlite3.Connection], None],
    cannot_open: Callable[[str], Exception],
    cannot_use: Callable[[str], Exception] | None = None,
    create: bool = True,
) -> sqlite3.Connection:
    """A connection to the SQLite file ``path``, set up by ``prepare`` (its schema, migrated).

    The file's folder is made first when ``create``. The connection is in autocommit mode and
    may be used from any thread (the store serialises its use). Each of ``pragmas``
    (``"journal_mode=WAL"``...) is set before ``prepare`` runs; should either fail, the
    connection is closed.

    Raises:
        Exception: ``cannot_open(reason)`` when the file cannot be opened, ``cannot_use(reason)``
            (``cannot_open`` without one) when a pragma or ``prepare`` fails with a SQLite error;
            whatever ``prepare`` raises itself, as it is.
    """
    import sqlite3

    try:
        if create and path != MEMORY:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            path, timeout=timeout, isolation_level=None, check_same_thread=False
        )
    except (OSError, sqlite3.Error) as exc:
        raise cannot_open(str(exc)) from exc
    try:
        for pragma in pragmas:
            connection.execute(f"PRAGMA {pragma}")
        prepare(connection)
    except BaseException as exc:
        connection.close()
        if isinstance(exc, sqlite3.Error):
            raise (cannot_use or cannot_open)(str(exc)) from exc
        raise
    return connection


def schema_version(connection: sqlite3.Connection) -> int:
    """The file's schema version (``PRAGMA user_version``; ``0``: a new file)."""
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    return int(version)


def readable_schema_version(
    connection: sqlite3.Connection,
    newest: int,
    refuse: Callable[[str], Exception],
    store: str,
) -> int:
    """The file's schema version, refusing (``raise refuse(message)``) one newer than ``newest``.

    A file written by a later nucleo is refused rather than misread; ``store`` names it in the
    message (``"the audit store /path/audit.sqlite3"``).
    """
    version = schema_version(connection)
    if version > newest:
        raise refuse(
            f"{store} was written by a later nucleo (schema version {version}; this one reads up "
            f"to {newest}): upgrade nucleo-core to open it"
        )
    return version


def run_script(connection: sqlite3.Connection, script: str) -> None:
    """Execute each statement of ``script`` (separated by ``;``) in the caller's transaction.

    Unlike ``executescript``, which commits whatever transaction is open first.
    """
    for statement in script.split(";"):
        if statement.strip():
            connection.execute(statement)


@contextmanager
def immediate(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction: committed at the end, rolled back on any exception.

    A failed ``COMMIT`` rolls back too: the connection is never left inside a transaction.
    """
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


class OneConnection:
    """Mixin: a store's one connection, opened on first use (`_connect`), kept until `close`.

    The store sets ``path``, ``_connection = None`` and ``_closed = False`` (their slots are the
    mixin's), and gives `_open`
    (its `open_sqlite`) and `_closed_error`. A store dropped without being closed closes its
    connection, so that Python 3.13+ does not warn about it; everything was committed already.
    """

    __slots__ = ("_closed", "_connection")

    path: str
    _connection: sqlite3.Connection | None
    _closed: bool

    def _open(self) -> sqlite3.Connection:
        """The store's connection, opened and set up (`open_sqlite`)."""
        raise NotImplementedError

    def _closed_error(self) -> Exception:
        """The store's error for a use after `_close_connection`."""
        raise NotImplementedError

    def _connect(self) -> sqlite3.Connection:
        """The open connection, opened (`_open`) on first use; the caller holds the store's lock.

        Raises:
            Exception: `_closed_error`'s, once the store was closed; whatever `_open` raises.
        """
        if self._connection is None:
            if self._closed:
                raise self._closed_error()
            self._connection = self._open()
        return self._connection

    def _close_connection(self) -> None:
        """Close the connection for good: a later `_connect` raises `_closed_error`'s."""
        self._closed = True
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def __del__(self) -> None:
        connection = getattr(self, "_connection", None)
        if connection is not None:
            connection.close()
