"""The docs are true: every example runs, and every code block and output shown is the real one.

How a page shows code (docs/*.md; the markers are read by ``tests/docs_pages.py``):

- ``<!-- example: examples/NAME.py -->`` right before a ```python block: the block is exactly
  that file, and the file runs without error.
- ``<!-- example: examples/TUTORIAL/PROJECT/FILE -->`` right before a block in the language of
  the file's suffix (```python, ```toml, ```markdown): the block is exactly that file of a
  tutorial's project, and every file of the project is shown so. The tutorials' projects are
  built, installed and run by ``tests/integration/test_tutorials.py``, which also checks the
  ``output`` blocks of the programs in a tutorial folder, and runs the ```bash and ```console
  blocks marked ``<!-- tutorial: examples/TUTORIAL -->``.
- ``<!-- output: examples/NAME.py -->`` right before a ```text block: the block is exactly what
  that file prints.
- ``<!-- signature: HOOK -->`` right before a ```python block: the block is the hook's exact
  signature, checked by ``tests/unit/test_hook_docs.py`` (it is not run).
- a ```console block: each ``$ nucleo ...`` line is run from the repository root and followed by
  exactly what it prints; ``# exit code N`` after a command says it exits with N, not 0.
- a ```text block after ``<!-- checked by tests/unit/test_cli_plugins.py: ENV -->``: commands
  run where the named plugins are installed; checked there.
- any other ```python block (in docs/*.md or README.md) runs on its own in a fresh interpreter.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from docs_pages import (
    ALL_BLOCKS,
    DOCS,
    EXAMPLES_DIR,
    LANGUAGES,
    PAGES,
    REPO,
    TUTORIALS,
    Block,
    fenced_blocks,
    project_files,
    projects_of,
    tutorial_of,
)

from nucleo_core.cli.app import nucleo
from nucleo_core.cli.sources import FILE_MODULE_PREFIX
from nucleo_core.plugins import (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    PATH_ENVIRONMENT_VARIABLE,
)

EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))
# A tutorial's files: the programs beside its projects, and every file of each project.
TUTORIAL_FILES = [
    path
    for tutorial in TUTORIALS
    for path in [
        *sorted(tutorial.glob("*.py")),
        *(path for project in projects_of(tutorial) for path in project_files(project)),
    ]
]

_LINK = re.compile(r"\]\(([^)\s]+)\)")
_NAV_PAGE = re.compile(r"^\s*-\s*[^:]+:\s*(\S+\.md)\s*$")
_EXIT_CODE = re.compile(r"#\s*exit code (\d+)\s*$")
#: A pending approval's id, fresh on every run (`nucleo demo` lists one): compared as a shape.
_FRESH_APPROVAL_ID = re.compile(r"\bapproval [0-9a-f]{32}:")

# Console blocks are rendered at this width, with no colour, whatever the machine running them,
# and show what nucleo alone prints: the developer's plugin variables are unset, and plugins are
# looked for only in an empty folder (run_isolated sets it), whatever is installed here.
CONSOLE_ENV: dict[str, str | None] = {
    "COLUMNS": "100",
    "FORCE_COLOR": None,
    "TTY_COMPATIBLE": None,
    "TTY_INTERACTIVE": None,
    "NO_COLOR": "1",
    ALLOW_ENVIRONMENT_VARIABLE: None,
    BLOCK_ENVIRONMENT_VARIABLE: None,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE: None,
}

INCLUDED = [block for block in ALL_BLOCKS if block.marks("example")]
# The outputs of a tutorial's programs, and its marked console blocks, need its projects
# installed: tests/integration/test_tutorials.py checks those.
OUTPUTS = [
    block for block in ALL_BLOCKS if block.marks("output") and tutorial_of(block.target) is None
]
CONSOLES = [
    block for block in ALL_BLOCKS if block.language == "console" and not block.marks("tutorial")
]
STANDALONE = [
    block
    for block in [*ALL_BLOCKS, *fenced_blocks(REPO / "README.md")]
    if block.language == "python" and block.marker is None
]


def ids(blocks: list[Block]) -> list[str]:
    return [block.where for block in blocks]


def example_environment() -> dict[str, str]:
    # The examples show nucleo's defaults; a strict-mode variable set by the caller would not.
    return {key: value for key, value in os.environ.items() if key != "NUCLEO_STRICT_TOOLS"}


@functools.cache
def run_example(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        cwd=path.parent,
        env=example_environment(),
        timeout=120,
        check=False,
    )


def test_the_docs_have_examples_and_console_blocks_to_check() -> None:
    """The parsing below finds what it checks, so an empty parametrization cannot pass vacuously."""
    assert EXAMPLES
    assert INCLUDED
    assert OUTPUTS
    assert CONSOLES
    assert TUTORIAL_FILES


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_every_example_program_runs(path: Path) -> None:
    """Each docs/examples/*.py program runs to the end without an error (its asserts hold)."""
    completed = run_example(path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""


SHOWN = [*EXAMPLES, *TUTORIAL_FILES]


@pytest.mark.parametrize("path", SHOWN, ids=[str(path.relative_to(EXAMPLES_DIR)) for path in SHOWN])
def test_every_example_program_is_shown_in_the_docs(path: Path) -> None:
    """No example program or tutorial file is orphaned: some page includes it verbatim."""
    shown = {block.target.resolve() for block in INCLUDED}
    assert path.resolve() in shown


@pytest.mark.parametrize("block", INCLUDED, ids=ids(INCLUDED))
def test_included_examples_are_exactly_their_files(block: Block) -> None:
    """A block marked as an example is, byte for byte, the file that is run or built."""
    assert block.marker is not None
    path = block.target
    language = LANGUAGES.get(path.suffix)
    assert block.language == language, f"{block.where}: {path.name} is shown as ```{language}"
    assert path.is_file(), f"{block.where}: no such example {path}"
    assert block.text == path.read_text(encoding="utf-8"), (
        f"{block.where} differs from {block.marker[1]}: copy the file into the page again"
    )


@pytest.mark.parametrize("block", OUTPUTS, ids=ids(OUTPUTS))
def test_shown_outputs_are_what_the_examples_print(block: Block) -> None:
    """A block marked as an example's output is exactly what running that example prints."""
    assert block.marker is not None
    completed = run_example(DOCS / block.marker[1])
    assert completed.returncode == 0, completed.stderr
    assert block.text == completed.stdout, f"{block.where}: run the example and copy its output"


@pytest.mark.parametrize("block", STANDALONE, ids=ids(STANDALONE))
def test_standalone_python_blocks_run(block: Block) -> None:
    """Every other ```python block in the docs and README runs on its own, without error."""
    completed = subprocess.run(
        [sys.executable, "-c", block.text],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=example_environment(),
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, f"{block.where}:\n{completed.stderr}"


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


def run_isolated(words: list[str], plugin_folder: Path) -> Result:
    """Run one command in this process as if it were a process of its own.

    Loading a file source puts its directory on sys.path and its module in sys.modules; both are
    undone so that one command of a block cannot change what the next one finds. Plugins are
    found only in ``plugin_folder`` (empty: the pages show nucleo without plugins).
    """
    saved_path = list(sys.path)
    env = {**CONSOLE_ENV, PATH_ENVIRONMENT_VARIABLE: str(plugin_folder)}
    try:
        return CliRunner().invoke(nucleo, words, env=env)
    finally:
        sys.path[:] = saved_path
        for name in [name for name in sys.modules if name.startswith(FILE_MODULE_PREFIX)]:
            del sys.modules[name]


@pytest.mark.parametrize("block", CONSOLES, ids=ids(CONSOLES))
def test_console_blocks_show_what_the_command_prints(
    block: Block, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each `$ nucleo ...` in a console block prints exactly the lines shown after it."""
    no_plugins = tmp_path / "no-plugins"
    no_plugins.mkdir()
    monkeypatch.chdir(REPO)
    commands = list(console_commands(block))
    assert commands, f"{block.where}: a console block shows at least one command"
    for command, shown in commands:
        words = shlex.split(command, comments=True)
        assert words[0] == "nucleo", f"{block.where}: only nucleo commands are checked"
        expected_exit = _EXIT_CODE.search(command)
        result = run_isolated(words[1:], no_plugins)
        assert result.exit_code == (int(expected_exit.group(1)) if expected_exit else 0), (
            f"{block.where}: `{command}` exited {result.exit_code}:\n{result.output}"
        )
        printed = "\n".join(line.rstrip() for line in result.output.rstrip("\n").splitlines())
        printed, expected = (
            _FRESH_APPROVAL_ID.sub("approval ID:", text) for text in (printed, shown.rstrip("\n"))
        )
        assert printed == expected, f"{block.where}: `{command}` prints otherwise"


def test_every_page_is_in_the_mkdocs_nav_and_every_nav_entry_exists() -> None:
    """mkdocs.yml lists each docs/*.md page, and nothing that does not exist."""
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    listed = [found.group(1) for line in config if (found := _NAV_PAGE.match(line))]
    assert sorted(listed) == sorted(page.name for page in PAGES)


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_relative_links_point_at_files_that_exist(page: Path) -> None:
    """Every relative link of a page names a file in the repository."""
    for target in _LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        assert (page.parent / target.split("#")[0]).exists(), f"{page.name}: broken link {target}"


PLUGIN_FOLDERS = sorted(path.parent for path in (REPO / "plugins").glob("*/pyproject.toml"))
PLUGIN_READMES = [folder / "README.md" for folder in PLUGIN_FOLDERS]
# `pip install nucleo-core` (or a first-party plugin's name) from an index: no index serves them.
_INDEX_INSTALL = re.compile(
    r"pip install (?:-[-\w]+ )*[\"']?"
    r"(nucleo-(?:core|tools-files|guard-risk|skills-core|tools-llm))\b"
)
_PLUGINS_ONE_LINER = "python3 -m pip install . ./plugins/"


