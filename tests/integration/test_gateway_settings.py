"""The gateway's settings: profiles as declared, the bearer token, names and declared hints.

Real files in ``tmp_path`` (a project's ``pyproject.toml`` and ``nucleo.toml``, the token file)
and the real configuration and provider types; no server runs.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from nucleo_core import tool
from nucleo_core.gateway import (
    BearerToken,
    GatewayConfigError,
    GatewayError,
    GatewayProfile,
    declared_annotations,
    discover_profile,
    prefixed_configs,
    server_prefix,
)
from nucleo_core.mcp import MCPServerConfig
from nucleo_core.tools.providers import provider_for


def write(folder: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``folder/name``; return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


def test_a_declared_profile_is_read_with_its_keys(tmp_path: Path) -> None:
    """A profile table of pyproject.toml gives its thinker, servers, offer and binding."""
    write(
        tmp_path,
        "pyproject.toml",
        """
[tool.nucleo.gateway.profiles.ops]
thinker = "shop.agents:Ops"
servers = ["time"]
offer = "search"
read_only = true
description = "ops"
""",
    )
    profile = discover_profile("ops", tmp_path)
    assert profile == GatewayProfile(
        name="ops",
        thinker="shop.agents:Ops",
        servers=("time",),
        offer="search",
        read_only=True,
        description="ops",
        origin=profile.origin,
    )
    assert "[tool.nucleo.gateway.profiles]" in profile.origin


def test_nucleo_toml_profiles_are_read_from_a_folder_below(tmp_path: Path) -> None:
    """A nucleo.toml's [gateway.profiles] is found from a folder below the project."""
    write(tmp_path, "nucleo.toml", '[gateway.profiles.x]\nthinker = "a.b:C"\n')
    below = tmp_path / "deep" / "er"
    below.mkdir(parents=True)
    assert discover_profile("x", below).thinker == "a.b:C"


def test_a_class_path_is_a_profile_of_its_own(tmp_path: Path) -> None:
    """A name no table declares, written as a class path, serves that class."""
    profile = discover_profile("shop.agents:Ops", tmp_path)
    assert (profile.thinker, profile.servers, profile.offer) == ("shop.agents:Ops", None, None)


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ('servers = ["a"]', "thinker is required"),
        ('thinker = "a:B"\nservers = "a"', "servers must be a list"),
        ('thinker = "a:B"\noffer = "always"', "offer must be one of auto, enumerate, search"),
        ('thinker = "a:B"\nread_only = "yes"', "read_only must be true or false"),
        ('thinker = "a:B"\ntools = 1', "unknown key tools"),
    ],
)
def test_a_malformed_profile_says_which_key_and_what_it_must_be(
    tmp_path: Path, table: str, says: str
) -> None:
    """Each malformed key is named with what it must be, and where it was read."""
    write(tmp_path, "pyproject.toml", f"[tool.nucleo.gateway.profiles.p]\n{table}\n")
    with pytest.raises(GatewayConfigError, match=says) as raised:
        discover_profile("p", tmp_path)
    assert "pyproject.toml" in str(raised.value)


def test_an_unknown_profile_names_the_declared_ones(tmp_path: Path) -> None:
    """A name neither declared nor a class path is refused, listing the declared ones."""
    write(tmp_path, "pyproject.toml", '[tool.nucleo.gateway.profiles.ops]\nthinker = "a:B"\n')
    with pytest.raises(
        GatewayConfigError, match=r"no gateway profile named 'dev' \(declared: ops\)"
    ):
        discover_profile("dev", tmp_path)


def test_the_token_is_generated_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    """The first start makes .nucleo/gateway-token (0600); the next reads the same token."""
    first = BearerToken.load(tmp_path)
    path = tmp_path / ".nucleo" / "gateway-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert BearerToken.load(tmp_path).secret == first.secret
    assert first.secret not in first.identity
    assert first.admits(f"Bearer {first.secret}")
    assert not first.admits(f"Bearer {first.secret}x")
    assert not first.admits(f"Basic {first.secret}")
    assert not first.admits(None)


def test_a_token_file_others_can_read_is_refused_with_the_fix(tmp_path: Path) -> None:
    """A token file readable by group or others is refused, saying how to fix it."""
    BearerToken.load(tmp_path)
    path = tmp_path / ".nucleo" / "gateway-token"
    path.chmod(0o644)
    with pytest.raises(GatewayError, match="chmod 600"):
        BearerToken.load(tmp_path)


