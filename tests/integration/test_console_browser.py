"""The web console in a real browser: headless Chromium, driven by Playwright, on ``nucleo serve``.

A durable run pauses in its own process (`_approval_process.py pause`: two ``wire_money``
calls wait for approvals, to ``acme`` and to ``mallory``) and is stopped; ``nucleo serve``
then serves the test project's tools over the same approvals and audit record. The browser
opens the console, is refused a wrong token, enters the right one, filters the catalog,
approves one call and rejects the other with a reason, and sees both decisions arrive in the
live audit view. The page is saved as ``build/console.png`` at the end (a CI artifact), as
``build/console-deciding.png`` midway (``docs/images/console.png`` is a copy of it), and as
``build/console-failure.png`` when the test fails.

Debian's Chromium (``/usr/bin/chromium``) is the browser; Playwright never downloads one.
Without it the test is skipped with the fix, unless ``NUCLEO_REQUIRE_CHROMIUM=1`` (CI) makes
that a failure.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _server_harness import Server, running_server
from _server_harness import server_environment as environment_of

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "build" / "console.png"
#: docs/images/console.png is a copy of this one.
DOCS_SHOT = SCREENSHOT.with_name("console-deciding.png")
CHROMIUM = Path("/usr/bin/chromium")
APPROVAL_PROCESS = Path(__file__).with_name("_approval_process.py")
#: The flags Chromium needs on a machine without a network or a display.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: The console's test project (its own, so that what the catalog lists is this file's).
PROJECT_FILES = {
    "nucleo.toml": """\
[[guard.rules]]
name = "no-drops"
tool = "drop_*"
decision = "deny"
reason = "tables are dropped by a person"
""",
    "desk_tools.py": '''\
"""The console test's tools: one per declared risk, and one a rule denies."""

from nucleo_core import tool


@tool(read_only=True, risk="low")
def lookup_ticket(ticket_id: int) -> str:
    """Look a ticket up by its number."""
    return f"ticket {ticket_id}"


@tool(risk="medium")
def notify_team(message: str) -> str:
    """Tell the team something."""
    return "told"


@tool(risk="high")
def refund(customer: str, amount: int) -> str:
    """Refund a customer."""
    return "refunded"


@tool(risk="high")
def drop_table(table: str) -> str:
    """Drop a table (denied by the project's rule no-drops)."""
    return "dropped"
''',
    "desk_agents.py": '''\
"""The console test's thinker class."""

from nucleo_core import ThinkerBase, ToolSelector

import desk_tools


class Desk(ThinkerBase):
    """Always looks tickets up; may ask to notify the team."""

    @classmethod
    def declare_default_tools(cls):
        return [desk_tools.lookup_ticket]

    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_tool(desk_tools.notify_team)
