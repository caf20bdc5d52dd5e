"""`StoreURL`: which backend keeps conversations, approvals and the audit, and where.

One URL for every concern:

- ``sqlite:///path/to/folder`` (or ``sqlite:relative/folder``): one SQLite file per concern in
  that folder (``conversations.sqlite3``, ``approvals.sqlite3``, ``audit.sqlite3``). The
  embedded default; one machine only.
- ``postgresql://user@host:port/db`` (or ``postgres://``; libpq's parameters as query
  arguments, ``?host=/run/postgresql`` for a unix socket): every concern in one PostgreSQL
  database, shared by every worker on every host that reaches it.

`resolve_store_url` finds the URL in force: the caller's (``--store``), else
``$NUCLEO_STORE_URL``, else ``store`` in ``nucleo.toml`` or ``[tool.nucleo]`` of
``pyproject.toml`` in the project folder; else ``None`` (each concern's own SQLite default).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit, urlunsplit

from nucleo_core._project import project_folder
from nucleo_core._project_table import NUCLEO_TOML, PYPROJECT_TOML, read_table, table_keys
from nucleo_core.stores.errors import StoreURLError

__all__ = [
    "STORE_ENVIRONMENT_VARIABLE",
    "StoreURL",
    "as_store_url",
    "parse_store_url",
    "resolve_store_url",
]

#: Names the store URL, over the project's configuration.
STORE_ENVIRONMENT_VARIABLE: Final = "NUCLEO_STORE_URL"

_SQLITE_FILES: Final = {
    "conversations": "conversations.sqlite3",
    "approvals": "approvals.sqlite3",
    "audit": "audit.sqlite3",
}

Concern = Literal["conversations", "approvals", "audit"]


@dataclass(frozen=True, slots=True)
class StoreURL:
    """A parsed store URL.

    Attributes:
        backend: ``"sqlite"`` or ``"postgresql"``.
        url: The URL as given (a PostgreSQL one is passed to libpq as it is).
        folder: For SQLite, the folder of the files; ``None`` for PostgreSQL.
    """

    backend: Literal["sqlite", "postgresql"]
    url: str
    folder: Path | None = None

    @property
    def redacted(self) -> str:
        """The URL with any password replaced by ``***``: what messages and logs show."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        user = f"{parts.username}:***@" if parts.username else ":***@"
        return urlunsplit(parts._replace(netloc=user + host))

    def sqlite_file(self, concern: Concern) -> Path:
        """The SQLite file of ``concern`` (for a SQLite URL only)."""
        if self.folder is None:
            raise StoreURLError(f"{self.redacted} is not a SQLite store URL")
        return self.folder / _SQLITE_FILES[concern]

    def __str__(self) -> str:
        return self.redacted


def parse_store_url(url: str, *, base: Path | None = None) -> StoreURL:
    """Parse ``url``; a relative SQLite folder is taken relative to ``base`` (else as is).

    Raises:
        StoreURLError: The URL is empty, of another scheme, or a SQLite URL without a path.
    """
    if not isinstance(url, str) or not url.strip():
        raise StoreURLError(
            "the store URL is empty: give sqlite:///path/to/folder or "
            "postgresql://user@host/database"
        )
    text = url.strip()
    scheme, _, rest = text.partition(":")
    scheme = scheme.lower()
    if scheme in ("postgresql", "postgres"):
        if not rest.startswith("//"):
            raise StoreURLError(
                f"store URL {text!r}: a PostgreSQL URL reads postgresql://user@host/database"
            )
        return StoreURL("postgresql", text)
    if scheme == "sqlite":
        path = rest[2:] if rest.startswith("//") else rest
        if not path:
            raise StoreURLError(
                f"store URL {text!r} names no folder: write sqlite:///absolute/folder or "
                "sqlite:relative/folder"
            )
        folder = Path(path).expanduser()
        if not folder.is_absolute() and base is not None:
            folder = base / folder
        return StoreURL("sqlite", text, folder)
    raise StoreURLError(
        f"store URL {text!r}: unknown scheme {scheme!r}; nucleo keeps its state in "
        "sqlite:///path/to/folder or postgresql://user@host/database"
    )


def as_store_url(url: StoreURL | str) -> StoreURL:
    """``url`` parsed (`parse_store_url`), unless it is a `StoreURL` already."""
    return url if isinstance(url, StoreURL) else parse_store_url(url)


def resolve_store_url(
    given: str | None = None, *, start: str | os.PathLike[str] | None = None
) -> StoreURL | None:
    """The store URL in force, or ``None`` when nothing names one (the SQLite defaults).

    Args:
        given: The caller's URL (``--store``); wins over everything.
        start: Where to look for the project folder (the working directory).

    Raises:
        StoreURLError: A URL found is malformed, or the configuration's ``store`` is not a
            string (the message says where it came from).
    """
    if given:
        return parse_store_url(given)
    environment = os.environ.get(STORE_ENVIRONMENT_VARIABLE)
    if environment:
        return _parsed(environment, f"${STORE_ENVIRONMENT_VARIABLE}", None)
    folder = project_folder(start)
    for name in (NUCLEO_TOML, PYPROJECT_TOML):
        file = folder / name
        if not file.is_file():
            continue
        configured = _configured(file)
        if configured is None:
            return None
        return _parsed(configured, f"{file} [{'.'.join((*table_keys(file, ()), 'store'))}]", folder)
    return None


def _parsed(url: str, origin: str, base: Path | None) -> StoreURL:
    try:
        return parse_store_url(url, base=base)
    except StoreURLError as exc:
        raise StoreURLError(f"{origin}: {exc}") from exc


def _configured(file: Path) -> str | None:
    table, _ = read_table(file, (), StoreURLError)
    if table is None or "store" not in table:
        return None
    value = table["store"]
    if not isinstance(value, str):
        raise StoreURLError(
            f"{file}: store must be a string (sqlite:///folder or postgresql://user@host/db)"
        )
    return value
