"""The pin store's SQLite file: its schema, one transaction per operation, rows read checked.

Every SQLite failure is an `MCPPinStoreError` that says how to fix the file; a stored
definition whose digest does not match it is never trusted.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final, TypeVar

from nucleo_core.mcp._pin_definition import canonical_json, definition_digest
from nucleo_core.mcp._pin_values import Pin, Quarantine
from nucleo_core.mcp.errors import MCPPinStoreError

__all__ = ["PinFile"]

_R = TypeVar("_R")

_SCHEMA_VERSION: Final = 1
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS servers (
    server TEXT PRIMARY KEY,
    first_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS pins (
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    digest TEXT NOT NULL,
    definition TEXT NOT NULL,
    pinned_at TEXT NOT NULL,
    PRIMARY KEY (server, tool)
);
CREATE TABLE IF NOT EXISTS quarantine (
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    reason TEXT NOT NULL,
    digest TEXT NOT NULL,
    definition TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (server, tool)
);
"""
_TABLES: Final = frozenset({"servers", "pins", "quarantine"})
#: How long a writer waits for another process holding the store (a gateway, a thinker).
_BUSY_TIMEOUT: Final = 30.0


class PinFile:
    """The SQLite file of a `PinStore`, opened for each operation and closed after it.

    Args:
        path: The SQLite file; created (with its folder) when first written.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _read(
        self, rows: Callable[[sqlite3.Connection, str | None], tuple[_R, ...]], server: str | None
    ) -> tuple[_R, ...]:
        """``rows`` of ``server`` (or every server) read in one transaction; none without a file."""
        if not self.path.exists():
            return ()
        with self._transaction(write=False) as db:
            return rows(db, server)

    @contextlib.contextmanager
    def _transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction on the store; every SQLite failure as `MCPPinStoreError`."""
        try:
            if write:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise self._unreadable(exc) from exc
        try:
            try:
                # IMMEDIATE: two processes checking one server's first listing at once must
                # not both decide it was never seen.
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                self._prepare(db, write=write)
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise self._unreadable(exc) from exc
        finally:
            db.close()

    def _prepare(self, db: sqlite3.Connection, *, write: bool) -> None:
        """Check the file is a pin store of this version (creating the schema when empty)."""
        (version,) = db.execute("PRAGMA user_version").fetchone()
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version == 0 and not tables:
            if not write:
                return  # an empty file read before anything was written: nothing is pinned
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
            return
        if version != _SCHEMA_VERSION or not _TABLES.issubset(tables):
            raise MCPPinStoreError(
                f"{self.path} is not a pin store nucleo can read (schema version {version}, "
                f"tables {', '.join(sorted(tables)) or 'none'}). {self._fix()}"
            )

    def _pins(self, db: sqlite3.Connection, server: str | None) -> tuple[Pin, ...]:
        if not self._has_tables(db):
            return ()
        rows = db.execute(
            "SELECT server, tool, digest, definition, pinned_at FROM pins"
            + (" WHERE server = ?" if server is not None else "")
            + " ORDER BY server, tool",
            (server,) if server is not None else (),
        ).fetchall()
        return tuple(
            Pin(
                server=row[0],
                tool=row[1],
                digest=row[2],
                definition=self._definition(row[0], row[1], row[2], row[3]),
                pinned_at=row[4],
            )
            for row in rows
        )

    def _quarantined(self, db: sqlite3.Connection, server: str | None) -> tuple[Quarantine, ...]:
        if not self._has_tables(db):
            return ()
        rows = db.execute(
            "SELECT q.server, q.tool, q.reason, q.digest, q.definition, q.seen_at, p.digest, "
            "p.definition FROM quarantine q LEFT JOIN pins p ON p.server = q.server AND "
            "p.tool = q.tool"
            + (" WHERE q.server = ?" if server is not None else "")
            + " ORDER BY q.server, q.tool",
            (server,) if server is not None else (),
        ).fetchall()
        found = []
        for name, tool, reason, digest, definition, seen_at, pinned_digest, pinned in rows:
            if reason not in ("changed", "new"):
                raise MCPPinStoreError(
                    f"{self.path}: the quarantine of '{tool}' on MCP server '{name}' has an "
                    f"unknown reason. {self._fix()}"
                )
            found.append(
                Quarantine(
                    server=name,
                    tool=tool,
                    reason=reason,
                    digest=digest,
                    definition=self._definition(name, tool, digest, definition),
                    pinned=None
                    if pinned is None
                    else self._definition(name, tool, pinned_digest, pinned),
                    pinned_digest=pinned_digest,
                    seen_at=seen_at,
                    store=self.path,
                )
            )
        return tuple(found)

    def _has_tables(self, db: sqlite3.Connection) -> bool:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        return bool(version)

    def _definition(self, server: str, tool: str, digest: object, text: object) -> dict[str, Any]:
        """A stored definition, checked against its digest (a corrupt row is never trusted)."""
        try:
            definition = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            definition = None
        if not isinstance(definition, dict) or definition_digest(definition) != digest:
            raise MCPPinStoreError(
                f"{self.path}: the stored definition of '{tool}' on MCP server '{server}' does "
                f"not match its digest (the file is corrupt or was edited). {self._fix()}"
            )
        return definition

    @staticmethod
    def _write_pin(
        db: sqlite3.Connection,
        server: str,
        tool: str,
        digest: str,
        definition: Mapping[str, Any],
        now: str,
    ) -> None:
        db.execute(
            "INSERT OR REPLACE INTO pins VALUES (?, ?, ?, ?, ?)",
            (server, tool, digest, canonical_json(definition), now),
        )

    def _unreadable(self, exc: BaseException) -> MCPPinStoreError:
        if isinstance(exc, MCPPinStoreError):
            return exc
        return MCPPinStoreError(f"the pin store {self.path} cannot be used ({exc}). {self._fix()}")

    def _fix(self) -> str:
        return (
            "Until it is fixed, every tool of the servers pinned there is withheld. Fix: restore "
            f"the file from a backup, or move it aside (`mv {self.path} {self.path}.broken`) so "
            "that the tools are pinned afresh, trusting what the servers publish then; or set "
            "pin_store to another file, or pin = false for a server you do not want pinned"
        )
