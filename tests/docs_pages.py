"""Reading the docs pages: fenced code blocks, the markers before them, and the tutorial projects.

Shared by ``tests/unit/test_docs.py`` (every example and output is the real one),
``tests/unit/test_hook_docs.py`` (every hook is documented) and
``tests/integration/test_tutorials.py`` (the tutorials' projects build, install and run).

A marker is an HTML comment on the line before a fence, ``<!-- KIND: VALUE -->``:

- ``example: examples/PATH``: the block is exactly that file.
- ``output: examples/NAME.py``: the block is exactly what that program prints.
- ``signature: HOOK``: the block is the exact signature of the hook ``HOOK``.
- ``tutorial: examples/TUTORIAL``: a ```bash block (the commands that build and install the
  tutorial's projects) or a ```console block (``nucleo`` commands run once they are installed),
  run by ``tests/integration/test_tutorials.py`` in page order.

A *tutorial* is a folder ``docs/examples/TUTORIAL/`` holding one or more *projects*, folders
with a ``pyproject.toml``, and beside them the programs that use the installed projects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
EXAMPLES_DIR = DOCS / "examples"
PAGES = sorted(DOCS.glob("*.md"))

#: The fence language a file included with an ``example`` marker is shown in, by suffix.
LANGUAGES = {".py": "python", ".toml": "toml", ".md": "markdown"}

_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!-- (example|output|signature|tutorial): (\S+) -->$")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page, with the marker line right before it, if any."""

    page: Path
    line: int
    language: str
    text: str
    marker: tuple[str, str] | None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    def marks(self, kind: str) -> bool:
        """Whether the block carries a marker of ``kind``."""
        return self.marker is not None and self.marker[0] == kind

    @property
    def target(self) -> Path:
        """The file an ``example`` or ``output`` marker names, or the folder of a ``tutorial``."""
        assert self.marker is not None, f"{self.where} has no marker"
        return DOCS / self.marker[1]


def fenced_blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        previous = next((line for line in reversed(lines[:index]) if line.strip()), "")
        found = _MARKER.match(previous.strip())
        end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
        blocks.append(
            Block(
                page=page,
                line=index + 1,
                language=opening.group(1),
                text="\n".join(lines[index + 1 : end]) + "\n",
                marker=(found.group(1), found.group(2)) if found else None,
            )
        )
        index = end + 1
    return blocks


ALL_BLOCKS = [block for page in PAGES for block in fenced_blocks(page)]

#: Every tutorial folder: a folder of docs/examples holding at least one project.
TUTORIALS = sorted({project.parent.parent for project in EXAMPLES_DIR.glob("*/*/pyproject.toml")})


def tutorial_of(path: Path) -> Path | None:
    """The tutorial folder ``path`` lies in, or ``None`` for a file outside every tutorial."""
    resolved = path.resolve()
    return next((t for t in TUTORIALS if resolved.is_relative_to(t.resolve())), None)


def projects_of(tutorial: Path) -> list[Path]:
    """The project folders of a tutorial, by name."""
    return sorted(project.parent for project in tutorial.glob("*/pyproject.toml"))


def project_files(project: Path) -> list[Path]:
    """Every file of a project, as a reader writes it (no caches, no build output)."""
    return sorted(
        path
        for path in project.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )
