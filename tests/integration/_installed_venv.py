"""Real wheels and real virtual environments for the installed-plugin tests.

`build_wheels` runs ``pip wheel`` on source trees; `Venv` is a virtual environment made with
``python -m venv`` into which wheels are pip-installed, and in which Python scripts run from a
working directory of the test's choosing, never the repository, so the repository's own
``nucleo_core/`` cannot shadow the installed one.

Tests reach no package index (they may run where there is no network at all), so nothing here
downloads: wheels are built without build isolation (the ``test`` extra brings the build
backend), and `Venv.with_wheels` installs wheels with ``--no-index --no-deps`` into a fresh
environment that reaches their dependencies, exactly the installed distributions they require
and nothing else, through a ``.pth`` file pointing at a folder of links into the running
environment's site-packages.

A `Venv.layered_on` another reaches the other's packages through a ``.pth`` file, so that its
own installs (deliberately broken packs, a pack installed mid-run) stay out of the base.
"""

from __future__ import annotations

import email.parser
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

#: How long one pip or script run may take before the test fails (a hung resolver, say).
TIMEOUT = 300

#: Marks the line of a script's output that holds its JSON result.
RESULT_MARKER = "@@nucleo-result@@"

#: Prepended to every script: `emit` prints the script's result for `Venv.run` to read.
_PRELUDE = f"""\
import json as _json


def emit(value):
    print({RESULT_MARKER!r} + _json.dumps(value, default=str), flush=True)


"""

#: Environment variables that would let the outer process leak into a script's: a path that
#: could shadow the installed nucleo_core, the outer virtual environment, nucleo's own switches.
_LEAKY = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH")


def clean_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``os.environ`` without what could leak into a venv's process, plus ``extra``."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in _LEAKY and not key.startswith("NUCLEO_")
    }
    environment.update(extra or {})
    return environment


def _checked(command: Sequence[str | os.PathLike[str]], **options: Any) -> str:
    """Run ``command``; its stdout, or an AssertionError showing everything it printed."""
    done = subprocess.run(
        [os.fspath(part) for part in command],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        **options,
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, command))} exited {done.returncode}\n"
            f"--- stdout ---\n{done.stdout}\n--- stderr ---\n{done.stderr}"
        )
    return str(done.stdout)


def build_wheels(sources: Sequence[Path], into: Path) -> dict[str, Path]:
    """Build a wheel of each source tree (no dependencies) into ``into``, in one pip run.

    The build backend (hatchling) is the running environment's, from the ``test`` extra: an
    isolated build would fetch it from the package index.

    Returns:
        Each wheel by its distribution's name as the file spells it (``nucleo_core``).
    """
    _require_installed("hatchling")
    into.mkdir(parents=True, exist_ok=True)
    _checked(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"),
            *("--no-build-isolation", "--no-index", "-w", into, *sources),
        ],
        env=clean_environment(),
    )
    return {wheel.name.split("-")[0]: wheel for wheel in sorted(into.glob("*.whl"))}


def _require_installed(name: str) -> metadata.Distribution:
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise AssertionError(
            f"{name} is not installed beside {sys.executable}; the test extra brings it: "
            'run python3 -m pip install -e ".[test]"'
        ) from None


def wheel_requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's metadata."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (item for item in archive.namelist() if item.endswith(".dist-info/METADATA"))
        headers = email.parser.BytesParser().parsebytes(archive.read(name), headersonly=True)
    return list(headers.get_all("Requires-Dist") or [])


def _needed(requirements: Iterable[str], provided: set[str]) -> list[metadata.Distribution]:
    """The installed distributions ``requirements`` need, transitively, but ``provided``.

    Markers are evaluated for this interpreter and for each extra asked for.
    """
    pending = [
        requirement
        for requirement in map(Requirement, requirements)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""})
    ]
    asked: set[tuple[str, frozenset[str]]] = set()
    found: dict[str, metadata.Distribution] = {}
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if name in provided or key in asked:
            continue
        asked.add(key)
        distribution = found.get(name) or _require_installed(requirement.name)
        found[name] = distribution
        extras = {"", *requirement.extras}
        for line in distribution.requires or []:
            needed = Requirement(line)
            marker = needed.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in extras):
                pending.append(needed)
    return list(found.values())


