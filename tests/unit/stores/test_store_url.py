"""The store URL: parsed, resolved from flag, environment and configuration, refused when bad."""

from __future__ import annotations

from pathlib import Path

import pytest

from nucleo_core.guard.audit import AuditStoreError
from nucleo_core.stores import (
    STORE_ENVIRONMENT_VARIABLE,
    StoreURLError,
    StoreVersionError,
    check_store,
    migrate_store,
    open_approvals,
    open_audit,
    open_conversations,
    parse_store_url,
    resolve_store_url,
)


def test_a_sqlite_url_names_a_folder_with_one_file_per_concern(tmp_path: Path) -> None:
    """sqlite:///folder keeps conversations, approvals and the audit in three files there."""
    url = parse_store_url(f"sqlite://{tmp_path}/state")
    assert url.backend == "sqlite"
    assert url.sqlite_file("audit") == tmp_path / "state" / "audit.sqlite3"
    assert url.sqlite_file("conversations").name == "conversations.sqlite3"


def test_a_postgres_url_is_kept_as_given_and_shown_without_its_password() -> None:
    """The password never reaches a message: str() of the URL hides it."""
    url = parse_store_url("postgresql://app:s3cret@db.internal:5432/nucleo")
    assert url.backend == "postgresql"
    assert url.url.endswith("/nucleo")
    assert "s3cret" not in str(url)
    assert "app:***@db.internal:5432" in str(url)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("mysql://root@db/app", "unknown scheme 'mysql'"),
        ("sqlite://", "names no folder"),
        ("postgresql:db", "postgresql://user@host/database"),
    ],
)
def test_a_bad_url_is_refused_saying_what_to_write(text: str, says: str) -> None:
    """A malformed or unknown URL raises StoreURLError naming the problem and the forms."""
    with pytest.raises(StoreURLError, match=says):
        parse_store_url(text)


def test_the_flag_wins_over_the_environment_which_wins_over_the_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--store, then $NUCLEO_STORE_URL, then [tool.nucleo] store, relative to the project."""
    (tmp_path / "pyproject.toml").write_text('[tool.nucleo]\nstore = "sqlite:state"\n')
    monkeypatch.delenv(STORE_ENVIRONMENT_VARIABLE, raising=False)
    configured = resolve_store_url(start=tmp_path)
    assert configured is not None
    assert configured.folder == tmp_path / "state"
    monkeypatch.setenv(STORE_ENVIRONMENT_VARIABLE, "postgresql://env@/db")
    assert str(resolve_store_url(start=tmp_path)) == "postgresql://env@/db"
    assert str(resolve_store_url("postgresql://flag@/db", start=tmp_path)) == (
        "postgresql://flag@/db"
    )


def test_no_url_anywhere_means_each_concern_s_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without flag, variable or key, nothing is resolved: each concern keeps its SQLite default."""
    monkeypatch.delenv(STORE_ENVIRONMENT_VARIABLE, raising=False)
    (tmp_path / "nucleo.toml").write_text("[guard]\n")
    assert resolve_store_url(start=tmp_path) is None


def test_a_bad_configured_url_names_the_file_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configured URL of an unknown scheme is refused, naming nucleo.toml."""
    monkeypatch.delenv(STORE_ENVIRONMENT_VARIABLE, raising=False)
    (tmp_path / "nucleo.toml").write_text('store = "redis://cache"\n')
    with pytest.raises(StoreURLError, match=r"nucleo\.toml.*unknown scheme 'redis'"):
        resolve_store_url(start=tmp_path)


def test_a_postgres_store_newer_than_this_nucleo_refuses_to_open(pg_url: str) -> None:
    """A concern whose tables a later nucleo migrated raises StoreVersionError, untouched."""
    import psycopg

    migrate_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as connection:
        connection.execute("UPDATE nucleo_schema SET version = 99 WHERE component = 'approvals'")
    with pytest.raises(StoreVersionError, match=r"schema version 99.*upgrade nucleo-core"):
        open_approvals(pg_url).list()
    states = {state.component: state.status for state in check_store(pg_url)}
    assert states == {"conversations": "current", "approvals": "newer", "audit": "current"}
    with pytest.raises(StoreVersionError):
        migrate_store(pg_url)


def test_an_audit_reader_does_not_create_the_tables(pg_url: str) -> None:
    """open_audit(create=False) on a store never written says so, and creates nothing."""
    with pytest.raises(AuditStoreError, match="holds no audit record yet"):
        open_audit(pg_url, create=False).verify()
    assert {state.status for state in check_store(pg_url)} == {"absent"}


def test_the_three_concerns_open_on_one_postgres_database(pg_url: str) -> None:
    """One URL serves conversations, approvals and the audit alike."""
    with open_conversations(pg_url) as conversations:
        conversations.close(conversations.open("c", durable=True))
        assert conversations.list_ids() == ["c"]
    assert open_approvals(pg_url).list() == []
    assert open_audit(pg_url).append(["{}"]) == 1
