"""Where MCP servers are configured: pyproject.toml, nucleo.toml and a project's .mcp.json."""

from __future__ import annotations

import json
import logging
import os
import textwrap
from pathlib import Path

import pytest

from nucleo_core import Risk
from nucleo_core.mcp import (
    MCPConfigError,
    MCPServerConfig,
    MCPServers,
    discover_servers,
    servers_from_file,
)


def write(path: Path, text: str) -> Path:
    """Write dedented text to ``path``."""
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_pyproject_declares_servers_with_every_setting(tmp_path: Path) -> None:
    """A [tool.nucleo.mcp.servers.<id>] table gives each setting, checked and typed."""
    write(
        tmp_path / "pyproject.toml",
        """
        [tool.nucleo.mcp.servers.files]
        command = "mcp-files"
        args = ["--root", "."]
        env = { FILES_MODE = "strict" }
        cwd = "work"
        risk = "medium"
        trust_annotations = true
        prefix = "fs"
        timeout = 5
        startup_timeout = 7.5
        thinkers = ["myapp.agents:Researcher"]
        start = "eager"
        shadow = true
        max_restarts = 1
        tools.read_file = { risk = "low", read_only = true }

        [tool.nucleo.mcp.servers.remote]
        url = "https://tools.example/mcp"
        headers = { Authorization = "Bearer token" }
        thinkers = "selector"
        """,
    )
    files, remote = discover_servers(tmp_path)
    assert (files.name, files.command, files.args) == ("files", "mcp-files", ("--root", "."))
    assert files.env == {"FILES_MODE": "strict"}
    assert files.cwd == str(tmp_path / "work")
    assert (files.risk, files.trust_annotations, files.prefix) == (Risk.MEDIUM, True, "fs")
    assert (files.timeout, files.startup_timeout, files.max_restarts) == (5.0, 7.5, 1)
    assert files.thinkers == ("myapp.agents:Researcher",)
    assert (files.start, files.shadow, files.transport) == ("eager", True, "stdio")
    assert files.tools["read_file"].risk == Risk.LOW
    assert files.tools["read_file"].read_only is True
    assert files.tool_name("read_file") == "fs_read_file"
    assert files.describe() == "mcp-files --root ."
    assert (remote.transport, remote.url, remote.thinkers) == (
        "http",
        "https://tools.example/mcp",
        "selector",
    )
    assert remote.headers == {"Authorization": "Bearer token"}
    assert remote.risk is None  # undeclared: its tools count as high


def test_nucleo_toml_wins_over_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    """A nucleo.toml's [mcp] table is read instead of the pyproject.toml beside it."""
    write(tmp_path / "pyproject.toml", '[tool.nucleo.mcp.servers.a]\ncommand = "a"\n')
    write(tmp_path / "nucleo.toml", '[mcp.servers.b]\ncommand = "b"\n')
    assert [config.name for config in discover_servers(tmp_path)] == ["b"]


def test_configuration_is_found_by_walking_up_from_the_start(tmp_path: Path) -> None:
    """The nearest folder holding a configuration is the project, as for the model catalog."""
    write(tmp_path / "pyproject.toml", '[tool.nucleo.mcp.servers.a]\ncommand = "a"\n')
    nested = tmp_path / "src" / "pkg"
    nested.mkdir(parents=True)
    write(tmp_path / "src" / "pyproject.toml", "[project]\nname = 'inner'\n")
    assert [config.name for config in discover_servers(nested)] == ["a"]
    assert discover_servers(tmp_path / "src" / "pkg") == discover_servers(tmp_path)


def test_a_projects_mcp_json_is_read_as_other_clients_write_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """.mcp.json's mcpServers work unchanged, ${VAR} expanded, other clients' keys ignored."""
    monkeypatch.setenv("GH_TOKEN", "t0k3n")
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "github": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-github"],
                        "env": {"GITHUB_TOKEN": "${GH_TOKEN}", "LEVEL": "${LEVEL:-info}"},
                        "disabled": False,
                        "alwaysAllow": ["search"],
                    },
                    "docs": {"type": "http", "url": "https://docs.example/mcp"},
                }
            }
        ),
        encoding="utf-8",
    )
    github, docs = discover_servers(tmp_path)
    assert github.command == "npx"
    assert github.env == {"GITHUB_TOKEN": "t0k3n", "LEVEL": "info"}
    assert (docs.transport, docs.url) == ("http", "https://docs.example/mcp")
    assert github.thinkers == "all"


def test_a_nucleo_table_adds_to_the_mcp_json_server_of_the_same_id(tmp_path: Path) -> None:
    """The nucleo settings (risk, prefix) layer over a .mcp.json server without repeating it."""
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"github": {"command": "npx", "args": ["gh"]}}}),
        encoding="utf-8",
    )
    write(
        tmp_path / "pyproject.toml",
        """
        [tool.nucleo.mcp.servers.github]
        risk = "medium"
        prefix = "gh"
        """,
    )
    (github,) = discover_servers(tmp_path)
    assert (github.command, github.args, github.risk, github.prefix) == (
        "npx",
        ("gh",),
        Risk.MEDIUM,
        "gh",
    )


