"""What nucleo-core's sdist and wheel hold, built by the build backend pyproject.toml names.

hatchling, the build backend, comes with the ``test`` extra (tests reach no package index), and
runs on this checkout into a temporary folder.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from _installed_venv import clean_environment

REPO = Path(__file__).resolve().parents[2]
PLUGINS = sorted(path.parent for path in (REPO / "plugins").glob("*/pyproject.toml"))


def run(*command: str | Path, cwd: Path = REPO) -> None:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=clean_environment({"PIP_DISABLE_PIP_VERSION_CHECK": "1"}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding one sdist and one wheel of this checkout."""
    root = tmp_path_factory.mktemp("packaging")
    backend = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert backend["build-system"]["build-backend"] == "hatchling.build"
    run(sys.executable, "-m", "hatchling", "build", "-d", root / "dist")
    return root / "dist"


def sdist_names(built: Path) -> list[str]:
    (sdist,) = built.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        # Each member under the sdist's own top folder (nucleo_core-VERSION/).
        return [member.name.split("/", 1)[1] for member in archive.getmembers() if member.isfile()]


def test_the_sdist_carries_every_first_party_plugin_with_its_sources(built: Path) -> None:
    """Each plugins/* folder in the sdist has its sources, not only its pyproject.toml."""
    names = sdist_names(built)
    assert PLUGINS
    for plugin in PLUGINS:
        relative = plugin.relative_to(REPO).as_posix()
        sources = [
            path.relative_to(REPO).as_posix()
            for path in (plugin / "src").rglob("*")
            if path.is_file() and "__pycache__" not in path.parts
        ]
        assert sources
        for expected in [f"{relative}/pyproject.toml", f"{relative}/README.md", *sources]:
            assert expected in names, f"the sdist lacks {expected}"
    # Nothing else under plugins/ than what a plugin is built from.
    shipped_plugins = {name.split("/")[1] for name in names if name.startswith("plugins/")}
    assert shipped_plugins == {plugin.name for plugin in PLUGINS}


def test_the_sdist_holds_the_license_the_tests_and_the_docs(built: Path) -> None:
    """An unpacked sdist is a source tree: license, tests, docs and their mkdocs.yml included."""
    names = sdist_names(built)
    for expected in ["LICENSE", "README.md", "pyproject.toml", "mkdocs.yml", "noxfile.py"]:
        assert expected in names
    assert any(name.startswith("tests/unit/") for name in names)
    assert "docs/index.md" in names
    assert not any("__pycache__" in name for name in names)


def test_the_wheel_names_the_license_and_the_project_urls(built: Path) -> None:
    """The wheel's metadata carries the Apache-2.0 license file and the project's URLs."""
    (wheel,) = built.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(name for name in names if name.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode("utf-8")
        license_name = next(name for name in names if name.endswith("dist-info/licenses/LICENSE"))
        assert "Apache License" in archive.read(license_name).decode("utf-8")
    assert "License-Expression: Apache-2.0" in metadata
    for label in ("Homepage", "Documentation", "Source", "Issues"):
        assert f"Project-URL: {label}, https://" in metadata
    assert not any(name.startswith(("plugins/", "tests/")) for name in names)
