"""The console's files are package data: a wheel built from this checkout carries them all."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from _installed_venv import clean_environment

REPO = Path(__file__).resolve().parents[2]
CONSOLE = REPO / "nucleo_core" / "server" / "console"


def test_the_wheel_carries_the_console_page_its_script_style_and_icon(tmp_path: Path) -> None:
    """Every file of nucleo_core/server/console/ is in the wheel, so `nucleo serve` serves it."""
    built = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=REPO,
        env=clean_environment({"PIP_DISABLE_PIP_VERSION_CHECK": "1"}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    shipped = {path.name for path in CONSOLE.iterdir() if path.is_file()}
    assert {"__init__.py", "index.html", "console.js", "console.css", "icon.svg"} <= shipped
    for name in sorted(shipped):
        assert f"nucleo_core/server/console/{name}" in names, f"the wheel lacks {name}"
