"""``nucleo mcp`` and ``nucleo mcp tools`` on narrow terminals: no server nor tool name is cut.

The project is docs/examples/mcp_project/ (the notes server, and a tickets server that exits at
start), copied to a folder of the test's own with ``python`` spelled as this interpreter. Each
command is a process of its own, at 60 and at 80 columns.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _installed_venv import clean_environment
from _mcp_harness import no_child_left_behind  # noqa: F401  # a fixture, used through pytestmark

pytestmark = pytest.mark.usefixtures("no_child_left_behind")

PROJECT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "mcp_project"
NOTES_TOOLS = ["add_note", "list_notes", "search_notes", "delete_note", "clear_notes"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The docs' MCP project, its servers run by this interpreter."""
    folder = tmp_path / "mcp_project"
    shutil.copytree(PROJECT, folder)
    pyproject = folder / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(
        text.replace('command = "python"', f"command = {json.dumps(sys.executable)}"),
        encoding="utf-8",
    )
    return folder


def nucleo(cwd: Path, width: int, *words: str) -> subprocess.CompletedProcess[str]:
    environment = clean_environment({"COLUMNS": str(width), "NO_COLOR": "1"})
    environment.pop("TICKETS_TOKEN", None)
    environment["NUCLEO_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", *words],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def words_of(output: str) -> set[str]:
    return {word.strip(",") for line in output.splitlines() for word in line.split()}


def table_lines(output: str, heading: str) -> list[str]:
    """The table's lines: from its header to the first blank line (the prose after it wraps)."""
    lines = output.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(heading + " "))
    end = next((index for index in range(start, len(lines)) if not lines[index].strip()), None)
    return lines[start:end]


@pytest.mark.parametrize("width", [60, 80])
def test_mcp_at_60_and_80_columns_shows_every_server_id_whole(project: Path, width: int) -> None:
    """`nucleo mcp` keeps each server id and status whole; nothing ends in an ellipsis."""
    done = nucleo(project, width, "mcp")
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    assert {"notes", "tickets", "ready", "failed"} <= words_of(done.stdout)
    assert max(map(len, table_lines(done.stdout, "Server"))) <= width


@pytest.mark.parametrize("width", [60, 80])
def test_mcp_tools_at_60_and_80_columns_shows_every_tool_name_whole(
    project: Path, width: int
) -> None:
    """`nucleo mcp tools notes` keeps each tool name whole; the columns left out are named."""
    done = nucleo(project, width, "mcp", "tools", "notes")
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    assert set(NOTES_TOOLS) <= words_of(done.stdout)
    assert max(map(len, table_lines(done.stdout, "Name"))) <= width
    header = next(line for line in done.stdout.splitlines() if line.startswith("Name "))
    if "Source" not in header:
        assert "Not shown at" in done.stdout