''',
}
PROJECT_ARGUMENTS = ("--from", "desk_tools.py", "--thinker", "desk_agents:Desk")
#: The test project's tools, in the catalog's order.
EVERY_TOOL = ["lookup_ticket", "notify_team", "refund", "drop_table"]
#: How long an expectation waits for the page (a loaded machine), in milliseconds.
PATIENCE = 60_000


def require_browser() -> None:
    """Skip (or, with NUCLEO_REQUIRE_CHROMIUM=1, fail) without Chromium or Playwright."""
    missing = []
    if not CHROMIUM.exists():
        missing.append("Debian's Chromium: apt-get install chromium")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package: python3 -m pip install '.[test]'")
    if not missing:
        return
    message = "the console's browser test needs " + "; and ".join(missing)
    if os.environ.get("NUCLEO_REQUIRE_CHROMIUM") == "1":
        pytest.fail(message + " (NUCLEO_REQUIRE_CHROMIUM=1 makes this a failure)")
    pytest.skip(message)


def make_project(folder: Path) -> Path:
    """Write the console's test project into ``folder``; return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in PROJECT_FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def pause_a_run(folder: Path) -> None:
    """Run process A until its run paused (its audit flushed and its ids printed); stop it."""
    process = subprocess.Popen(
        [sys.executable, str(APPROVAL_PROCESS), str(folder), "pause"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    try:
        deadline = time.monotonic() + 120
        # It prints the approvals' ids once they are stored and its audit is written.
        while not select.select([process.stdout], [], [], 0.5)[0]:
            if process.poll() is not None:
                pytest.fail(f"process A ended before it paused:\n{process.stderr.read()}")
            assert time.monotonic() < deadline, "process A never paused"
        assert process.stdout.readline().startswith("["), process.stderr.read()
    finally:
        process.kill()
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Server]:
    """The test project served, over a paused run's two pending approvals."""
    require_browser()
    make_project(tmp_path)
    pause_a_run(tmp_path)
    environment = environment_of(
        tmp_path,
        NUCLEO_CONVERSATIONS=str(tmp_path / "conversations.sqlite3"),
        NUCLEO_AUDIT=str(tmp_path / "audit.sqlite3"),
    )
    with running_server(tmp_path, *PROJECT_ARGUMENTS, environment=environment) as server:
        yield server


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    """A tab of headless Chromium with a fresh profile of its own."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1440, "height": 1000},
            locale="en-GB",
            timezone_id="UTC",
        )
        context.set_default_timeout(PATIENCE)
        try:
            tab = context.pages[0] if context.pages else context.new_page()
            yield tab
        finally:
            context.close()


def catalog_shows(page: Any, summary: str, tools: list[str]) -> None:
    """Wait until the catalog lists exactly ``tools`` under ``summary``."""
    from playwright.sync_api import expect

    expect(page.locator("#catalog-summary")).to_have_text(summary)
    rows = page.locator("#catalog-rows tr")
    expect(rows).to_have_count(len(tools))
    for tool in tools:
        expect(page.locator(f'#catalog-rows tr[data-tool="{tool}"]')).to_have_count(1)


def test_an_operator_filters_the_catalog_and_decides_two_approvals_seen_in_the_live_audit(
    served: Server, page: Any
) -> None:
    """Token, filters, approve and reject-with-reason in Chromium; the audit view shows both."""
    from playwright.sync_api import expect

    expect.set_options(timeout=PATIENCE)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    SCREENSHOT.parent.mkdir(exist_ok=True)
    try:
        page.goto(served.url + "/")

        # The token: a wrong one is refused in plain words, the right one opens the console.
        token = page.get_by_label("API token", exact=True)
        expect(token).to_be_focused()
        token.fill("not-the-token-of-this-server")
        page.get_by_role("button", name="Open the console").click()
        expect(page.get_by_role("alert")).to_contain_text("not this server's token")
        expect(page.locator("#console")).to_be_hidden()
        token.fill(served.token)
        page.get_by_role("button", name="Open the console").click()
        expect(page.get_by_role("heading", name="Pending approvals")).to_be_visible()
        assert served.token not in page.url

        # The catalog, filtered through the API: by risk, by text, by thinker class.
        catalog_shows(page, "4 tools", EVERY_TOOL)
        page.get_by_label("high", exact=True).check()
        catalog_shows(page, "2 of 4 tools match", ["refund", "drop_table"])
        deny = page.locator('#catalog-rows tr[data-tool="drop_table"]')
        expect(deny).to_contain_text("deny")
        expect(deny).to_contain_text("rule:no-drops")
        page.get_by_label("high", exact=True).uncheck()
        page.get_by_label("Text", exact=True).fill("ticket")
        catalog_shows(page, "1 of 4 tools match", ["lookup_ticket"])
        page.get_by_label("Text", exact=True).fill("")
        page.get_by_label("Thinker class").select_option(label="Desk (desk_agents.Desk)")
        catalog_shows(page, "2 of 4 tools match", ["lookup_ticket", "notify_team"])
        expect(page.locator('#catalog-rows tr[data-tool="notify_team"]')).to_contain_text(
            "Desk (catalog)"
        )
        page.get_by_label("Read-only").select_option(label="read-only")
        catalog_shows(page, "1 of 4 tools match", ["lookup_ticket"])
        page.get_by_role("button", name="Clear the filters").click()
        catalog_shows(page, "4 tools", EVERY_TOOL)

        # The two pending approvals, and the records of their requests, already in the audit.
        approvals = page.locator("#approvals-list li")
        expect(approvals).to_have_count(2)
        expect(page.locator('#audit-rows tr[data-kind="approval_request"]')).to_have_count(2)
        expect(page.locator("#audit-live")).to_have_text("live")
        acme = approvals.filter(has_text='"acme"')
        mallory = approvals.filter(has_text='"mallory"')
        expect(acme).to_contain_text("wire_money")
        expect(acme).to_contain_text("nucleo resume conv")

        # Approve one.
        acme.get_by_role("button", name="Approve").click()
        expect(page.get_by_role("status")).to_contain_text(
            'Approved wire_money(amount=120, to="acme").'
        )
        expect(approvals).to_have_count(1)
        decisions = page.locator('#audit-rows tr[data-kind="approval_decision"]')
        expect(decisions).to_have_count(1)  # live: no reload, no click
        expect(decisions).to_contain_text("approved")

        # Reject the other: a reason is asked for, and a blank one is not taken.
        mallory.get_by_role("button", name="Reject…").click()
        reason = mallory.get_by_label("Reason for rejecting")
        expect(reason).to_be_focused()
        mallory.get_by_role("button", name="Reject the call").click()
        expect(mallory.get_by_role("alert")).to_have_text(
            "Say why you reject it: the model reads the reason."
        )
        reason.fill("unknown payee")
        expect(mallory.get_by_role("alert")).to_be_hidden()
        # The docs' picture: one call approved, the other about to be rejected.
        page.screenshot(path=str(DOCS_SHOT), full_page=True)
        mallory.get_by_role("button", name="Reject the call").click()
        expect(page.get_by_role("status")).to_contain_text(
            'Rejected wire_money(amount=9, to="mallory"): unknown payee.'
        )
        expect(page.get_by_text("No pending approvals.")).to_be_visible()

        # Both decisions reach the audit view over the live stream, the newest first.
        expect(decisions).to_have_count(2)
        expect(decisions.nth(0)).to_contain_text("rejected")
        expect(decisions.nth(0)).to_contain_text("unknown payee")
        expect(decisions.nth(0)).to_contain_text("wire_money")
        expect(decisions.nth(1)).to_contain_text("approved")
        expect(decisions.nth(0)).to_have_attribute("data-call-id", "use_mallory")
        expect(decisions.nth(1)).to_have_attribute("data-call-id", "use_acme")
        expect(decisions.nth(0)).to_contain_text(re.compile(r"api-token:[0-9a-f]{12}"))
    except BaseException:
        page.screenshot(path=str(SCREENSHOT.with_name("console-failure.png")), full_page=True)
        raise
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert problems == []  # no script error on the way
    # The server's store says what the page said.
    listed = served.request("GET", "/api/approvals?status=all").body["approvals"]
    decided = {a["arguments"]["to"]: (a["status"], a["reason"]) for a in listed}
    assert decided == {"acme": ("approved", None), "mallory": ("rejected", "unknown payee")}


@pytest.fixture
def quiet(tmp_path: Path) -> Iterator[Server]:
    """The test project served, nothing pending and nothing on the record yet."""
    require_browser()
    project = make_project(tmp_path / "quiet")
    with running_server(project, *PROJECT_ARGUMENTS) as server:
        yield server


def test_the_token_is_kept_for_the_tab_only_and_asked_again_when_refused(
    quiet: Server, page: Any
) -> None:
    """A reload keeps the token (no cookie); a refused or forgotten one brings the prompt back."""
    from playwright.sync_api import expect

    expect.set_options(timeout=PATIENCE)
    page.goto(quiet.url + "/")
    token = page.get_by_label("API token", exact=True)
    token.fill(quiet.token)
    token.press("Enter")
    # The empty states say so in words.
    expect(page.get_by_text("No pending approvals.")).to_be_visible()
    page.get_by_label("Text", exact=True).fill("nothing is called this")
    expect(page.get_by_text("No tool matches these filters.")).to_be_visible()
    expect(page.locator("#catalog-table")).to_be_hidden()

    page.reload()
    expect(page.get_by_role("heading", name="Pending approvals")).to_be_visible()
    expect(token).to_be_hidden()
    assert page.context.cookies() == []
    assert page.evaluate("sessionStorage.getItem('nucleo.console.token')") == quiet.token
    assert page.evaluate("localStorage.length") == 0

    # The server no longer takes what the tab holds (a new token): the console asks again.
    page.evaluate("sessionStorage.setItem('nucleo.console.token', 'an-old-token-of-this-tab')")
    page.reload()
    expect(token).to_be_visible()
    expect(page.get_by_role("alert")).to_have_text(
        "The server did not accept the token. Enter it again."
    )
    expect(page.locator("#console")).to_be_hidden()
    token.fill(quiet.token)
    page.get_by_role("button", name="Open the console").click()
    expect(page.get_by_text("No pending approvals.")).to_be_visible()

    page.get_by_role("button", name="Forget the token").click()
    expect(token).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
