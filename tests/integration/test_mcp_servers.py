"""MCP servers as tool sources, against real servers run as subprocesses.

The main test server is written with the SDK's own server API (``_mcp_servers/main_server.py``)
and runs over stdio and over streamable HTTP on 127.0.0.1; the published ``mcp-server-time`` is
installed from the package index into a fresh virtual environment. Every test checks that no
child process is left behind once its servers are closed.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _mcp_harness import (
    MAIN_TOOLS,
    Generalist,
    Listed,
    Selecting,
    children,
    http_server,
    no_child_left_behind,  # noqa: F401  # a fixture, used through pytestmark
    palette,
    stdio,
    time_server_executable,
)

from nucleo_core import Risk, ToolHub, run_tool, to_anthropic, to_mcp, tool
from nucleo_core.mcp import (
    MCPCollisionError,
    MCPServerConfig,
    MCPServers,
    MCPServerUnavailable,
    MCPToolProvider,
    MCPToolResult,
    MCPToolSettings,
)

pytestmark = pytest.mark.usefixtures("no_child_left_behind")


def call(provider: MCPToolProvider, **arguments: Any) -> MCPToolResult:
    """Run one call the way the thinker pipeline does: parse, create, run."""
    return asyncio.run(run_tool(provider.create(), provider.parse_input(arguments)))


def by_name(servers: MCPServers, server: str | None = None) -> dict[str, MCPToolProvider]:
    """The registered providers, by name."""
    return {provider.name: provider for provider in servers.providers(server)}


def eventually(check: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until ``check()`` holds (a listing reaches the hub on the pool's notifier thread)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.02)


@pytest.fixture
def main() -> Iterator[MCPServers]:
    """The main test server over stdio, started."""
    with MCPServers([stdio("main")]) as servers:
        servers.start("main")
        yield servers


# -- listing and calling ----------------------------------------------------------------------


def test_a_servers_tools_are_listed_as_providers_with_their_published_schemas(
    main: MCPServers,
) -> None:
    """Each listed tool becomes a provider named as published, sourced mcp:<server>:<tool>."""
    providers = by_name(main)
    assert list(providers) == MAIN_TOOLS
    echo = providers["echo"]
    assert echo.source == "mcp:main:echo"
    assert echo.description == "Repeat the text back."
    assert echo.input_schema["properties"]["text"]["type"] == "string"
    assert echo.input_schema == main.pool.tools("main")[0]["inputSchema"]
    assert echo.spec().source == "mcp:main:echo"


def test_the_tools_render_for_every_model_provider_as_published(main: MCPServers) -> None:
    """The specs render to JSON in each provider's format with the schema the server published."""
    specs = [provider.spec() for provider in main.providers()]
    published = {tool["name"]: tool["inputSchema"] for tool in main.pool.tools("main") or ()}
    for rendered in (to_anthropic(specs), to_mcp(specs)):
        assert json.loads(json.dumps(rendered))[0]["name"] == "echo"
    assert [tool["input_schema"] for tool in to_anthropic(specs)] == list(published.values())


def test_a_call_returns_the_servers_text(main: MCPServers) -> None:
    """A call's text content comes back as the result's text, not as an error."""
    result = call(by_name(main)["echo"], text="hello")
    assert (result.text, result.is_error, result.outcome) == ("hello", False, "ok")
    assert str(result) == "hello"


def test_an_output_schema_is_published_and_the_structured_content_kept(main: MCPServers) -> None:
    """A tool declaring an output schema publishes it, and its structuredContent is kept."""
    providers = by_name(main)
    forecast = providers["forecast"]
    assert forecast.output_schema is not None
    assert forecast.output_schema["properties"]["celsius"]["type"] == "number"
    assert providers["echo"].output_schema is None
    result = call(forecast, city="Lyon")
    assert result.structured == {"city": "Lyon", "celsius": 21.5}
    assert not result.is_error


def test_images_are_kept_as_artifacts_and_described_in_the_text(main: MCPServers) -> None:
    """An image is kept as an artifact with its bytes and stands in the text as one line."""
    result = call(by_name(main)["picture"])
    (artifact,) = result.artifacts
    assert artifact.kind == "image"
    assert artifact.mime_type == "image/png"
    assert artifact.data is not None
    assert artifact.data.startswith(b"\x89PNG")
    assert (
        result.text == f"a tiny picture\n[image image/png {len(artifact.data)} bytes; artifact 1]"
    )