def test_the_readme_links_only_to_absolute_urls() -> None:
    """README links work on a package page too: none is relative to the repository."""
    for target in _LINK.findall((REPO / "README.md").read_text(encoding="utf-8")):
        assert "://" in target or target.startswith("#"), f"README: relative link {target}"


@pytest.mark.parametrize(
    "page",
    [*PAGES, REPO / "README.md", *PLUGIN_READMES],
    ids=[path.relative_to(REPO).as_posix() for path in [*PAGES, REPO / "README.md"]]
    + [path.relative_to(REPO).as_posix() for path in PLUGIN_READMES],
)
def test_no_page_says_to_install_nucleo_from_a_package_index(page: Path) -> None:
    """Install from a checkout or a built wheel: `pip install nucleo-core` appears only refuted."""
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        for found in _INDEX_INSTALL.finditer(line):
            refuted = f"`pip install {found.group(1)}` finds nothing" in line
            assert refuted, f"{page.name}:{number}: {line.strip()}"


@pytest.mark.parametrize("page", ["README.md", "docs/install.md", "docs/first-party-plugins.md"])
def test_the_one_command_for_core_and_its_plugins_names_every_first_party_plugin(
    page: str,
) -> None:
    """The documented one-liner installs core with every plugins/* folder the repository has."""
    assert len(PLUGIN_FOLDERS) == 4
    lines = (REPO / page).read_text(encoding="utf-8").splitlines()
    (command,) = [line for line in lines if line.startswith(_PLUGINS_ONE_LINER)]
    named = set(command.split()[5:])
    assert named == {f"./plugins/{folder.name}" for folder in PLUGIN_FOLDERS}


def test_the_first_party_plugins_page_names_each_plugin_and_its_entry_point() -> None:
    """docs/first-party-plugins.md lists every first-party distribution with its entry point."""
    text = (DOCS / "first-party-plugins.md").read_text(encoding="utf-8")
    for folder in PLUGIN_FOLDERS:
        project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        assert f"## {project['name']}" in text
        for group, points in project["entry-points"].items():
            for name in points:
                assert f"`{group}` `{name}`" in text, f"{project['name']}: {group} {name}"


def test_the_cli_page_documents_the_short_version_option_and_shell_completion() -> None:
    """docs/cli.md says `nucleo -V`, and how to switch completion on in bash, zsh and fish."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert "`nucleo -V`" in text
    assert "## Shell completion" in text
    for shell in ("bash", "zsh", "fish"):
        assert f"_NUCLEO_COMPLETE={shell}_source nucleo" in text
