"""Unit tests of the guard's configuration: [tool.nucleo.guard] and [guard], read from files."""

from __future__ import annotations

from pathlib import Path

import pytest
from _guard_kit import DELETE, LOOKUP, UNDECLARED, WRITE, Auditor, Reviewer

from nucleo_core import MisuseError, ToolHub
from nucleo_core.guard import (
    DEFAULT_HOOK_TIMEOUT,
    Decision,
    GuardConfigError,
    PermissionGuard,
    discover_guard_config,
    guard_config_from_file,
)

HUB = ToolHub()

PYPROJECT = f"""\
[project]
name = "an-app"

[tool.nucleo.guard]
default = {{ medium = "confirm" }}
hook_timeout = 0.5

[[tool.nucleo.guard.rules]]
name = "no-deletes"
tool = "delete_*"
decision = "deny"
reason = "deleting is done by a person"

[[tool.nucleo.guard.rules]]
thinker = "{Reviewer.__module__}:Reviewer"
risk = "high"
decision = "auto"

[tool.nucleo.guard.audit]
path = "audit.sqlite"
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_pyproject_declares_the_default_map_rules_and_time_limit(tmp_path: Path) -> None:
    """Each key of [tool.nucleo.guard] takes effect, and the origin names the file and table."""
    path = write(tmp_path, "pyproject.toml", PYPROJECT)
    config = guard_config_from_file(path)
    assert config is not None
    assert config.origin == f"{path} [tool.nucleo.guard]"
    assert config.project == tmp_path
    assert config.hook_timeout == 0.5
    policy = config.policy
    assert policy.decide(Auditor(hub=HUB), WRITE).decision is Decision.CONFIRM
    assert policy.decide(Auditor(hub=HUB), LOOKUP).decision is Decision.AUTO
    denied = policy.decide(Reviewer(hub=HUB), DELETE)
    assert (denied.decision, denied.decided_by) == (Decision.DENY, "rule:no-deletes")
    assert "deleting is done by a person" in denied.reason
    relaxed = policy.decide(Reviewer(hub=HUB), UNDECLARED)
    assert (relaxed.decision, relaxed.decided_by) == (Decision.AUTO, "rule:1")
    assert PermissionGuard.from_config(config).hook_timeout == 0.5


def test_the_audit_table_is_kept_unread_for_the_audit_record(tmp_path: Path) -> None:
    """[tool.nucleo.guard.audit] is allowed and handed on as written."""
    config = guard_config_from_file(write(tmp_path, "pyproject.toml", PYPROJECT))
    assert config is not None
    assert dict(config.tables) == {"audit": {"path": "audit.sqlite"}}


def test_nucleo_toml_guard_table_wins_over_pyproject_in_its_folder(tmp_path: Path) -> None:
    """In one folder nucleo.toml's [guard] decides; pyproject.toml's table is not read."""
    write(tmp_path, "pyproject.toml", PYPROJECT)
    write(tmp_path, "nucleo.toml", '[guard]\ndefault = { low = "notify" }\n')
    config = discover_guard_config(tmp_path)
    assert config.origin == f"{tmp_path / 'nucleo.toml'} [guard]"
    assert config.policy.decide(None, LOOKUP).decision is Decision.NOTIFY
    assert config.policy.decide(None, DELETE).decision is Decision.CONFIRM


def test_discovery_goes_up_past_a_pyproject_without_the_table(tmp_path: Path) -> None:
    """From a package folder whose pyproject has no guard table, the parent's table is found."""
    write(tmp_path, "pyproject.toml", PYPROJECT)
    inner = tmp_path / "packages" / "inner"
    write(inner, "pyproject.toml", '[project]\nname = "inner"\n')
    config = discover_guard_config(inner)
    assert config.origin == f"{tmp_path / 'pyproject.toml'} [tool.nucleo.guard]"


def test_a_nucleo_toml_without_guard_means_the_defaults_there(tmp_path: Path) -> None:
    """A project's nucleo.toml stops the search: the defaults, not a parent's rules."""
    write(tmp_path, "pyproject.toml", PYPROJECT)
    project = tmp_path / "project"
    write(project, "nucleo.toml", "[models]\n")
    config = discover_guard_config(project)
    assert config.policy.rules == ()
    assert config.hook_timeout == DEFAULT_HOOK_TIMEOUT
    assert config.origin == f"defaults ({project / 'nucleo.toml'} has no [guard] table)"


def test_nothing_configured_gives_the_defaults(tmp_path: Path) -> None:
    """No file on the way up: the default policy, and a file without the table reads None."""
    assert discover_guard_config(tmp_path).policy.decide(None, DELETE).decision is Decision.CONFIRM
    assert guard_config_from_file(write(tmp_path, "pyproject.toml", "[project]\n")) is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("colour = 1", "unknown key(s) colour; allowed: default, rules, hook_timeout"),
        ('default = { high = "maybe" }', 'default.high must be one of "auto", "notify"'),
        ('default = { huge = "deny" }', 'default: unknown risk level; allowed: "low"'),
        ("hook_timeout = 0", "hook_timeout must be a positive number of seconds"),
        ('hook_timeout = "5"', "hook_timeout must be a positive number of seconds"),
        ('rules = "deny"', "rules must be an array of tables"),
        ('[[tool.nucleo.guard.rules]]\ntool = "x"', "rules[0]: decision is required"),
        (
            '[[tool.nucleo.guard.rules]]\ndecision = "block"',
            'rules[0]: decision must be one of "auto", "notify", "confirm", "deny"',
        ),
        (
            '[[tool.nucleo.guard.rules]]\ndecision = "deny"\nrisk = "huge"',
            'rules[0]: risk must be one of "low", "medium", "high"',
        ),
        (
            '[[tool.nucleo.guard.rules]]\ndecision = "deny"\ntools = "x"',
            "rules[0]: unknown key(s) tools; allowed: name, thinker, tool, source, risk",
        ),
        ('[[tool.nucleo.guard.rules]]\ndecision = "deny"\ntool = 3', "rules[0]: tool must be a"),
        ('[[tool.nucleo.guard.rules]]\ndecision = "deny"\ntool = ""', "tool must not be empty"),
        ("audit = 3", "audit must be a table"),
    ],
)
def test_a_malformed_table_names_the_file_the_key_and_the_allowed_values(
    tmp_path: Path, table: str, message: str
) -> None:
    """Every malformed key raises GuardConfigError (a MisuseError) with the file and the fix."""
    path = write(tmp_path, "pyproject.toml", f"[tool.nucleo.guard]\n{table}\n")
    with pytest.raises(GuardConfigError) as raised:
        discover_guard_config(tmp_path)
    assert str(raised.value).startswith(f"{path} [tool.nucleo.guard]: ")
    assert message in str(raised.value)
    assert isinstance(raised.value, MisuseError)


def test_a_guard_key_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    """A ``guard = "off"`` in nucleo.toml is refused rather than ignored."""
    path = write(tmp_path, "nucleo.toml", 'guard = "off"\n')
    with pytest.raises(GuardConfigError, match=f"{path}: guard must be a table"):
        discover_guard_config(tmp_path)


def test_invalid_toml_is_refused_with_the_file(tmp_path: Path) -> None:
    """A file that is not TOML raises GuardConfigError naming it."""
    path = write(tmp_path, "nucleo.toml", "[guard\n")
    with pytest.raises(GuardConfigError, match="not valid TOML") as raised:
        discover_guard_config(tmp_path)
    assert str(path) in str(raised.value)
