"""The tutorials run as written: their projects build, install and work in a fresh environment.

A fresh virtual environment gets nucleo-core, built from this checkout (its dependencies linked
from the suite's own environment), and nothing else of nucleo's, so no plugin installed for
development changes what a tutorial prints. For each tutorial folder ``docs/examples/TUTORIAL/``
(see ``tests/docs_pages.py``), its projects and programs are copied into a work folder, as a
reader lays them out; then, in page order:

- each ```bash block marked ``<!-- tutorial: examples/TUTORIAL -->`` runs there, with the
  environment's ``python`` first on ``PATH`` (it builds and installs the projects; tests reach
  no package index, so the build backend, hatchling, is the suite's own, reached without
  build isolation, where a reader's pip would fetch it);
- each marked ```console block's ``nucleo`` commands print exactly what is shown;
- each program's ``<!-- output: ... -->`` block is exactly what it prints.

The tutorial's distributions are uninstalled afterwards, so tutorials never see each other's.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from _installed_venv import Venv, build_wheels
from docs_pages import ALL_BLOCKS, REPO, TUTORIALS, Block, project_files, projects_of, tutorial_of

_EXIT_CODE = "# exit code "

# Console blocks are rendered at this width, with no colour, as in tests/unit/test_docs.py.
CONSOLE_ENV = {"COLUMNS": "100", "NO_COLOR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _marked(block: Block, tutorial: Path) -> bool:
    return block.marks("tutorial") and block.target.resolve() == tutorial.resolve()


def build_blocks(tutorial: Path) -> list[Block]:
    return [b for b in ALL_BLOCKS if _marked(b, tutorial) and b.language == "bash"]


def console_blocks(tutorial: Path) -> list[Block]:
    return [b for b in ALL_BLOCKS if _marked(b, tutorial) and b.language == "console"]


OUTPUTS = [
    (tutorial, block)
    for block in ALL_BLOCKS
    if block.marks("output") and (tutorial := tutorial_of(block.target)) is not None
]


@dataclass(frozen=True)
class Environment:
    """A virtual environment holding nucleo-core and its dependencies."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / ("Scripts" if sys.platform == "win32" else "bin")

    @property
    def python(self) -> Path:
        return self.bin / ("python.exe" if sys.platform == "win32" else "python")

    def variables(self, **extra: str) -> dict[str, str]:
        """The environment a reader's shell would have, with this environment activated."""
        inherited = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("NUCLEO_", "PYTHON", "VIRTUAL_ENV", "FORCE_COLOR", "TTY_"))
        }
        path = f"{self.bin}{os.pathsep}{inherited.get('PATH', '')}"
        # Tests reach no package index: pip builds with the backend the environment already
        # reaches (PIP_NO_BUILD_ISOLATION=0 turns isolation off) and installs what is local.
        offline = {"PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"}
        return {**inherited, "PATH": path, "VIRTUAL_ENV": str(self.root), **offline, **extra}

    def run(self, command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command,
            cwd=cwd,
            env=self.variables(**CONSOLE_ENV),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> Environment:
    """A fresh virtual environment with nucleo-core built from this checkout installed."""
    wheels = build_wheels([REPO], tmp_path_factory.mktemp("tutorials-wheel"))
    root = tmp_path_factory.mktemp("tutorials") / "venv"
    Venv.with_wheels(root, list(wheels.values()), also=["hatchling"], with_pip=True)
    return Environment(root)


def distributions(tutorial: Path) -> list[str]:
    return [
        tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
        for project in projects_of(tutorial)
    ]


@dataclass(frozen=True)
class Installed:
    """A tutorial whose build blocks ran, and the work folder they ran in."""

    tutorial: Path
    work: Path


@pytest.fixture(scope="module")
def installed(
    request: pytest.FixtureRequest,
    environment: Environment,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Installed]:
    """A tutorial laid out in a work folder, its build blocks run: its projects installed."""
    tutorial: Path = request.param
    work = tmp_path_factory.mktemp(tutorial.name)
    for project in projects_of(tutorial):
        for path in project_files(project):
            copied = work / path.relative_to(tutorial)
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copied)
    for program in tutorial.glob("*.py"):
        shutil.copyfile(program, work / program.name)
    try:
        for block in build_blocks(tutorial):
            ran = environment.run(["bash", "-euo", "pipefail", "-c", block.text], work)
            assert ran.returncode == 0, f"{block.where} failed:\n{ran.stdout}\n{ran.stderr}"
        yield Installed(tutorial, work)
    finally:
        environment.run(
            [str(environment.python), "-m", "pip", "uninstall", "-y", *distributions(tutorial)],
            work,
        )


