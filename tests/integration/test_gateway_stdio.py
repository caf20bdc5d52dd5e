"""``nucleo mcp serve`` over stdio, driven by the official SDK client.

The gateway runs as a real subprocess (the installed console script) with real upstream
servers behind it: the SDK-written test server under two ids (``main`` and ``twin``, whose tool
names clash) and the published ``mcp-server-time``. Each test names its client uniquely, so its
records and approvals in the shared project are its own.
"""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from _gateway import (
    NUCLEO,
    approve,
    audit_records,
    environment,
    stdio_parameters,
    text_of,
    write_project,
)
from mcp import Client

PROTOCOLS = pytest.mark.parametrize("protocol", ["legacy", "auto"])
#: The one-pixel PNG the test server's ``picture`` returns (as ``_mcp_servers/main_server.py``).
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5"
    "ErkJggg=="
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project for the module's gateways (each test's client has a name of its own)."""
    return write_project(tmp_path_factory.mktemp("gateway"))


def client_name() -> str:
    """A client name no other test uses."""
    return f"client-{uuid.uuid4().hex[:8]}"


def connect(
    project: Path,
    profile: str = "solo",
    *,
    name: str | None = None,
    protocol: str = "legacy",
    elicitation: Any = None,
    messages: list[Any] | None = None,
) -> Client:
    """The SDK client, launching the gateway for ``profile`` over stdio."""

    async def keep(message: Any) -> None:
        if messages is not None:
            messages.append(message)

    return Client(
        stdio_parameters(profile, project),
        mode=protocol,  # type: ignore[arg-type]
        client_info=types.Implementation(name=name or client_name(), version="1.2.3"),
        elicitation_callback=elicitation,
        message_handler=keep,
    )


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    """Run one test's coroutine."""
    return asyncio.run(body())


def records_of(project: Path, name: str) -> list[dict[str, Any]]:
    """The audit records a client named ``name`` caused."""
    label = f"mcp-client {name} 1.2.3"
    return [
        record
        for record in audit_records(project)
        if label in (record.get("requester") or {}).get("parents", [])
    ]


def test_tools_keep_unique_names_clashing_servers_get_their_prefix(project: Path) -> None:
    """Clashing servers are listed under their prefixes; unique names (time) are kept."""

    async def body() -> list[str]:
        async with connect(project, "ops") as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    names = run(body)
    assert "main_echo" in names
    assert "twin_echo" in names
    assert "echo" not in names
    assert {"get_current_time", "convert_time"} <= set(names)


def test_hints_are_nucleos_declarations_not_the_servers(project: Path) -> None:
    """The hints are nucleo's declared read-only and risk, never the server's own hints."""

    async def body() -> dict[str, types.Tool]:
        async with connect(project, "ops") as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = run(body)

    def hints(name: str) -> tuple[bool | None, bool | None]:
        annotations = tools[name].annotations
        assert annotations is not None
        return annotations.read_only_hint, annotations.destructive_hint

    assert hints("main_echo") == (True, False)  # declared read-only in the configuration
    assert hints("main_wipe") == (False, True)  # declared high risk
    assert hints("twin_wipe") == (False, False)  # the server hints destructive; declared low
    assert hints("main_contradict") == (False, False)  # hinted read-only; not declared so
    assert hints("get_current_time") == (True, False)


def test_text_structured_content_images_and_is_error_pass_through(project: Path) -> None:
    """Text, structured content, an image and isError reach the client as sent upstream."""

    async def body() -> tuple[Any, ...]:
        async with connect(project) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            echo = await client.call_tool("echo", {"text": "hello"})
            forecast = await client.call_tool("forecast", {"city": "Oslo"})
            picture = await client.call_tool("picture", {})
            failed = await client.call_tool("fail", {"reason": "no disk"})
            return listed, echo, forecast, picture, failed

    listed, echo, forecast, picture, failed = run(body)
    assert (text_of(echo), echo.is_error) == ("hello", False)
    assert listed["forecast"].output_schema is not None
    assert forecast.structured_content == {"city": "Oslo", "celsius": 21.5}
    kinds = [block.type for block in picture.content]
    assert kinds == ["text", "image"]
    image = picture.content[1]
    assert base64.b64decode(image.data) == base64.b64decode(PIXEL)
    assert image.mime_type == "image/png"
    assert failed.is_error is True
    assert "cannot do that: no disk" in text_of(failed)


