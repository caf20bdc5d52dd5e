"""The MCP client's capability settings (roots, sampling, disabled) and the elicitation checks."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from nucleo_core.mcp import (
    ElicitationAnswer,
    ElicitationRequest,
    MCPConfigError,
    MCPServerConfig,
    SamplingSettings,
    TerminalAnswerer,
    servers_from_file,
    servers_from_mapping,
)
from nucleo_core.mcp.elicitation import answer_problems, settle_elicitation

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 8},
        "seats": {"type": "integer", "minimum": 1, "maximum": 10},
        "plan": {"type": "string", "enum": ["free", "pro"]},
        "notify": {"type": "boolean"},
    },
    "required": ["name", "seats"],
}


def test_sampling_is_off_unless_configured_and_a_table_gives_the_model_and_cap() -> None:
    """No ``sampling`` key refuses; ``true`` takes the defaults; a table sets model and cap."""
    (off, on, table) = servers_from_mapping(
        {
            "servers": {
                "off": {"command": "x"},
                "on": {"command": "x", "sampling": True},
                "table": {"command": "x", "sampling": {"model": "strong", "max_tokens": 99}},
            }
        }
    )
    assert off.sampling is None
    assert on.sampling == SamplingSettings()
    assert table.sampling == SamplingSettings(model="strong", max_tokens=99)


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ({"modle": "fast"}, "unknown key(s) modle in sampling"),
        ({"max_tokens": 0}, "sampling.max_tokens must be a positive integer"),
        ({"model": 3}, "sampling.model must be a grade"),
        ("fast", "sampling must be true, false, or a table"),
    ],
)
def test_a_malformed_sampling_table_is_refused_naming_the_key(value: object, named: str) -> None:
    """A typo in ``sampling`` fails when the configuration is read, saying which key."""
    with pytest.raises(MCPConfigError, match="MCP server 's'") as raised:
        servers_from_mapping({"servers": {"s": {"command": "x", "sampling": value}}})
    assert named in str(raised.value)


def test_roots_default_to_the_configuration_folder_and_resolve_relative_paths(
    tmp_path: Path,
) -> None:
    """Unset roots are the config file's folder; configured ones resolve against it."""
    (tmp_path / "nucleo.toml").write_text(
        '[mcp]\nroots = ["shared"]\n[mcp.servers.a]\ncommand = "x"\n'
        '[mcp.servers.b]\ncommand = "x"\nroots = ["~/notes", "/abs"]\n'
        '[mcp.servers.c]\ncommand = "x"\nroots = []\n'
    )
    a, b, c = servers_from_file(tmp_path / "nucleo.toml")
    assert a.root_uris() == ((tmp_path / "shared").resolve().as_uri(),)
    assert b.root_uris() == ((Path.home() / "notes").resolve().as_uri(), "file:///abs")
    assert c.root_uris() == ()
    plain = MCPServerConfig(name="p", command="x", project_dir=str(tmp_path))
    assert plain.root_uris() == (tmp_path.resolve().as_uri(),)


def test_disabled_is_read_from_mcp_json_and_must_be_a_boolean(tmp_path: Path) -> None:
    """``"disabled": true`` in .mcp.json is kept; a non-boolean is refused, naming the key."""
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"off": {"command": "x", "disabled": True}, "on": {"command": "x"}}}
        )
    )
    assert [(c.name, c.disabled) for c in servers_from_file(tmp_path / ".mcp.json")] == [
        ("off", True),
        ("on", False),
    ]
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"off": {"command": "x", "disabled": "yes"}}})
    )
    with pytest.raises(MCPConfigError, match=r"mcpServers\.off\.disabled must be true or false"):
        servers_from_file(tmp_path / ".mcp.json")


def test_answer_problems_name_the_field_and_reason_never_the_value() -> None:
    """Each unfit field is named with what the schema wants; the value given never appears."""
    problems = answer_problems(
        SCHEMA, {"name": "SECRET-TOO-LONG", "seats": 0, "plan": "SECRET", "notify": {"x": 1}}
    )
    assert problems == [
        "notify: must be a string, a number, a boolean, null or a list of strings",
    ]
    problems = answer_problems(SCHEMA, {"name": "SECRET-TOO-LONG", "seats": 0, "plan": "SECRET"})
    assert problems == [
        "name: must hold at most 8 characters",
        "plan: must be one of the values the form offers",
        "seats: must be >= 1",
    ]
    assert not any("SECRET" in problem for problem in problems)
    assert answer_problems(SCHEMA, {"name": "Ada"}) == ["seats: required"]
    assert answer_problems(SCHEMA, {"name": "Ada", "seats": 3, "plan": "pro"}) == []


def _request(mode: str = "form") -> ElicitationRequest:
    if mode == "url":
        return ElicitationRequest(server="s", message="Log in", mode="url", url="https://x/")
    return ElicitationRequest(server="s", message="Sign up", schema=SCHEMA)


def test_settling_fails_closed() -> None:
    """No answerer, a failing one, or a wrong answer type declines; unfit content cancels."""

    def broken(request: ElicitationRequest) -> ElicitationAnswer:
        raise RuntimeError("boom")

    def wrong(request: ElicitationRequest) -> object:
        return True

    def unfit(request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer.accept({"name": "Ada"})

    async def settled() -> list[ElicitationAnswer]:
        return [
            await settle_elicitation(None, _request()),
            await settle_elicitation(broken, _request()),
            await settle_elicitation(wrong, _request()),  # type: ignore[arg-type]
            await settle_elicitation(unfit, _request()),
            await settle_elicitation(unfit, _request("url")),  # URL consent carries no content
        ]

    assert [answer.action for answer in asyncio.run(settled())] == [
        "decline",
        "decline",
        "decline",
        "cancel",
        "accept",
    ]


def test_the_terminal_answerer_asks_each_field_and_asks_again_when_unfit() -> None:
    """Typed lines become the content, parsed to the schema's types; an unfit one is re-asked."""
    typed = io.StringIO("y\nAda\nmany\n3\n\nn\n")
    shown = io.StringIO()
    answer = asyncio.run(TerminalAnswerer(typed, shown)(_request()))
    assert answer == ElicitationAnswer.accept({"name": "Ada", "seats": 3, "notify": False})
    assert "MCP server 's' asks: Sign up" in shown.getvalue()
    assert "That does not fit: seats must be of type integer" in shown.getvalue()


def test_the_terminal_answerer_declines_on_no_and_cancels_at_end_of_input() -> None:
    """Anything but yes declines; input that ends mid-form cancels."""
    no = asyncio.run(TerminalAnswerer(io.StringIO("n\n"), io.StringIO())(_request()))
    ended = asyncio.run(TerminalAnswerer(io.StringIO("y\nAda\n"), io.StringIO())(_request()))
    url = asyncio.run(TerminalAnswerer(io.StringIO("yes\n"), io.StringIO())(_request("url")))
    assert (no.action, ended.action, url.action) == ("decline", "cancel", "accept")
