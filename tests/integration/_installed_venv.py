"""Real wheels and real virtual environments for the installed-plugin tests.

`build_wheels` runs ``pip wheel`` on source trees; `Venv` is a virtual environment made with
``python -m venv`` into which wheels are pip-installed, and in which Python scripts run from a
working directory of the test's choosing, never the repository, so the repository's own
``nucleo_core/`` cannot shadow the installed one.

A `Venv.layered_on` another reaches the other's packages through a ``.pth`` file, so that its
own installs (deliberately broken packs, a pack installed mid-run) stay out of the base, while
nucleo-core's dependencies are installed once per session, in the base only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

    Returns:
        Each wheel by its distribution's name as the file spells it (``nucleo_core``).
    """
    into.mkdir(parents=True, exist_ok=True)
    _checked(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", into, *sources],
        env=clean_environment(),
    )
    return {wheel.name.split("-")[0]: wheel for wheel in sorted(into.glob("*.whl"))}


@dataclass(frozen=True, slots=True)
class Venv:
    """A virtual environment: its folder, its interpreter and its site-packages folder."""

    root: Path
    python: Path
    site_packages: Path

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
    def layered_on(cls, base: Venv, root: Path) -> Venv:
        """A new environment that also sees ``base``'s packages (pip included), read-only.

        Its own installs go into its own site-packages, which come first on ``sys.path``.
        """
        venv = cls.create(root, with_pip=False)
        (venv.site_packages / "_installed_base.pth").write_text(
            f"{base.site_packages}\n", encoding="utf-8"
        )
        return venv

    def pip_install(self, *arguments: str | os.PathLike[str]) -> None:
        """``pip install`` into this environment (with the pip it has, or its base's)."""
        _checked(
            [self.python, "-m", "pip", "install", "--quiet", *arguments],
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