def test_every_tutorial_is_built_by_its_page() -> None:
    """Each tutorial folder has build blocks on a page, and programs whose output is shown."""
    assert TUTORIALS
    for tutorial in TUTORIALS:
        assert build_blocks(tutorial), f"no ```bash block is marked tutorial: {tutorial.name}"
        shown = {block.target.resolve() for _, block in OUTPUTS}
        for program in tutorial.glob("*.py"):
            assert program.resolve() in shown, f"no page shows what {program.name} prints"


@pytest.mark.parametrize("installed", TUTORIALS, ids=[t.name for t in TUTORIALS], indirect=True)
def test_the_built_wheels_hold_every_file_of_their_project(installed: Installed) -> None:
    """Each project's wheel (built into its dist/) holds its modules and package data."""
    for project in projects_of(installed.tutorial):
        wheels = sorted((installed.work / project.name / "dist").glob("*.whl"))
        assert len(wheels) == 1, f"the page builds no wheel into {project.name}/dist"
        held = set(zipfile.ZipFile(wheels[0]).namelist())
        for path in project_files(project):
            if path.name != "pyproject.toml":
                assert path.relative_to(project).as_posix() in held, f"{path} is not in the wheel"


@pytest.mark.parametrize("installed", TUTORIALS, ids=[t.name for t in TUTORIALS], indirect=True)
def test_the_installed_plugins_load(installed: Installed, environment: Environment) -> None:
    """A hub in the environment loads every entry point of the tutorial's distributions."""
    script = (
        "import sys\nfrom nucleo_core import ToolHub\n"
        "for record in ToolHub().load_plugins():\n"
        "    if record.distribution in sys.argv[1:]:\n"
        "        print(record.plugin, record.status, *record.contributed, sep='|')\n"
    )
    names = distributions(installed.tutorial)
    ran = environment.run([str(environment.python), "-c", script, *names], installed.work)
    assert ran.returncode == 0, ran.stderr
    rows = [line.split("|") for line in ran.stdout.splitlines()]
    assert rows, f"no entry point of {names} was found"
    for plugin, status, *contributed in rows:
        assert status == "loaded", f"{plugin} is {status}"
        assert contributed, f"{plugin} contributed nothing"


@pytest.mark.parametrize("installed", TUTORIALS, ids=[t.name for t in TUTORIALS], indirect=True)
def test_tutorial_programs_print_what_the_page_shows(
    installed: Installed, environment: Environment
) -> None:
    """Each tutorial program, run beside the installed projects, prints exactly its output block."""
    for tutorial, block in OUTPUTS:
        if tutorial != installed.tutorial:
            continue
        ran = environment.run([str(environment.python), block.target.name], installed.work)
        assert ran.returncode == 0, f"{block.where}:\n{ran.stderr}"
        assert ran.stderr == "", f"{block.where}:\n{ran.stderr}"
        assert ran.stdout == block.text, f"{block.where}: run the program and copy its output"


def console_commands(block: Block) -> Iterator[tuple[str, str]]:
    """Each ``$ command`` of a console block with the lines shown after it."""
    command: str | None = None
    shown: list[str] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, "\n".join(shown)
            command, shown = line[2:], []
        else:
            shown.append(line)
    if command is not None:
        yield command, "\n".join(shown)


@pytest.mark.parametrize("installed", TUTORIALS, ids=[t.name for t in TUTORIALS], indirect=True)
def test_tutorial_console_blocks_show_what_the_command_prints(
    installed: Installed, environment: Environment
) -> None:
    """Each `$ nucleo ...` of a tutorial's console blocks prints exactly the lines shown."""
    for block in console_blocks(installed.tutorial):
        commands = list(console_commands(block))
        assert commands, f"{block.where}: a console block shows at least one command"
        for command, shown in commands:
            words = shlex.split(command, comments=True)
            assert words[0] == "nucleo", f"{block.where}: only nucleo commands are checked"
            expected = int(command.split(_EXIT_CODE)[1]) if _EXIT_CODE in command else 0
            ran = environment.run([str(environment.bin / "nucleo"), *words[1:]], installed.work)
            assert ran.returncode == expected, f"{block.where}: `{command}`:\n{ran.stderr}"
            printed = "\n".join(line.rstrip() for line in ran.stdout.rstrip("\n").splitlines())
            assert printed == shown.rstrip("\n"), f"{block.where}: `{command}` prints otherwise"
