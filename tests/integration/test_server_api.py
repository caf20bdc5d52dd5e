"""The HTTP API against a real ``nucleo serve`` process on 127.0.0.1 (`_server_harness`).

One server serves the test project (its tools, a deny rule, a thinker class) for the module;
each test makes its own calls and looks only at its own records, so the tests hold in any
order.
"""

from __future__ import annotations

import hashlib
import json
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _server_harness import (
    PROJECT_ARGUMENTS,
    Answer,
    Server,
    make_project,
    running_server,
    server_environment,
)

API_CALLER = "nucleo_core.server.executions.ApiCaller"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The test project served, with a short audit stream."""
    project = make_project(tmp_path_factory.mktemp("served"))
    with running_server(project, *PROJECT_ARGUMENTS, "--stream-seconds", "120") as running:
        yield running


def identity_of(server: Server) -> str:
    """How the audit record names the server's token (a hash prefix, never the token)."""
    return "api-token:" + hashlib.sha256(server.token.encode()).hexdigest()[:12]


def execute(server: Server, tool: str, arguments: dict[str, Any]) -> Answer:
    return server.request("POST", f"/api/tools/{tool}/execute", {"input": arguments})


def records_of(server: Server, call_id: str) -> list[dict[str, Any]]:
    page = server.request("GET", "/api/audit?limit=1000").body
    found = [r for r in page["records"] if r["call_id"] == call_id]
    while page["next_after"] is not None:
        page = server.request("GET", f"/api/audit?limit=1000&after={page['next_after']}").body
        found += [r for r in page["records"] if r["call_id"] == call_id]
    return found


def test_the_health_check_answers_without_a_token(server: Server) -> None:
    """GET /api/health is the one endpoint that needs no token."""
    answer = server.request("GET", "/api/health", token=None)
    assert answer.status == 200
    assert answer.body["status"] == "ok"


def test_the_server_says_where_the_api_and_the_console_are(server: Server) -> None:
    """Its first lines name the API's address and the console's, never the token itself."""
    said = server.stderr.read_text(encoding="utf-8")
    assert f"nucleo API on {server.url}/api" in said
    assert f"The console: open {server.url}/ in a browser" in said
    assert server.token not in said