def test_concurrent_calls_from_several_threads_and_loops_share_one_session(
    main: MCPServers,
) -> None:
    """Calls from many threads, each on its own event loop, all go through one server process."""
    echo = by_name(main)["echo"]
    results: list[MCPToolResult] = []

    async def burst(tag: int) -> list[MCPToolResult]:
        return await asyncio.gather(*(echo.call({"text": f"{tag}-{index}"}) for index in range(5)))

    def worker(tag: int) -> None:
        results.extend(asyncio.run(burst(tag)))

    threads = [threading.Thread(target=worker, args=(tag,)) for tag in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(result.text for result in results) == sorted(
        f"{tag}-{index}" for tag in range(4) for index in range(5)
    )
    assert len(children()) == 1  # one session, one server process


# -- risk and read-only -----------------------------------------------------------------------


def test_risk_comes_from_the_configuration_and_defaults_to_undeclared_high() -> None:
    """A server's tools carry its configured risk, per-tool overrides win, undeclared is high."""
    override = {"echo": MCPToolSettings(risk=Risk.LOW)}
    rated_config = stdio("rated", risk="medium", tools=override, prefix="r")
    with MCPServers([stdio("plain"), rated_config]) as servers:
        servers.start("plain")
        servers.start("rated")
        plain = by_name(servers, "plain")
        rated = by_name(servers, "rated")
        assert (plain["wipe"].risk, plain["wipe"].risk_declared) == (Risk.HIGH, False)
        assert (rated["r_wipe"].risk, rated["r_wipe"].risk_declared) == (Risk.MEDIUM, True)
        assert (rated["r_echo"].risk, rated["r_echo"].risk_declared) == (Risk.LOW, True)


def test_hints_of_an_untrusted_server_make_nothing_read_only(main: MCPServers) -> None:
    """The readOnlyHint of a server whose annotations are not trusted is kept, not relied on."""
    providers = by_name(main)
    assert providers["echo"].annotations["readOnlyHint"] is True
    assert not any(provider.read_only for provider in providers.values())


def test_hints_of_a_trusted_server_set_read_only() -> None:
    """With trust_annotations, readOnlyHint makes a tool read-only unless it is also destructive."""
    with MCPServers([stdio("trusted", trust_annotations=True)]) as servers:
        providers = {p.name: p for p in servers.start("trusted")}
        assert providers["echo"].read_only
        assert providers["forecast"].read_only
        assert not providers["wipe"].read_only  # destructiveHint only
        assert not providers["contradict"].read_only  # read-only and destructive: contradictory
        assert not providers["pid"].read_only  # no hint at all


def test_the_configuration_declares_read_only_per_tool_over_any_hint() -> None:
    """A per-tool read_only declaration wins over the server's hints, trusted or not."""
    settings = {"pid": MCPToolSettings(read_only=True), "echo": MCPToolSettings(read_only=False)}
    config = stdio("declared", trust_annotations=True, tools=settings)
    with MCPServers([config]) as servers:
        providers = {p.name: p for p in servers.start("declared")}
        assert providers["pid"].read_only
        assert not providers["echo"].read_only


# -- names: prefixes, collisions, shadowing ---------------------------------------------------


def test_a_prefix_namespaces_the_tools_and_calls_still_reach_them() -> None:
    """With a prefix the model sees <prefix>_<tool>; the source and the call use the tool's own."""
    with MCPServers([stdio("main", prefix="m")]) as servers:
        providers = {p.name: p for p in servers.start("main")}
        assert list(providers) == [f"m_{name}" for name in MAIN_TOOLS]
        assert providers["m_echo"].source == "mcp:main:echo"
        assert call(providers["m_echo"], text="via prefix").text == "via prefix"


def test_two_servers_publishing_one_name_collide_and_the_fix_is_a_prefix() -> None:
    """The later server's clashing tools are refused and reported with both servers and a fix."""
    hub = ToolHub()
    with MCPServers([stdio("alpha"), stdio("beta")]).connect_to_hub(hub) as servers:
        assert [p.source for p in hub.system_wide_tools()] == [
            f"mcp:alpha:{name}" for name in MAIN_TOOLS
        ]
        assert servers.providers("beta") == ()
        collisions = [p for p in servers.problems if p.kind == "collision"]
        assert [p.tool for p in collisions] == MAIN_TOOLS
        assert {p.server for p in collisions} == {"beta"}
        message = collisions[0].message
        assert "'beta'" in message
        assert "MCP server 'alpha'" in message
        assert 'prefix = "beta"' in message


def test_with_the_prefix_both_servers_tools_are_registered() -> None:
    """The fix the collision names works: with a prefix, both servers' tools are registered."""
    hub = ToolHub()
    servers = MCPServers([stdio("alpha"), stdio("beta", prefix="beta")])
    with servers.connect_to_hub(hub, strict=True):
        names = [p.name for p in hub.system_wide_tools()]
        assert names == MAIN_TOOLS + [f"beta_{name}" for name in MAIN_TOOLS]
        assert servers.problems == ()


@tool(name="echo", read_only=True, risk="low")
def native_echo(text: str) -> str:
    """Repeat the text, natively."""
    return text


def test_a_server_tool_never_replaces_a_native_tool_without_shadow() -> None:
    """A server tool named like a native system-wide tool is refused and reported; native kept."""
    hub = ToolHub()
    hub.register_system_wide_tool(native_echo)
    with MCPServers([stdio("main")]).connect_to_hub(hub) as servers:
        held = {p.name: p for p in hub.system_wide_tools()}
        assert held["echo"].source == "native:echo"
        (problem,) = servers.problems
        assert (problem.kind, problem.tool) == ("collision", "echo")
        assert "native:echo" in problem.message
        assert "shadow = true" in problem.message


def test_shadow_replaces_a_native_tool_deliberately_and_records_it() -> None:
    """With shadow = true the server tool replaces the native one, and that is recorded."""
    hub = ToolHub()
    hub.register_system_wide_tool(native_echo)
    with MCPServers([stdio("main", shadow=True)]).connect_to_hub(hub) as servers:
        held = {p.name: p for p in hub.system_wide_tools()}
        assert held["echo"].source == "mcp:main:echo"
        assert held["echo"].shadows
        (record,) = servers.shadowed
        assert (record.name, record.replaced, record.by) == ("echo", "native:echo", "mcp:main:echo")
        assert servers.problems == ()


def test_strict_binding_raises_every_problem_and_closes_the_servers() -> None:
    """strict=True turns reported problems into one ExceptionGroup, with the servers closed."""
    servers = MCPServers([stdio("alpha"), stdio("beta")])
    with pytest.raises(ExceptionGroup) as raised:
        servers.connect_to_hub(ToolHub(), strict=True)
    assert all(isinstance(error, MCPCollisionError) for error in raised.value.exceptions)
    assert servers.pool.closed


# -- list_changed -----------------------------------------------------------------------------


def test_list_changed_widens_and_narrows_the_system_wide_tools() -> None:
    """A tool the server adds joins every palette; a tool it removes leaves the hub again."""
    hub = ToolHub()
    with MCPServers([stdio("main")]).connect_to_hub(hub) as servers:
        providers = by_name(servers)
        thinker = Generalist(hub=hub)
        assert "extra" not in palette(thinker)
        assert call(providers["grow"], name="extra").text == "added extra"
        eventually(lambda: "extra" in [p.name for p in hub.system_wide_tools()])
        assert palette(thinker)[-1] == "extra"
        assert call(by_name(servers)["extra"]).text == "I am extra"
        call(providers["shrink"], name="extra")
        eventually(lambda: "extra" not in [p.name for p in hub.system_wide_tools()])
        assert "extra" not in by_name(servers)


def test_the_legacy_handshake_can_be_chosen_and_list_changed_still_arrives() -> None:
    """``protocol = "legacy"``: 2025-11-25 over ``initialize``, changes as notifications."""
    hub = ToolHub()
    with MCPServers([stdio("main", protocol="legacy")]).connect_to_hub(hub) as servers:
        assert servers.pool.status("main").protocol_version == "2025-11-25"
        providers = by_name(servers)
        assert call(providers["grow"], name="extra").text == "added extra"
        eventually(lambda: "extra" in [p.name for p in hub.system_wide_tools()])
        assert call(by_name(servers)["extra"]).text == "I am extra"


def test_auto_settles_on_the_newest_protocol_both_sides_speak() -> None:
    with MCPServers([stdio("main")]) as servers:
        servers.start("main")
        assert servers.pool.status("main").protocol_version == "2026-07-28"


def test_a_protocol_version_the_sdk_does_not_know_is_a_start_failure_that_says_so() -> None:
    with MCPServers([stdio("main", protocol="1999-01-01")]) as servers:
        with pytest.raises(MCPServerUnavailable) as raised:
            servers.start("main")
        assert "protocol '1999-01-01' is not one this MCP SDK speaks" in raised.value.reason
        assert '"legacy" or one of 2026-07-28' in raised.value.reason


def test_list_changed_widens_and_narrows_the_catalogs_of_listed_thinkers() -> None:
    """A server listed for one thinker class starts with its catalog and follows its listing."""
    hub = ToolHub()
    config = stdio("main", thinkers=("_mcp_harness:Listed",))
    with MCPServers([config]).connect_to_hub(hub) as servers:
        assert servers.pool.status("main").state == "idle"  # lazy: nothing asked for it yet
        assert hub.compatible_catalog(Generalist) == ()
        assert [p.name for p in hub.compatible_catalog(Listed)] == MAIN_TOOLS
        assert hub.system_wide_tools() == []
        call(by_name(servers)["grow"], name="later")
        eventually(lambda: "later" in [p.name for p in hub.compatible_catalog(Listed)])
        call(by_name(servers)["shrink"], name="later")
        eventually(lambda: "later" not in [p.name for p in hub.compatible_catalog(Listed)])
        assert hub.compatible_catalog(Generalist) == ()


def test_an_eager_server_starts_when_bound_though_only_listed_thinkers_see_it() -> None:
    """A server with start = "eager" starts at hub load though only catalogs hold its tools."""
    hub = ToolHub()
    config = stdio("main", thinkers=(Listed,), start="eager")
    with MCPServers([config]).connect_to_hub(hub) as servers:
        assert servers.pool.status("main").state == "ready"
        assert hub.system_wide_tools() == []
        assert [p.name for p in hub.compatible_catalog(Listed)] == MAIN_TOOLS


def test_a_selector_naming_the_server_draws_its_tools_into_that_catalog() -> None:
    """A server exposed by selector joins only the catalogs whose selector names it."""
    hub = ToolHub()
    with MCPServers([stdio("picked", thinkers="selector")]).connect_to_hub(hub) as servers:
        assert hub.compatible_catalog(Generalist) == ()
        assert servers.pool.status("picked").state == "idle"
        catalog = [p.name for p in hub.compatible_catalog(Selecting)]
        assert catalog == MAIN_TOOLS
        thinker = Selecting(hub=hub)
        granted = thinker.request_tools(["echo"])
        assert granted.granted == ("echo",)
        assert "echo" in palette(thinker)


# -- streamable HTTP --------------------------------------------------------------------------


def test_a_streamable_http_server_lists_calls_and_notifies_list_changed() -> None:
    """Over streamable HTTP on 127.0.0.1 the same server lists, calls, and widens the hub."""
    hub = ToolHub()
    with http_server() as (url, _process):
        config = MCPServerConfig(name="web", url=url, headers={"X-Test": "1"}, timeout=10)
        with MCPServers([config]).connect_to_hub(hub) as servers:
            providers = by_name(servers)
            assert list(providers) == MAIN_TOOLS
            assert providers["echo"].source == "mcp:web:echo"
            assert call(providers["echo"], text="over http").text == "over http"
            assert call(providers["forecast"], city="Oslo").structured == {
                "city": "Oslo",
                "celsius": 21.5,
            }
            call(providers["grow"], name="remote")
            eventually(lambda: "remote" in [p.name for p in hub.system_wide_tools()])


# -- the published mcp-server-time ------------------------------------------------------------


@pytest.fixture(scope="session")
def mcp_server_time() -> Path:
    """The published mcp-server-time, installed by the test extra."""
    return time_server_executable()


def test_the_published_time_server_lists_and_answers_with_structured_content(
    mcp_server_time: Path,
) -> None:
    """mcp-server-time's tools are listed with output schemas, answer, and refuse a bad zone."""
    config = MCPServerConfig(
        name="time", command=str(mcp_server_time), args=("--local-timezone", "UTC"), timeout=20
    )
    with MCPServers([config]) as servers:
        providers = {p.name: p for p in servers.start("time")}
        assert {"get_current_time", "convert_time"} <= set(providers)
        now = providers["get_current_time"]
        assert now.source == "mcp:time:get_current_time"
        assert now.output_schema is not None
        assert not now.read_only  # its readOnlyHint is not trusted by default
        assert now.annotations.get("readOnlyHint") is True
        result = call(now, timezone="Europe/Paris")
        assert not result.is_error
        assert result.structured is not None
        assert result.structured["timezone"] == "Europe/Paris"
        refused = call(now, timezone="Nowhere/Atlantis")
        assert refused.is_error
        assert refused.outcome == "tool_error"
        assert "Nowhere/Atlantis" in refused.text  # the server's own message, for the model


def test_the_published_time_server_is_read_only_where_its_hints_are_trusted(
    mcp_server_time: Path,
) -> None:
    """Trusting mcp-server-time's annotations makes its tools read-only, as its hints say."""
    config = MCPServerConfig(
        name="time",
        command=str(mcp_server_time),
        args=("--local-timezone", "UTC"),
        trust_annotations=True,
        prefix="clock",
    )
    with MCPServers([config]) as servers:
        providers = {p.name: p for p in servers.start("time")}
        assert providers["clock_get_current_time"].read_only
        assert providers["clock_convert_time"].read_only


# -- packaging --------------------------------------------------------------------------------


def test_importing_nucleo_core_and_its_mcp_package_does_not_import_the_sdk() -> None:
    """The SDK is imported only when a pool starts a session, never by importing nucleo."""
    script = (
        "import sys, nucleo_core, nucleo_core.mcp;"
        "print(sorted(m for m in ('mcp', 'mcp_types', 'anyio', 'httpx2') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