def dependency_folder(requirements: Iterable[str], provided: set[str], into: Path) -> Path:
    """A folder of links to the installed distributions that ``requirements`` need.

    Each needed distribution's top-level entries (its packages, modules and ``.dist-info``) are
    linked, so a ``.pth`` line naming the folder makes exactly those importable, and
    `importlib.metadata` sees exactly those distributions.

    Args:
        requirements: Requirement strings (a wheel's ``Requires-Dist``).
        provided: Canonical names installed from wheels, so not linked.
        into: The folder to make.
    """
    into.mkdir(parents=True, exist_ok=True)
    for distribution in _needed(requirements, provided):
        site = Path(str(distribution.locate_file("")))
        files = distribution.files
        assert files, f"{distribution.name} lists no files (no RECORD): reinstall it with pip"
        tops = {Path(str(item)).parts[0] for item in files}  # the .dist-info's RECORD included
        for top in sorted(tops):
            if top in {"..", "__pycache__"} or top.endswith(".pth"):
                continue  # console scripts outside site-packages; caches; path hooks
            link = into / top
            if not link.exists() and (site / top).exists():
                link.symlink_to(site / top)
    return into


@dataclass(frozen=True, slots=True)
class Venv:
    """A virtual environment: its folder, its interpreter and its site-packages folder."""

    root: Path
    python: Path
    site_packages: Path
    #: The folders its ``.pth`` file adds to ``sys.path`` after its own site-packages.
    reaches: tuple[Path, ...] = ()

    @classmethod
    def create(cls, root: Path, *, with_pip: bool = True) -> Venv:
        """Make a fresh virtual environment at ``root`` with this interpreter's base Python."""
        command: list[str | Path] = [sys.executable, "-m", "venv", root]
        if not with_pip:
            command.insert(3, "--without-pip")
        _checked(command, env=clean_environment())
        python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        purelib = _checked(
            [python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
        )
        return cls(root=root, python=python, site_packages=Path(purelib.strip()))

    @classmethod
    def with_wheels(
        cls,
        root: Path,
        wheels: Sequence[Path],
        *,
        also: Sequence[str] = (),
        with_pip: bool = False,
    ) -> Venv:
        """A fresh environment with ``wheels`` installed, reaching no package index.

        Their dependencies are the running environment's installed distributions, exactly
        those the wheels require (transitively), linked from a folder beside the environment.

        Args:
            root: Where to make the environment.
            wheels: The wheels to install.
            also: More requirements to reach the same way (a build backend, say).
            with_pip: Give the environment a pip of its own (from ``ensurepip``, offline).
        """
        provided = {canonicalize_name(wheel.name.split("-")[0]) for wheel in wheels}
        requirements = [line for wheel in wheels for line in wheel_requirements(wheel)]
        folder = root.parent / f"{root.name}-deps"
        dependency_folder([*requirements, *also], provided, folder)
        venv = cls._reaching(root, (folder,), with_pip=with_pip)
        venv.pip_install("--no-index", "--no-deps", *wheels)
        return venv

    @classmethod
    def layered_on(cls, base: Venv, root: Path) -> Venv:
        """A new environment that also sees ``base``'s packages, read-only.

        Its own installs go into its own site-packages, which come first on ``sys.path``.
        """
        return cls._reaching(root, (base.site_packages, *base.reaches))

    @classmethod
    def _reaching(cls, root: Path, folders: tuple[Path, ...], *, with_pip: bool = False) -> Venv:
        created = cls.create(root, with_pip=with_pip)
        lines = "".join(f"{folder}\n" for folder in folders)
        (created.site_packages / "_installed_base.pth").write_text(lines, encoding="utf-8")
        return cls(
            root=created.root,
            python=created.python,
            site_packages=created.site_packages,
            reaches=folders,
        )

    def pip_install(self, *arguments: str | os.PathLike[str]) -> None:
        """``pip install`` into this environment, with the running environment's pip."""
        _checked(
            [sys.executable, "-m", "pip", "--python", self.python, "install", "-q", *arguments],
            env=clean_environment(),
        )

    def run(self, script: str, *, cwd: Path, env: Mapping[str, str] | None = None) -> Any:
        """Run ``script`` with this environment's Python in ``cwd``; return what it emits.

        The script calls ``emit(value)`` with a JSON-able value. The interpreter runs isolated
        (``-I``: neither the working directory nor ``PYTHON*`` variables reach ``sys.path``),
        with warnings as errors, like the test suite.

        Raises:
            AssertionError: The script failed or emitted nothing; the message shows its output.
        """
        source = _PRELUDE + textwrap.dedent(script)
        output = _checked(
            [self.python, "-I", "-W", "error", "-c", source],
            cwd=cwd,
            env=clean_environment(env),
        )
        for line in reversed(output.splitlines()):
            if line.startswith(RESULT_MARKER):
                return json.loads(line[len(RESULT_MARKER) :])
        raise AssertionError(f"the script emitted no result; it printed:\n{output}")
