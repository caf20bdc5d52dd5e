"""The API's reference in docs/operating.md is the server's schema now; the extra stays optional."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from nucleo_core.guard.approval_store import MemoryApprovalStore
from nucleo_core.hub import ToolHub
from nucleo_core.server import ApiService, ApiToken, create_app
from nucleo_core.server.reference import REFERENCE_END, REFERENCE_START, api_reference

PAGE = Path(__file__).resolve().parents[2] / "docs" / "operating.md"


def served_schema() -> dict[str, Any]:
    service = ApiService.build(
        hub=ToolHub(),
        tools=[],
        thinkers=[],
        approvals=MemoryApprovalStore(),
        token=ApiToken("t" * 32, "environment"),
    )
    schema: dict[str, Any] = create_app(service).openapi()
    return schema


def nucleo(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_reference_in_the_docs_is_what_the_schema_says_now() -> None:
    """docs/operating.md holds, between its markers, the reference of the current schema."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(REFERENCE_START) + len(REFERENCE_START) + 1
    end = text.index(REFERENCE_END)
    assert text[start:end] == api_reference(served_schema()), (
        "the API changed: regenerate the reference in docs/operating.md with "
        "`nucleo serve --print-reference`"
    )


def test_print_openapi_and_print_reference_print_the_schema_and_its_reference() -> None:
    """`nucleo serve --print-openapi` is the served schema; --print-reference its Markdown."""
    printed = nucleo("serve", "--print-openapi")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == served_schema()
    reference = nucleo("serve", "--print-reference")
    assert reference.returncode == 0, reference.stderr
    assert reference.stdout == api_reference(served_schema())


def test_importing_nucleo_and_its_command_line_does_not_import_the_server() -> None:
    """`import nucleo_core` and loading the CLI import neither FastAPI nor uvicorn."""
    code = (
        "import sys, nucleo_core, nucleo_core.cli.app; "
        "print([m for m in ('fastapi', 'uvicorn', 'starlette', 'nucleo_core.server') "
        "if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_serve_without_the_server_extra_says_what_to_install() -> None:
    """With FastAPI not importable, `nucleo serve` exits 2 naming the extra to install."""
    code = (
        "import sys; sys.modules['fastapi'] = None; "  # how Python blocks an import
        "from nucleo_core.cli import main; main(['serve'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    assert "fastapi is not installed" in done.stderr
    assert "'.[server]'" in done.stderr
    assert "Traceback" not in done.stderr
