"""The store backends every store contract test runs against: SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

BACKENDS = ["sqlite", "postgres"]


def store_url(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> str:
    """A fresh, empty store of ``backend``: a SQLite folder, or a PostgreSQL database."""
    if backend == "postgres":
        url: str = request.getfixturevalue("pg_url")
        return url
    return f"sqlite://{tmp_path / 'store'}"
