"""The console's page against a real ``nucleo serve``: its security headers, and the token rule.

The page and its files load without the token (they hold no data); every API endpoint the
server's own OpenAPI schema lists, but the health check, still refuses a request without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from importlib.resources import files

import pytest
from _server_harness import PROJECT_ARGUMENTS, Server, make_project, running_server

CONSOLE_FILES = {
    "/": "text/html",
    "/console/console.js": "text/javascript",
    "/console/console.css": "text/css",
    "/console/icon.svg": "image/svg+xml",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The test project served."""
    project = make_project(tmp_path_factory.mktemp("console"))
    with running_server(project, *PROJECT_ARGUMENTS) as running:
        yield running


def policy(header: str) -> dict[str, str]:
    """A Content-Security-Policy header as its directives."""
    found = {}
    for directive in header.split(";"):
        name, _, value = directive.strip().partition(" ")
        found[name] = value.strip()
    return found


@pytest.mark.parametrize(("path", "media_type"), CONSOLE_FILES.items())
def test_the_console_loads_without_a_token_under_a_strict_policy(
    server: Server, path: str, media_type: str
) -> None:
    """Each console file is 200 without a token, with a CSP of this origin only and no framing."""
    answer = server.request("GET", path, token=None)
    assert answer.status == 200
    assert answer.headers.get_content_type() == media_type
    csp = policy(answer.headers["Content-Security-Policy"])
    assert csp["default-src"] == "'none'"
    assert csp["script-src"] == "'self'"  # no inline script, no eval, nothing from elsewhere
    assert csp["style-src"] == "'self'"
    assert csp["connect-src"] == "'self'"
    assert csp["frame-ancestors"] == "'none'"
    assert csp["form-action"] == "'none'"
    assert csp["base-uri"] == "'none'"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["Cache-Control"] == "no-store"
    assert "set-cookie" not in answer.headers
    assert "access-control-allow-origin" not in answer.headers


def test_an_unknown_console_file_is_a_plain_404(server: Server) -> None:
    """Only the console's own files are served: any other name under /console/ is a 404."""
    for path in ("/console/index.html.bak", "/console/../pyproject.toml", "/console/"):
        answer = server.request("GET", path, token=None)
        assert answer.status == 404, path
        assert answer.body["error"] == "not_found"


def test_every_api_endpoint_but_health_still_needs_the_token(server: Server) -> None:
    """With the console served at /, each endpoint of the server's schema but health is 401."""
    schema = server.request("GET", "/api/openapi.json").body
    assert "/" not in schema["paths"]  # the console is not part of the API
    checked: set[tuple[str, str]] = set()
    for template, operations in schema["paths"].items():
        path = re.sub(r"\{[^}]+\}", "any", template)
        for method in operations:
            body = {} if method in {"post", "put", "patch"} else None
            answer = server.request(method.upper(), path, body, token=None)
            if template == "/api/health":
                assert answer.status == 200
                continue
            assert answer.status == 401, f"{method.upper()} {template}: {answer.status}"
            assert answer.body["error"] == "unauthorized"
            checked.add((method, template))
    assert {  # the schema is the server's: it cannot have lost the endpoints the console uses
        ("get", "/api/tools"),
        ("post", "/api/tools/filter"),
        ("get", "/api/tools/logs"),
        ("get", "/api/tools/{tool_id}"),
        ("post", "/api/tools/{tool_id}/execute"),
        ("get", "/api/approvals"),
        ("post", "/api/approvals/{approval_id}"),
        ("get", "/api/audit"),
        ("get", "/api/audit/stream"),
    } <= checked
    assert server.request("GET", "/api/openapi.json", token=None).status == 401


class _Markup(HTMLParser):
    """What of the page a policy of no inline script and no inline style would block."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        self.inline += [f"{tag}[{name}]" for name in names if name.startswith("on")]
        if "style" in names:
            self.inline.append(f"{tag}[style]")
        if tag == "style":
            self.inline.append("<style>")
        if tag == "script":
            self.scripts.append(dict(attrs).get("src") or "")
            self._in_script = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append("<script> with a body")


def test_the_page_holds_no_inline_script_or_style_and_its_script_writes_no_markup(
    server: Server,
) -> None:
    """The CSP blocks nothing the page needs: one external script, and data set only as text."""
    page = _Markup()
    page.feed(server.request("GET", "/", token=None).body)
    assert page.inline == []
    assert page.scripts == ["/console/console.js"]
    script = files("nucleo_core.server.console").joinpath("console.js").read_text("utf-8")
    assert server.request("GET", "/console/console.js", token=None).body == script
    # Data reaches the page as text only, and the token stays in the tab, out of URLs.
    for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "new Function"):
        assert forbidden not in script, forbidden
    assert "localStorage" not in script
    assert "document.cookie" not in script
    assert "sessionStorage.setItem(TOKEN_KEY" in script