def test_the_published_time_server_is_called_through_the_gateway(project: Path) -> None:
    """mcp-server-time, behind the gateway, answers a call with its structured content."""

    async def body() -> Any:
        async with connect(project, "ops") as client:
            return await client.call_tool("get_current_time", {"timezone": "UTC"})

    result = run(body)
    assert result.is_error is False
    assert result.structured_content["timezone"] == "UTC"


def test_auto_notify_and_deny_are_decided_and_recorded(project: Path) -> None:
    """Auto and notify calls run, a denied one is refused with its reason, all on the record."""
    name = client_name()

    async def body() -> tuple[Any, ...]:
        async with connect(project, "ops", name=name) as client:
            auto = await client.call_tool("main_echo", {"text": "a"})
            notify = await client.call_tool("main_fail", {"reason": "b"})
            denied = await client.call_tool("main_picture", {})
            return auto, notify, denied

    auto, notify, denied = run(body)
    assert auto.is_error is False
    assert "cannot do that: b" in text_of(notify)  # it ran: the server's own isError
    assert denied.is_error is True
    assert "pictures are not shared through the gateway" in text_of(denied)
    records = records_of(project, name)
    starts = {r["tool"]: r["decision"] for r in records if r["kind"] == "call_start"}
    assert starts == {"main_echo": "auto", "main_fail": "notify"}
    refusals = [r for r in records if r["kind"] == "permission" and r.get("decision") == "deny"]
    assert [(r["tool"], r["rule"]) for r in refusals] == [("main_picture", "rule:no-pictures")]


def test_input_errors_name_the_field_and_never_echo_the_value(project: Path) -> None:
    """Bad input or an unknown name gets an error naming the field, never echoing the value."""

    async def body() -> tuple[Any, Any]:
        async with connect(project) as client:
            wrong = await client.call_tool("echo", {"text": 73914205})
            unknown = await client.call_tool("drop_every_table_now", {})
            return wrong, unknown

    wrong, unknown = run(body)
    assert wrong.is_error is True
    assert "text" in text_of(wrong)
    assert "73914205" not in text_of(wrong)
    assert unknown.is_error is True
    assert "drop_every_table_now" not in text_of(unknown)
    assert "echo" in text_of(unknown)


