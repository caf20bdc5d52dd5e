"""``nucleo serve`` refuses to listen where it would be unsafe, and to use an unsafe token."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _server_harness import make_project, nucleo_serve, server_environment


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.com"])
def test_a_public_address_is_refused_without_allow_remote(tmp_path: Path, host: str) -> None:
    """A non-loopback --host without --allow-remote exits 2 before listening, saying why."""
    project = make_project(tmp_path)
    done = nucleo_serve(project, "--host", host, "--port", "0")
    assert done.returncode == 2
    assert f"refusing to listen on {host}" in done.stderr
    assert "--allow-remote" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (project / ".nucleo" / "api-token").exists()  # nothing was generated either


def test_allow_remote_still_needs_a_token_configured_beforehand(tmp_path: Path) -> None:
    """--allow-remote with no token yet: refused; the token made now is for a loopback start."""
    project = make_project(tmp_path)
    done = nucleo_serve(project, "--host", "0.0.0.0", "--port", "0", "--allow-remote")
    assert done.returncode == 2
    assert "token generated just now" in done.stderr
    assert "NUCLEO_API_TOKEN" in done.stderr


def test_a_token_file_other_users_can_read_is_refused(tmp_path: Path) -> None:
    """A token file with group or other permissions fails closed, with the fix."""
    project = make_project(tmp_path)
    token = project / ".nucleo" / "api-token"
    token.parent.mkdir()
    token.write_text("a" * 43 + "\n", encoding="utf-8")
    os.chmod(token, 0o644)
    done = nucleo_serve(project, "--port", "0")
    assert done.returncode == 2
    assert "can be read or written by other users" in done.stderr
    assert "a" * 43 not in done.stderr


def test_a_short_token_in_the_environment_is_refused(tmp_path: Path) -> None:
    """$NUCLEO_API_TOKEN shorter than 22 characters is refused without being printed."""
    project = make_project(tmp_path)
    environment = server_environment(project, NUCLEO_API_TOKEN="short-secret")
    done = nucleo_serve(project, "--port", "0", environment=environment)
    assert done.returncode == 2
    assert "NUCLEO_API_TOKEN is shorter than 22 characters" in done.stderr
    assert "short-secret" not in done.stderr


def test_a_token_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    """A symbolic link planted at the token's path is not followed: the start fails closed."""
    project = make_project(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("b" * 43 + "\n", encoding="utf-8")
    os.chmod(elsewhere, 0o600)
    (project / ".nucleo").mkdir()
    (project / ".nucleo" / "api-token").symlink_to(elsewhere)
    done = nucleo_serve(project, "--port", "0")
    assert done.returncode == 2
    assert "not a symbolic link" in done.stderr
    assert "b" * 43 not in done.stderr
    assert "Traceback" not in done.stderr


def test_allow_remote_with_a_configured_token_passes_the_address_check() -> None:
    """With --allow-remote and a token set beforehand, a public address is allowed to bind."""
    from nucleo_core.server import ApiToken, ServerSettings, check_bind

    configured = ApiToken("c" * 43, "environment")
    check_bind(ServerSettings(host="0.0.0.0", allow_remote=True), configured)  # no error
    check_bind(ServerSettings(host="127.0.0.1"), ApiToken("c" * 43, "generated"))
