"""The HTTP API in a program of your own: serve a hub's tools, then call them over HTTP.

`nucleo serve` does the same for a project from the command line; here the app is built with
`create_app` and served by uvicorn on a free port of 127.0.0.1, in a thread.
"""

import json
import secrets
import threading
import urllib.error
import urllib.request

import uvicorn

from nucleo_core import ToolHub, tool
from nucleo_core.guard import MemoryApprovalStore
from nucleo_core.server import ApiService, ApiToken, create_app


@tool(read_only=True, risk="low")
def lookup_order(order_id: int) -> dict[str, object]:
    """Look an order up."""
    return {"id": order_id, "status": "shipped"}


@tool(risk="high")
def cancel_order(order_id: int) -> str:
    """Cancel an order."""
    return f"order {order_id} cancelled"


token = ApiToken(secrets.token_urlsafe(32), "environment")
service = ApiService.build(
    hub=ToolHub(),
    tools=[(lookup_order, "this program"), (cancel_order, "this program")],
    thinkers=[],
    approvals=MemoryApprovalStore(),
    token=token,
)
server = uvicorn.Server(
    uvicorn.Config(create_app(service), host="127.0.0.1", port=0, log_level="critical")
)
thread = threading.Thread(target=server.run, daemon=True)
thread.start()
while not server.started:  # uvicorn sets it once it listens
    threading.Event().wait(0.01)
port = server.servers[0].sockets[0].getsockname()[1]


def call(method: str, path: str, body: object = None) -> tuple[int, dict[str, object]]:
    """One request bearing the token; the status and the JSON answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token.reveal()}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


status, listing = call("GET", "/api/tools")
for listed in listing["tools"]:
    print(listed["id"], listed["risk"], listed["decision"]["decision"])

status, result = call("POST", "/api/tools/lookup_order/execute", {"input": {"order_id": 7}})
print(status, result["status"], result["structured"])

status, pending = call("POST", "/api/tools/native:cancel_order/execute", {"input": {"order_id": 7}})
print(status, pending["status"], pending["decided_by"])
status, decided = call("POST", f"/api/approvals/{pending['approval_id']}", {"decision": "approve"})
print(status, decided["approval"]["status"], decided["execution"]["content"])

status, refused = call("POST", "/api/tools/lookup_order/execute", {"input": {"order_id": "seven"}})
print(status, refused["error"], refused["problems"])

server.should_exit = True
thread.join()