def test_a_short_environment_token_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$NUCLEO_API_TOKEN shorter than 16 characters is refused (it would be guessable)."""
    monkeypatch.setenv("NUCLEO_API_TOKEN", "short")
    with pytest.raises(GatewayError, match="at least 16 characters"):
        BearerToken.load(tmp_path)


def config(name: str, **settings: object) -> MCPServerConfig:
    """A stdio server configuration (never started here)."""
    return MCPServerConfig(name=name, command=sys.executable, **settings)  # type: ignore[arg-type]


def test_only_servers_whose_names_clash_get_their_prefix() -> None:
    """Servers sharing a name, or a native tool's, get their prefix; the others keep theirs."""
    configs = [config("a"), config("b"), config("c"), config("d", prefix="mine"), config("e")]
    listings = {
        "a": ({"name": "search"}, {"name": "read"}),
        "b": ({"name": "search"},),
        "c": ({"name": "clock"},),
        "d": ({"name": "search"},),
        "e": ({"name": "forecast"},),
    }
    named = prefixed_configs(configs, listings, taken={"forecast"})
    assert [c.prefix for c in named] == ["a", "b", None, "mine", "e"]


def test_a_server_id_becomes_a_valid_prefix() -> None:
    """An id with other characters, or led by a digit, is made a valid prefix."""
    assert server_prefix("web.search") == "web_search"
    assert server_prefix("1st") == "s1st"


def test_hints_come_from_the_declared_read_only_and_risk() -> None:
    """ReadOnlyHint is the declared read-only; destructiveHint marks high or undeclared risk."""

    @tool(read_only=True, risk="low")
    def look(query: str) -> str:
        """Look."""
        return query

    @tool(risk="low")
    def note(text: str) -> str:
        """Note."""
        return text

    @tool
    def drop(table: str) -> str:
        """Drop."""
        return table

    assert declared_annotations(provider_for(look)) == {
        "readOnlyHint": True,
        "destructiveHint": False,
    }
    assert declared_annotations(provider_for(note)) == {
        "readOnlyHint": False,
        "destructiveHint": False,
    }
    assert declared_annotations(provider_for(drop)) == {
        "readOnlyHint": False,
        "destructiveHint": True,
    }


def test_the_http_client_entry_points_at_the_endpoint_with_the_token_placeholder() -> None:
    """--http --print-config gives the URL and an Authorization header naming the variable."""
    from nucleo_core.cli.mcp_serve import client_config

    entry = client_config(GatewayProfile.for_class("a.b:C"), http=True, port=9100)
    (only,) = entry["mcpServers"].values()
    assert only == {
        "type": "http",
        "url": "http://127.0.0.1:9100/mcp",
        "headers": {"Authorization": "Bearer ${NUCLEO_API_TOKEN}"},
    }


def test_one_read_of_the_store_finds_the_call_s_approval_of_each_status(tmp_path: Path) -> None:
    """The oldest approval per status, of this client, for exactly this tool and arguments."""
    from datetime import UTC, datetime, timedelta

    from nucleo_core.gateway.approvals import matching_record, matching_records
    from nucleo_core.guard.approval_store import ApprovalRecord, SQLiteApprovalStore
    from nucleo_core.guard.audit.canonical import arguments_digest

    store = SQLiteApprovalStore(tmp_path / "approvals.sqlite3")
    start = datetime.now(UTC) - timedelta(minutes=10)
    call = {"target": "a"}

    def record(
        n: int, status: str, *, key: str = "me", tool: str = "wipe", **arguments: str
    ) -> None:
        kept = arguments or call
        store.add(
            [
                ApprovalRecord(
                    id=f"r{n}",
                    thinker="t",
                    conversation_id=key,
                    call_id=f"c{n}",
                    tool=tool,
                    source="mcp:main:wipe",
                    risk="high",
                    arguments=kept,
                    arguments_digest=arguments_digest(kept),
                    requested_at=start + timedelta(seconds=n),
                    expires_at=start + timedelta(hours=1 if status != "expired" else 0),
                    status="pending" if status == "expired" else status,  # type: ignore[arg-type]
                )
            ]
        )

    record(1, "approved", key="someone else")
    record(2, "approved", tool="echo")
    record(3, "approved", target="b")
    record(4, "expired")
    record(5, "consumed")
    record(6, "pending")
    record(7, "approved")
    record(8, "pending")
    record(9, "approved")
    found = matching_records(store, key="me", tool="wipe", arguments=call)
    assert {status: r.id for status, r in found.items()} == {
        "expired": "r4",
        "consumed": "r5",
        "pending": "r6",
        "approved": "r7",
    }
    for status, kept in found.items():  # what one status asked alone finds
        alone = matching_record(store, key="me", tool="wipe", arguments=call, status=status)
        assert alone is not None
        assert alone.id == kept.id
    assert matching_records(store, key="me", tool="wipe", arguments={"target": "c"}) == {}
    store.close()