def test_mcp_json_can_be_switched_off(tmp_path: Path) -> None:
    """mcp_json = false leaves a project's .mcp.json unread."""
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"github": {"command": "npx"}}}), encoding="utf-8"
    )
    write(tmp_path / "nucleo.toml", "[mcp]\nmcp_json = false\n")
    assert discover_servers(tmp_path) == []


def test_an_unsupported_transport_in_mcp_json_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A server of a transport nucleo does not speak (sse) is skipped, the others kept."""
    path = tmp_path / ".mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "old": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
                    "ok": {"command": "srv"},
                }
            }
        ),
        encoding="utf-8",
    )
    with caplog.at_level(logging.WARNING, logger="nucleo.mcp"):
        assert [config.name for config in servers_from_file(path)] == ["ok"]
    assert "transport 'sse' is not supported" in caplog.text


def test_the_server_environment_adds_env_and_the_passed_through_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pass_env passes chosen parent variables (globs allowed) through; env adds its own."""
    for name in [name for name in os.environ if name.startswith("SSL_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/certs.pem")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    monkeypatch.setenv("UNRELATED_SECRET", "hidden")
    config = MCPServerConfig(
        name="s", command="srv", env={"MODE": "x"}, pass_env=("SSL_*", "HTTPS_PROXY")
    )
    assert config.environment() == {
        "SSL_CERT_FILE": "/etc/certs.pem",
        "HTTPS_PROXY": "http://proxy:3128",
        "MODE": "x",
    }


def test_a_shared_pass_env_applies_to_every_server(tmp_path: Path) -> None:
    """[tool.nucleo.mcp] pass_env is added to each server's own."""
    write(
        tmp_path / "nucleo.toml",
        """
        [mcp]
        pass_env = ["SSL_CERT_FILE"]
        [mcp.servers.a]
        command = "a"
        pass_env = ["NO_PROXY"]
        """,
    )
    (config,) = discover_servers(tmp_path)
    assert config.pass_env == ("SSL_CERT_FILE", "NO_PROXY")


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('[mcp.servers.a]\ncommand = "a"\nrisky = true\n', "unknown key(s) risky"),
        ("[mcp.servers.a]\nargs = []\n", "exactly one of command"),
        ('[mcp.servers.a]\ncommand = "a"\nurl = "http://x"\n', "exactly one of command"),
        ('[mcp.servers.a]\nurl = "ftp://x"\n', "url must start with http"),
        ('[mcp.servers.a]\ncommand = "a"\nrisk = "extreme"\n', "one of low, medium, high"),
        ('[mcp.servers.a]\ncommand = "a"\ntimeout = 0\n', "timeout must be a positive"),
        ('[mcp.servers.a]\ncommand = "a"\nprefix = "9x"\n', "prefix must start with a letter"),
        ('[mcp.servers.a]\ncommand = "a"\nthinkers = "some"\n', "thinkers must be"),
        ('[mcp.servers.a]\ncommand = "a"\nargs = "x"\n', "args must be a list of strings"),
        ('[mcp.servers.a]\ncommand = "a"\ntools.t = { risky = 1 }\n', "with only risk and"),
        ('[mcp.servers.a]\ncommand = "a"\nprotocol = "newest"\n', 'protocol must be "auto"'),
        ("[mcp]\nservers = 3\n", "must be a table of server tables"),
        ("[mcp]\nextra = 1\n", "unknown key(s) extra"),
        ("[mcp.servers.a\n", "not valid TOML"),
    ],
)
def test_a_misconfiguration_names_the_file_the_key_and_the_fix(
    tmp_path: Path, table: str, expected: str
) -> None:
    """Each malformed setting is refused with a message naming the file and what to change."""
    path = write(tmp_path / "nucleo.toml", table)
    with pytest.raises(MCPConfigError) as raised:
        servers_from_file(path)
    assert expected in str(raised.value)
    assert str(path) in str(raised.value)


def test_a_server_configured_twice_is_refused() -> None:
    """Two configurations with one id are a configuration error, naming both origins."""
    with pytest.raises(MCPConfigError, match="configured twice"):
        MCPServers([MCPServerConfig(name="a", command="a"), MCPServerConfig(name="a", command="b")])


def test_from_config_builds_the_servers_without_starting_any(tmp_path: Path) -> None:
    """MCPServers.from_config reads the configuration and starts nothing until needed."""
    write(tmp_path / "nucleo.toml", '[mcp.servers.a]\ncommand = "/nonexistent/a"\n')
    with MCPServers.from_config(tmp_path) as servers:
        assert list(servers.configs) == ["a"]
        assert servers.pool.status("a").state == "idle"
        assert servers.providers() == ()