ENDPOINTS = [
    ("GET", "/api/tools", None),
    ("POST", "/api/tools/filter", {}),
    ("GET", "/api/tools/logs", None),
    ("GET", "/api/tools/native:lookup_ticket", None),
    ("POST", "/api/tools/lookup_ticket/execute", {"input": {"ticket_id": 1}}),
    ("GET", "/api/approvals", None),
    ("GET", "/api/approvals/any", None),
    ("POST", "/api/approvals/any", {"decision": "approve"}),
    ("GET", "/api/executions/any", None),
    ("GET", "/api/audit", None),
    ("GET", "/api/audit/stream", None),
    ("GET", "/api/openapi.json", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
@pytest.mark.parametrize("token", [None, "not-the-token", ""], ids=["none", "wrong", "empty"])
def test_every_endpoint_but_health_refuses_a_request_without_the_right_token(
    server: Server, method: str, path: str, body: object, token: str | None
) -> None:
    """No token, a wrong token or an empty one: 401 with a typed error, and nothing runs."""
    headers = {"Authorization": "Bearer "} if token == "" else None
    answer = server.request(
        method, path, body, token=None if token == "" else token, headers=headers
    )
    assert answer.status == 401
    assert answer.body["error"] == "unauthorized"
    assert answer.headers["WWW-Authenticate"] == "Bearer"
    assert "set-cookie" not in answer.headers
    assert "access-control-allow-origin" not in answer.headers


def test_the_token_file_is_generated_readable_only_by_its_user(server: Server) -> None:
    """On first start the token is written to .nucleo/api-token with mode 0600."""
    path = server.project / ".nucleo" / "api-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(server.token) >= 32


def test_the_listing_shows_declarations_decisions_and_the_thinker_classes_holding_each_tool(
    server: Server,
) -> None:
    """Each listed tool has its source, read-only, risk, the policy's decision and holders."""
    answer = server.request("GET", "/api/tools")
    assert answer.status == 200
    tools = {tool["id"]: tool for tool in answer.body["tools"]}
    assert answer.body["count"] == len(tools)
    assert list(tools) == [
        "native:lookup_ticket",
        "native:notify_team",
        "native:refund",
        "native:drop_table",
        "native:close_ticket",
        "native:explode",
    ]
    lookup = tools["native:lookup_ticket"]
    assert (lookup["name"], lookup["source"], lookup["source_kind"]) == (
        "lookup_ticket",
        "native:lookup_ticket",
        "native",
    )
    assert (lookup["read_only"], lookup["risk"], lookup["risk_declared"]) == (True, "low", True)
    assert lookup["description"] == "Look a ticket up by its number."
    assert lookup["decision"]["decision"] == "auto"
    assert lookup["thinkers"] == [
        {"thinker": "desk_agents.Desk", "palette": True, "catalog": False}
    ]
    notify = tools["native:notify_team"]
    assert notify["decision"]["decision"] == "notify"
    assert notify["thinkers"] == [
        {"thinker": "desk_agents.Desk", "palette": False, "catalog": True}
    ]
    assert tools["native:refund"]["decision"]["decision"] == "confirm"
    assert tools["native:refund"]["thinkers"] == []
    drop = tools["native:drop_table"]["decision"]
    assert (drop["decision"], drop["decided_by"]) == ("deny", "rule:no-drops")


@pytest.mark.parametrize("tool_id", ["native:refund", "refund"])
def test_one_tool_is_found_by_its_source_id_or_its_bare_name(server: Server, tool_id: str) -> None:
    """GET /api/tools/{id} takes native:<name> and the bare name, and shows the schemas."""
    answer = server.request("GET", f"/api/tools/{tool_id}")
    assert answer.status == 200
    assert answer.body["id"] == "native:refund"
    assert set(answer.body["input_schema"]["properties"]) == {"ticket_id", "amount"}


def test_an_unknown_tool_is_404_without_repeating_the_id_sent(server: Server) -> None:
    """A tool id nothing serves is a typed 404 that does not echo what was sent."""
    for path in ("/api/tools/native:no_such_secret", "/api/tools/mcp:srv:no_such_secret"):
        answer = server.request("GET", path)
        assert answer.status == 404
        assert answer.body["error"] == "unknown_tool"
        assert "no_such_secret" not in json.dumps(answer.body)
    executed = execute(server, "mcp:srv:no_such_secret", {})
    assert executed.status == 404
    assert "no_such_secret" not in json.dumps(executed.body)


@pytest.mark.parametrize(
    ("wanted", "expected"),
    [
        ({"source": "native"}, 6),
        ({"source": "mcp"}, 0),
        ({"source": "native:re*"}, ["native:refund"]),
        ({"risk": ["high"]}, ["native:refund", "native:drop_table"]),
        ({"read_only": True}, ["native:lookup_ticket", "native:explode"]),
        ({"thinker": "Desk"}, ["native:lookup_ticket", "native:notify_team"]),
        ({"thinker": "desk_agents.Desk", "risk": ["medium"]}, ["native:notify_team"]),
        ({"text": "CUSTOMER"}, ["native:refund"]),
        ({"decision": ["deny"]}, ["native:drop_table", "native:close_ticket"]),
    ],
)
def test_the_filter_selects_by_source_risk_read_only_thinker_and_text(
    server: Server, wanted: dict[str, Any], expected: int | list[str]
) -> None:
    """POST /api/tools/filter and GET /api/tools with query parameters select the same tools."""
    posted = server.request("POST", "/api/tools/filter", wanted)
    assert posted.status == 200
    ids = [tool["id"] for tool in posted.body["tools"]]
    assert (len(ids) if isinstance(expected, int) else ids) == expected
    from urllib.parse import urlencode

    query = urlencode(
        [
            (key, str(item).lower() if isinstance(item, bool) else item)
            for key, value in wanted.items()
            for item in (value if isinstance(value, list) else [value])
        ]
    )
    got = server.request("GET", f"/api/tools?{query}")
    assert [tool["id"] for tool in got.body["tools"]] == ids


def test_a_filter_with_an_unknown_field_or_a_wrong_type_is_422(server: Server) -> None:
    """A typo in a filter, or 0 for a boolean, is refused and named, not ignored."""
    for wanted, field in (({"risky": ["high"]}, "risky"), ({"read_only": 0}, "read_only")):
        answer = server.request("POST", "/api/tools/filter", wanted)
        assert answer.status == 422
        assert answer.body["error"] == "invalid_input"
        assert any(problem.startswith(field) for problem in answer.body["problems"])


@pytest.mark.parametrize("tool_id", ["native:lookup_ticket", "lookup_ticket"])
def test_an_auto_call_returns_what_the_model_would_read_and_the_structured_output(
    server: Server, tool_id: str
) -> None:
    """auto: 200, the result text a model reads, the output as JSON, on the record as the token."""
    answer = execute(server, tool_id, {"ticket_id": 7})
    assert answer.status == 200
    result = answer.body
    assert (result["status"], result["decision"], result["is_error"]) == ("ok", "auto", False)
    assert json.loads(result["content"]) == {"id": 7, "title": "ticket 7"}
    assert result["structured"] == {"id": 7, "title": "ticket 7"}
    kinds = [
        (r["kind"], r["thinker_class"], r["thinker_id"])
        for r in records_of(server, result["call_id"])
    ]
    who = identity_of(server)
    assert kinds == [("call_start", API_CALLER, who), ("call_finish", API_CALLER, who)]


def test_a_notify_call_runs_and_says_so(server: Server) -> None:
    """notify: the call runs, and its decision is notify."""
    answer = execute(server, "notify_team", {"message": "lunch"})
    assert answer.status == 200
    assert (answer.body["status"], answer.body["decision"]) == ("ok", "notify")
    assert answer.body["content"] == "told the team (5 characters)"
    assert answer.body["structured"] is None  # plain text


def test_a_denied_call_is_403_with_the_policys_reason_and_does_not_run(server: Server) -> None:
    """deny: 403 with the rule's reason; the tool never ran; the refusal is on the record."""
    answer = execute(server, "native:drop_table", {"table": "customers"})
    assert answer.status == 403
    assert answer.body["error"] == "permission_denied"
    assert "tables are dropped by a person" in answer.body["message"]
    assert "customers" not in answer.body["message"]
    assert not (server.project / "dropped.txt").exists()
    logs = server.request("GET", "/api/tools/logs?tool=drop_table").body["records"]
    assert any(r["kind"] == "permission" and r["decision"] == "deny" for r in logs)


def test_a_rule_naming_the_api_caller_decides_for_calls_over_http(server: Server) -> None:
    """The API caller is a thinker class the policy's rules can name: low risk, yet denied."""
    listed = server.request("GET", "/api/tools/close_ticket").body["decision"]
    assert (listed["decision"], listed["decided_by"]) == ("deny", "rule:not-over-http")
    answer = execute(server, "close_ticket", {"ticket_id": 4})
    assert answer.status == 403
    assert "tickets are closed in the helpdesk, not over HTTP" in answer.body["message"]


def test_input_errors_are_422_with_the_models_message_never_the_value(server: Server) -> None:
    """A wrong type or an unknown field: 422 naming the field and type, never the value sent."""
    answer = execute(server, "lookup_ticket", {"ticket_id": "the-secret-value"})
    assert answer.status == 422
    assert answer.body["error"] == "invalid_input"
    assert answer.body["problems"] == ["ticket_id: expected integer"]
    assert "the-secret-value" not in json.dumps(answer.body)
    extra = execute(server, "lookup_ticket", {"ticket_id": 1, "sneaky-secret": 1})
    assert extra.status == 422
    assert "sneaky-secret" not in json.dumps(extra.body)
    not_an_object = server.request(
        "POST", "/api/tools/lookup_ticket/execute", {"input": ["the-secret-list"]}
    )
    assert not_an_object.status == 422
    assert "the-secret-list" not in json.dumps(not_an_object.body)


def test_a_tool_that_fails_reads_as_the_model_reads_it_without_its_message(
    server: Server,
) -> None:
    """A tool that raises: 200 status failed, only the exception's type, no trace, no secret."""
    answer = execute(server, "explode", {"code": "x"})
    assert answer.status == 200
    assert (answer.body["status"], answer.body["is_error"]) == ("failed", True)
    assert "RuntimeError" in answer.body["content"]
    text = json.dumps(answer.body)
    assert "hunter2" not in text
    assert "Traceback" not in text
    records = records_of(server, answer.body["call_id"])
    assert records[-1]["developer"] == {"exception_type": "RuntimeError"}


def pending_refund(server: Server, amount: int) -> dict[str, Any]:
    answer = execute(server, "refund", {"ticket_id": 3, "amount": amount})
    assert answer.status == 202
    assert answer.body["status"] == "pending"
    return dict(answer.body)


def refunds(server: Server) -> list[str]:
    path = server.project / "refunds.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_a_confirm_call_waits_and_runs_exactly_once_when_approved_over_http(
    server: Server,
) -> None:
    """confirm: 202 with the approval; approving runs it once; asking again never reruns it."""
    pending = pending_refund(server, 101)
    approval_id = pending["approval_id"]
    assert "3 101" not in refunds(server)
    listed = server.request("GET", "/api/approvals").body["approvals"]
    mine = next(a for a in listed if a["id"] == approval_id)
    assert (mine["kind"], mine["status"], mine["tool"]) == ("api_execution", "pending", "refund")
    assert mine["arguments"] == {"ticket_id": 3, "amount": 101}
    assert mine["requested_by"] == identity_of(server)
    waiting = server.request("GET", pending["execution_url"])
    assert waiting.status == 202

    decided = server.request("POST", pending["approval_url"], {"decision": "approve"})
    assert decided.status == 200
    assert decided.body["approval"]["status"] == "consumed"  # claimed by the call that ran
    assert decided.body["approval"]["decided_by"] == identity_of(server)
    execution = decided.body["execution"]
    assert (execution["status"], execution["decision"]) == ("ok", "confirm")
    assert execution["content"] == "refunded 101 on ticket 3"
    assert refunds(server).count("3 101") == 1

    again = server.request("GET", pending["execution_url"])
    assert again.status == 200
    assert again.body == execution
    twice = server.request("POST", pending["approval_url"], {"decision": "approve"})
    assert twice.status == 409
    assert twice.body["error"] == "already_decided"
    assert refunds(server).count("3 101") == 1
    kinds = [(r["kind"], r["outcome"]) for r in records_of(server, pending["call_id"])]
    assert ("approval_request", None) in kinds
    assert ("approval_decision", "approved") in kinds
    assert [k for k in kinds if k[0] == "call_start"] == [("call_start", None)]
    assert ("call_finish", "ok") in kinds


def test_an_api_execution_approved_with_the_cli_runs_once_without_being_read(
    server: Server,
) -> None:
    """`nucleo approvals approve` of an API execution: the server runs it by itself, once."""
    pending = pending_refund(server, 303)
    nucleo = Path(sys.executable).parent / "nucleo"
    decided = subprocess.run(
        [nucleo, "approvals", "approve", pending["approval_id"]],
        cwd=server.project,
        env=server_environment(server.project),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert decided.returncode == 0, decided.stderr
    assert f"GET /api/executions/{pending['approval_id']}" in decided.stdout
    assert "nucleo resume" not in decided.stdout
    # Nobody reads the execution: the server's settler finds the approval and runs the call.
    deadline = time.monotonic() + 60
    while "3 303" not in refunds(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert refunds(server).count("3 303") == 1
    ran = server.request("GET", pending["execution_url"])
    assert (ran.status, ran.body["status"]) == (200, "ok")
    assert ran.body["content"] == "refunded 303 on ticket 3"
    again = server.request("GET", pending["execution_url"])
    assert again.body == ran.body
    assert refunds(server).count("3 303") == 1
    kinds = [(r["kind"], r["outcome"]) for r in records_of(server, pending["call_id"])]
    assert [k for k in kinds if k[0] == "call_start"] == [("call_start", None)]


def test_a_rejected_call_never_runs_and_says_why(server: Server) -> None:
    """Rejecting over HTTP needs a reason; the call is refused with it and never runs."""
    pending = pending_refund(server, 202)
    blank = server.request("POST", pending["approval_url"], {"decision": "reject", "reason": " "})
    assert blank.status == 422
    missing = server.request("POST", pending["approval_url"], {"decision": "reject"})
    assert missing.status == 422
    decided = server.request(
        "POST", pending["approval_url"], {"decision": "reject", "reason": "not this customer"}
    )
    assert decided.status == 200
    assert decided.body["approval"]["status"] == "rejected"
    execution = decided.body["execution"]
    assert execution["status"] == "refused"
    assert "not this customer" in execution["content"]
    assert "3 202" not in refunds(server)
    later = server.request("GET", pending["execution_url"])
    assert later.body["status"] == "refused"
    approve_after = server.request("POST", pending["approval_url"], {"decision": "approve"})
    assert approve_after.status == 409
    assert "3 202" not in refunds(server)


def test_an_unknown_approval_or_execution_is_404(server: Server) -> None:
    """Deciding or reading an approval nothing keeps is a typed 404."""
    for method, path, body in (
        ("GET", "/api/approvals/nope", None),
        ("POST", "/api/approvals/nope", {"decision": "approve"}),
        ("GET", "/api/executions/nope", None),
    ):
        answer = server.request(method, path, body)
        assert answer.status == 404, (method, path)
        assert answer.body["error"] in ("unknown_approval", "unknown_execution")


def test_the_audit_is_paged_with_the_filters_of_nucleo_audit(server: Server) -> None:
    """GET /api/audit pages in sequence order with after/next_after, filtered like the CLI."""
    for number in range(3):
        assert execute(server, "lookup_ticket", {"ticket_id": 900 + number}).status == 200
    first = server.request("GET", "/api/audit?kind=call_finish&tool=lookup_*&limit=2")
    assert first.status == 200
    assert len(first.body["records"]) == 2
    assert first.body["next_after"] == first.body["records"][-1]["sequence"]
    second = server.request(
        "GET", f"/api/audit?kind=call_finish&tool=lookup_*&limit=2&after={first.body['next_after']}"
    )
    sequences = [r["sequence"] for r in first.body["records"] + second.body["records"]]
    assert sequences == sorted(sequences)
    assert len(set(sequences)) == len(sequences)
    everything = first.body["records"] + second.body["records"]
    assert {r["kind"] for r in everything} == {"call_finish"}
    assert {r["tool"] for r in everything} == {"lookup_ticket"}
    mine = server.request("GET", f"/api/audit?thinker={identity_of(server)}&since=1h&limit=5")
    assert mine.status == 200
    assert {r["thinker_id"] for r in mine.body["records"]} == {identity_of(server)}
    wrong = server.request("GET", "/api/audit?kind=not-a-kind")
    assert wrong.status == 422
    bad_since = server.request("GET", "/api/audit?since=yesterday")
    assert bad_since.status == 422


def test_the_tool_log_shows_the_recent_calls_of_a_tool(server: Server) -> None:
    """GET /api/tools/logs shows the last calls' records of a tool, newest last."""
    answer = execute(server, "notify_team", {"message": "for the log"})
    logs = server.request("GET", "/api/tools/logs?tool=notify_team&limit=2")
    assert logs.status == 200
    assert [r["call_id"] for r in logs.body["records"]] == [answer.body["call_id"]] * 2
    assert [r["kind"] for r in logs.body["records"]] == ["call_start", "call_finish"]


def test_the_audit_stream_sends_each_new_record_as_a_server_sent_event(server: Server) -> None:
    """GET /api/audit/stream: events with the sequence as id, live, resumable by Last-Event-ID."""
    head = server.request("GET", "/api/audit?limit=1000").body
    while head["next_after"] is not None:
        head = server.request("GET", f"/api/audit?limit=1000&after={head['next_after']}").body
    start = head["records"][-1]["sequence"] if head["records"] else 0
    with server.open_stream(f"/api/audit/stream?after={start}&tool=lookup_ticket") as stream:
        assert stream.headers.get_content_type() == "text/event-stream"
        assert stream.readline() == b"retry: 1000\n"  # the stream is open before the call
        call = execute(server, "lookup_ticket", {"ticket_id": 55}).body["call_id"]
        events = read_events(stream, until=lambda event: event["data"]["kind"] == "call_finish")
    assert [event["data"]["call_id"] for event in events] == [call, call]
    assert [event["data"]["kind"] for event in events] == ["call_start", "call_finish"]
    assert all(event["event"] == "record" for event in events)
    assert [int(event["id"]) for event in events] == [e["data"]["sequence"] for e in events]
    resumed_after = events[0]["id"]
    with server.open_stream(
        f"/api/audit/stream?after={start}&tool=lookup_ticket",
        headers={"Last-Event-ID": resumed_after},
    ) as again:
        again.readline()
        resumed = read_events(again, until=lambda event: True)
    assert resumed[0]["id"] == events[1]["id"]


def read_events(stream: Any, until: Any) -> list[dict[str, Any]]:
    """Read SSE events until one satisfies ``until`` (the stream ends by itself in time)."""
    events: list[dict[str, Any]] = []
    event: dict[str, Any] = {}
    for raw in stream:
        line = raw.decode("utf-8").rstrip("\n")
        if line.startswith(":"):
            continue
        if not line:
            if "data" in event:
                event["data"] = json.loads(event["data"])
                events.append(event)
                if until(event):
                    return events
            event = {}
            continue
        field, _, value = line.partition(": ")
        event[field] = value
    raise AssertionError(f"the stream ended after {len(events)} events")


def test_a_body_larger_than_the_limit_is_413(server: Server) -> None:
    """A request body past the limit (1 MiB by default) is refused with a typed 413."""
    huge = {"input": {"message": "x" * (1024 * 1024 + 10)}}
    answer = server.request("POST", "/api/tools/notify_team/execute", huge)
    assert answer.status == 413
    assert answer.body["error"] == "request_too_large"


def test_a_chunked_body_past_the_limit_is_413_too(server: Server) -> None:
    """A body sent in chunks, with no length declared, is refused once it passes the limit."""
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(server.url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=120)
    chunks = [b'{"input": {"message": "'] + [b"x" * 65536] * 20 + [b'"}}']
    try:
        connection.request(
            "POST",
            "/api/tools/notify_team/execute",
            body=iter(chunks),
            headers={
                "Authorization": f"Bearer {server.token}",
                "Content-Type": "application/json",
                "Transfer-Encoding": "chunked",
            },
            encode_chunked=True,
        )
        response = connection.getresponse()
        body = json.loads(response.read())
    finally:
        connection.close()
    assert response.status == 413
    assert body["error"] == "request_too_large"


def test_a_malformed_body_is_a_typed_error_without_a_trace(server: Server) -> None:
    """Bytes that are not JSON get a typed 4xx error, never a stack trace."""
    for data in (b"{not json", b"\xff\xfe\x00"):
        answer = server.request("POST", "/api/tools/filter", data=data)
        assert answer.status in (400, 422)
        assert isinstance(answer.body, dict)
        assert "Traceback" not in json.dumps(answer.body)
    missing = server.request("GET", "/api/no-such-endpoint")
    assert (missing.status, missing.body["error"]) == (404, "not_found")


def test_the_openapi_schema_is_served_behind_the_token(server: Server) -> None:
    """GET /api/openapi.json with the token is the schema naming every endpoint."""
    answer = server.request("GET", "/api/openapi.json")
    assert answer.status == 200
    paths = set(answer.body["paths"])
    assert {
        "/api/tools",
        "/api/tools/filter",
        "/api/tools/logs",
        "/api/tools/{tool_id}",
        "/api/tools/{tool_id}/execute",
        "/api/approvals",
        "/api/approvals/{approval_id}",
        "/api/executions/{approval_id}",
        "/api/audit",
        "/api/audit/stream",
        "/api/health",
    } == paths


def test_answers_are_not_cached_and_carry_no_cookies(server: Server) -> None:
    """Every answer says no-store and nosniff, and sets no cookie."""
    answer = server.request("GET", "/api/tools")
    assert answer.headers["Cache-Control"] == "no-store"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers.get("Set-Cookie") is None
