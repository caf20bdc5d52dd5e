"""Where the audit record is kept, and whether it keeps arguments, as configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from nucleo_core.guard.audit import (
    AUDIT_ENVIRONMENT_VARIABLE,
    AuditConfigError,
    AuditEvent,
    AuditLog,
    audit_settings,
    project_folder,
)


@pytest.fixture(autouse=True)
def _no_audit_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(AUDIT_ENVIRONMENT_VARIABLE, raising=False)


def test_the_default_is_the_project_s_nucleo_folder_going_up(tmp_path: Path) -> None:
    """From a subfolder, the record is .nucleo/audit.sqlite3 beside the nearest pyproject.toml."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n", encoding="utf-8")
    deep = tmp_path / "src" / "app"
    deep.mkdir(parents=True)
    settings = audit_settings(deep)
    assert project_folder(deep) == tmp_path
    assert settings.path == tmp_path / ".nucleo" / "audit.sqlite3"
    assert settings.record_arguments is False
    assert settings.origin == "default"


def test_pyproject_s_audit_table_sets_the_path_and_record_arguments(tmp_path: Path) -> None:
    """[tool.nucleo.guard.audit] path (relative to the file) and record_arguments are read."""
    (tmp_path / "pyproject.toml").write_text(
        "[tool.nucleo.guard.audit]\npath = 'logs/audit.db'\nrecord_arguments = true\n",
        encoding="utf-8",
    )
    settings = audit_settings(tmp_path)
    assert settings.path == tmp_path / "logs" / "audit.db"
    assert settings.record_arguments is True
    log = AuditLog.open(start=tmp_path)
    log.record(AuditEvent(kind="call_start", arguments={"a": 1}))
    (record,) = log.read()
    assert record.arguments == {"a": 1}
    log.close()
    assert (tmp_path / "logs" / "audit.db").is_file()


def test_nucleo_toml_wins_over_pyproject_and_the_variable_over_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nucleo.toml's [guard.audit] is read before pyproject.toml; $NUCLEO_AUDIT names the file."""
    (tmp_path / "pyproject.toml").write_text(
        "[tool.nucleo.guard.audit]\npath = 'a.db'\n", encoding="utf-8"
    )
    (tmp_path / "nucleo.toml").write_text("[guard.audit]\npath = 'b.db'\n", encoding="utf-8")
    assert audit_settings(tmp_path).path == tmp_path / "b.db"
    monkeypatch.setenv(AUDIT_ENVIRONMENT_VARIABLE, str(tmp_path / "c.db"))
    settings = audit_settings(tmp_path)
    assert settings.path == tmp_path / "c.db"
    assert settings.origin == f"${AUDIT_ENVIRONMENT_VARIABLE}"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("record_argument = true", "unknown key record_argument"),
        ("record_arguments = 'yes'", "record_arguments must be true or false"),
        ("path = 3", "path must be a string"),
    ],
)
def test_a_malformed_audit_table_is_refused_naming_the_file_and_key(
    tmp_path: Path, table: str, message: str
) -> None:
    """A typo or a wrong type in the audit table fails loudly instead of being ignored."""
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.nucleo.guard.audit]\n{table}\n", encoding="utf-8"
    )
    with pytest.raises(AuditConfigError, match=message) as caught:
        audit_settings(tmp_path)
    assert "pyproject.toml" in str(caught.value)