@PROTOCOLS
def test_confirm_is_asked_through_elicitation_accept_runs_decline_refuses(
    project: Path, protocol: str
) -> None:
    """A confirm call is shown to the user through elicitation: accept runs, decline refuses."""
    asked: list[str] = []
    answers = ["accept", "decline"]

    async def elicit(_context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        action = answers.pop(0)
        return types.ElicitResult(
            action=action, content={"approve": True} if action == "accept" else None
        )

    async def body() -> tuple[Any, Any]:
        async with connect(project, protocol=protocol, elicitation=elicit) as client:
            accepted = await client.call_tool("wipe", {"target": "scratch"})
            declined = await client.call_tool("wipe", {"target": "home"})
            return accepted, declined

    accepted, declined = run(body)
    assert (text_of(accepted), accepted.is_error) == ("wiped scratch", False)
    assert declined.is_error is True
    assert "was not approved" in text_of(declined)
    assert "declined" in text_of(declined)
    assert len(asked) == 2
    for shown in ("Tool: wipe", "Risk: high", "Source: mcp:main:wipe", '"target": "scratch"'):
        assert shown in asked[0]


def test_confirm_without_elicitation_waits_and_runs_once_after_approval(project: Path) -> None:
    """A pending approval approved with `nucleo approvals approve` lets the retry run once."""
    name = client_name()

    async def first() -> Any:
        async with connect(project, name=name) as client:
            return await client.call_tool("wipe", {"target": "logs"})

    waiting = run(first)
    assert waiting.is_error is True
    text = text_of(waiting)
    assert "nucleo approvals approve" in text
    approval_id = text.split("pending as ", 1)[1].split(".", 1)[0]

    decided = approve(project, approval_id)
    assert decided.returncode == 0, decided.stderr
    assert "calling the tool again" in decided.stdout

    async def retried() -> tuple[Any, Any]:
        async with connect(project, name=name) as client:
            ran = await client.call_tool("wipe", {"target": "logs"})
            again = await client.call_tool("wipe", {"target": "logs"})
            return ran, again

    ran, again = run(retried)
    assert (text_of(ran), ran.is_error) == ("wiped logs", False)
    assert again.is_error is True  # the approval was used: a new one is needed
    assert approval_id not in text_of(again)
    finished = [
        r for r in records_of(project, name) if r["kind"] == "call_finish" and r["tool"] == "wipe"
    ]
    assert [r["outcome"] for r in finished].count("ok") == 1


def test_a_search_admits_tools_and_tells_the_client_the_list_changed(project: Path) -> None:
    """A search admits its matches, announces tools/list_changed, and they can be called."""
    messages: list[Any] = []
    name = client_name()

    async def body() -> tuple[list[str], list[str], Any]:
        async with connect(project, "search", name=name, messages=messages) as client:
            before = [tool.name for tool in (await client.list_tools()).tools]
            found = await client.call_tool("search_tools", {"query": "invoice"})
            assert found.is_error is False, text_of(found)
            after = [tool.name for tool in (await client.list_tools()).tools]
            called = await client.call_tool("lookup_invoice", {"number": "42"})
            return before, after, called

    before, after, called = run(body)
    assert before == ["search_tools"]
    assert "lookup_invoice" in after
    assert "list_customers" not in after
    assert any(isinstance(m, types.ToolListChangedNotification) for m in messages)
    assert text_of(called) == "invoice 42: paid"
    grants = [r for r in records_of(project, name) if r["kind"] == "grant"]
    assert [r["tool"] for r in grants] == ["lookup_invoice"]


def test_a_read_only_profile_lists_and_runs_only_read_only_tools(project: Path) -> None:
    """A read-only profile lists only declared read-only tools and refuses the others."""

    async def body() -> tuple[list[str], Any]:
        async with connect(project, "readonly") as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            refused = await client.call_tool("twin_wipe", {"target": "x"})
            return names, refused

    names, refused = run(body)
    assert names == ["main_echo", "main_forecast"]
    assert refused.is_error is True


def test_every_record_carries_the_clients_name_and_version(project: Path) -> None:
    """Each audit record of a client's call names the client as its initialize said."""
    name = client_name()

    async def body() -> None:
        async with connect(project, name=name) as client:
            await client.call_tool("echo", {"text": "on the record"})

    run(body)
    records = records_of(project, name)
    assert {r["kind"] for r in records} >= {"call_start", "call_finish"}
    assert all(r["requester"]["thinker_class"] == "gateway_agents.Ops" for r in records)


def test_print_config_prints_a_launching_mcp_servers_entry(project: Path) -> None:
    """--print-config prints the mcpServers entry that runs this gateway from any folder."""
    import json
    import subprocess

    shown = subprocess.run(
        [str(NUCLEO), "mcp", "serve", "--profile", "ops", "--print-config"],
        cwd=project,
        env=environment(project),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    entry = json.loads(shown.stdout)["mcpServers"]["nucleo-ops"]
    assert entry["command"] == str(NUCLEO)
    assert entry["args"] == ["mcp", "serve", "--profile", "ops", "--project", str(project)]


def test_an_unknown_profile_is_refused_naming_the_declared_ones(project: Path) -> None:
    """A profile nobody declared exits 2 with the declared profiles and how to declare one."""
    import subprocess

    shown = subprocess.run(
        [str(NUCLEO), "mcp", "serve", "--profile", "nope"],
        cwd=project,
        env=environment(project),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 2
    assert "no gateway profile named 'nope'" in shown.stderr
    assert "ops" in shown.stderr


def test_on_the_2026_protocol_a_search_is_announced_on_the_listen_stream(project: Path) -> None:
    """On 2026-07-28 the list change after a search reaches the client's subscriptions/listen."""

    async def body() -> tuple[str, object, list[str]]:
        async with connect(project, "search", protocol="auto") as client:
            async with client.listen(tools_list_changed=True) as events:
                found = await client.call_tool("search_tools", {"query": "invoice"})
                assert found.is_error is False, text_of(found)
                event = await asyncio.wait_for(events.__anext__(), 60)
            names = [tool.name for tool in (await client.list_tools()).tools]
            return client.protocol_version, event, names

    version, event, names = run(body)
    assert version == "2026-07-28"
    assert type(event).__name__ == "ToolsListChanged"
    assert names == ["search_tools", "lookup_invoice"]


def test_an_upstream_list_change_is_announced_and_its_new_tool_listed(project: Path) -> None:
    """A server that adds a tool (its own list_changed) has the client told and listed it."""
    messages: list[Any] = []
    added = f"added_{uuid.uuid4().hex[:6]}"

    async def body() -> tuple[list[str], Any]:
        async with connect(project, messages=messages) as client:
            before = [tool.name for tool in (await client.list_tools()).tools]
            grown = await client.call_tool("grow", {"name": added})
            assert grown.is_error is False, text_of(grown)
            deadline = asyncio.get_running_loop().time() + 60
            while not any(isinstance(m, types.ToolListChangedNotification) for m in messages):
                assert asyncio.get_running_loop().time() < deadline, "no list_changed came"
                await asyncio.sleep(0.05)
            after = [tool.name for tool in (await client.list_tools()).tools]
            called = await client.call_tool(added, {})
            assert added not in before
            return after, called

    after, called = run(body)
    assert added in after
    assert text_of(called) == f"I am {added}"


def test_a_thinker_that_needs_more_than_a_hub_is_refused_before_serving(project: Path) -> None:
    """A profile whose class cannot be built with hub= alone exits 2 saying what to fix."""
    import subprocess

    shown = subprocess.run(
        [str(NUCLEO), "mcp", "serve", "--profile", "needy"],
        cwd=project,
        env=environment(project),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 2
    assert "cannot build 'gateway_agents:NeedsAModel' with hub= alone" in shown.stderr
    assert "give its other parameters defaults" in shown.stderr


def test_an_enumerated_catalog_is_admitted_whole_and_listed(project: Path) -> None:
    """A small catalog is listed whole, each tool admitted on the record; request_tools is not."""
    name = client_name()

    async def body() -> tuple[list[str], Any]:
        async with connect(project, "listed", name=name) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            called = await client.call_tool("list_customers", {})
            return names, called

    names, called = run(body)
    assert names == ["lookup_invoice", "list_customers"]
    assert text_of(called) == "ada, grace"
    grants = [r["tool"] for r in records_of(project, name) if r["kind"] == "grant"]
    assert sorted(grants) == ["list_customers", "lookup_invoice"]


def test_resource_links_embedded_resources_and_audio_pass_through(project: Path) -> None:
    """A resource link, an embedded resource and audio reach the client with every field."""

    async def body() -> tuple[Any, Any, Any]:
        async with connect(project, "media") as client:
            link = await client.call_tool("report_link", {})
            note = await client.call_tool("embedded_note", {})
            sound = await client.call_tool("chime", {})
            return link, note, sound

    link, note, sound = run(body)
    (block,) = link.content
    assert block.type == "resource_link"
    assert (str(block.uri), block.name, block.title, block.description, block.mime_type) == (
        "file:///reports/q3.pdf",
        "q3.pdf",
        "Q3 report",
        "The third quarter's report.",
        "application/pdf",
    )
    (embedded,) = note.content
    assert embedded.type == "resource"
    assert (str(embedded.resource.uri), embedded.resource.text) == (
        "memo://note/1",
        "# Note\nkeep it",
    )
    (audio,) = sound.content
    assert (audio.type, audio.mime_type) == ("audio", "audio/wav")
    assert audio.data == "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
