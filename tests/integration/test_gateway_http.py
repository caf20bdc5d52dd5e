"""``nucleo mcp serve --http``: streamable HTTP on 127.0.0.1, behind a bearer token.

The gateway runs as a real subprocess on an ephemeral port; the official SDK client reaches it
over streamable HTTP with the token, and plain HTTP requests check what it refuses.
"""

from __future__ import annotations

import asyncio
import contextlib
import stat
import subprocess
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from _gateway import (
    NUCLEO,
    audit_records,
    environment,
    gateway_http,
    serve_args,
    text_of,
    write_project,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from nucleo_core.gateway import BearerToken

#: A token given through the environment (long enough to be accepted).
ENV_TOKEN = "a-test-token-of-the-environment-0123456789"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project for the module's gateways."""
    return write_project(tmp_path_factory.mktemp("gateway-http"))


@contextlib.asynccontextmanager
async def client(
    url: str, token: str, name: str, *, mode: str = "legacy", **options: Any
) -> AsyncIterator[Client]:
    """The SDK client over streamable HTTP, sending ``token`` (its HTTP client closed after)."""
    async with httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30.0, read=300.0)
    ) as http:
        session = Client(
            streamable_http_client(url, http_client=http),
            mode=mode,  # type: ignore[arg-type]
            client_info=types.Implementation(name=name, version="7"),
            **options,
        )
        async with session:
            yield session


def status_of(url: str, authorization: str | None) -> tuple[int, str]:
    """The status and body of a bare POST to the endpoint."""
    request = urllib.request.Request(url, data=b"{}", method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/event-stream")
    if authorization is not None:
        request.add_header("Authorization", authorization)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_requests_without_the_right_token_are_refused(project: Path) -> None:
    """A request with no token, a wrong one or another scheme is answered 401."""
    with gateway_http("solo", project) as gateway:
        for authorization in (None, "Bearer wrong-token-wrong-token", f"Basic {gateway.token}"):
            status, body = status_of(gateway.url, authorization)
            assert status == 401
            assert gateway.token not in body
        kept = project / ".nucleo" / "gateway-token"
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_calls_over_http_are_recorded_with_the_token_and_the_client(project: Path) -> None:
    """A call with the token runs; its records name the token's holder and the client."""
    name = f"http-{uuid.uuid4().hex[:8]}"

    async def body(url: str, token: str) -> Any:
        async with client(url, token, name) as session:
            return await session.call_tool("echo", {"text": "over http"})

    with gateway_http("solo", project) as gateway:
        result = asyncio.run(body(gateway.url, gateway.token))
    assert (text_of(result), result.is_error) == ("over http", False)
    chains = [
        record["requester"]["parents"]
        for record in audit_records(project)
        if f"mcp-client {name} 7" in (record.get("requester") or {}).get("parents", [])
    ]
    assert chains
    holder = chains[0][0]
    assert holder.startswith("token ")
    assert "sha256:" in holder
    assert gateway.token not in holder


def test_the_token_of_the_environment_is_the_one_required(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With NUCLEO_API_TOKEN set, that token is required (and the file's is not accepted)."""
    name = f"env-{uuid.uuid4().hex[:8]}"

    async def body(url: str) -> Any:
        async with client(url, ENV_TOKEN, name) as session:
            return await session.call_tool("echo", {"text": "env"})

    monkeypatch.delenv("NUCLEO_API_TOKEN", raising=False)  # this process makes the file
    BearerToken.load(project)  # a token file too, which the environment's token overrides
    kept = (project / ".nucleo" / "gateway-token").read_text().strip()
    with gateway_http("solo", project, NUCLEO_API_TOKEN=ENV_TOKEN) as gateway:
        assert gateway.token == ENV_TOKEN
        assert status_of(gateway.url, f"Bearer {kept}")[0] == 401
        result = asyncio.run(body(gateway.url))
    assert text_of(result) == "env"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_confirm_over_http_is_asked_through_elicitation(project: Path, mode: str) -> None:
    """Over HTTP too, a confirm call is asked of the client's user and runs once accepted."""
    asked: list[str] = []

    async def elicit(_context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    async def body(url: str, token: str) -> Any:
        async with client(
            url, token, f"http-elicit-{mode}", mode=mode, elicitation_callback=elicit
        ) as session:
            return await session.call_tool("wipe", {"target": "tmp"})

    with gateway_http("solo", project) as gateway:
        result = asyncio.run(body(gateway.url, gateway.token))
    assert (text_of(result), result.is_error) == ("wiped tmp", False)
    assert len(asked) == 1


def test_a_host_that_is_not_loopback_is_refused_without_allow_remote(project: Path) -> None:
    """Serving on 0.0.0.0 exits 2 saying why, unless --allow-remote is given."""
    shown = subprocess.run(
        [str(NUCLEO), *serve_args("solo", project, "--http", "--host", "0.0.0.0")],
        cwd=project,
        env=environment(project),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 2
    assert "--allow-remote" in shown.stderr
    assert "not a loopback address" in shown.stderr
