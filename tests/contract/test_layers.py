"""The package's import graph keeps DESIGN.md's layers: no import upward, no circle.

The graph is read from the code with ``ast`` (``tests/contract/_import_graph.py``): every import
statement counts, at module level, deferred inside a function, or under ``TYPE_CHECKING``. Run
``python tests/contract/_import_graph.py`` to see what these tests would say, and
``python tests/contract/_import_graph.py --write-docs`` after a change of the graph to redraw
the diagram of ``docs/architecture.md``.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import _import_graph as graph
import pytest


def test_every_module_is_in_a_layer() -> None:
    """Each module of nucleo_core belongs to one of DESIGN.md's layers."""
    for module in graph.module_files():
        graph.layer_of(module)


def test_no_module_imports_from_a_higher_layer() -> None:
    """A module imports only from its own layer and the layers below it."""
    upward = sorted(
        {
            f"{edge.importer}:{edge.line} imports {edge.imported} "
            f"({graph.LAYERS[graph.layer_of(edge.importer)][0]} -> "
            f"{graph.LAYERS[graph.layer_of(edge.imported)][0]})"
            for edge in graph.upward_imports()
        }
    )
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_no_two_modules_import_each_other_even_indirectly() -> None:
    """The import graph between the modules of nucleo_core has no cycle."""
    found = [" -> ".join(graph.cycle_path(component)) for component in graph.cycles()]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_the_architecture_page_shows_the_current_graph() -> None:
    """docs/architecture.md's diagram is the one the graph draws now (it cannot go stale)."""
    page = graph.ARCHITECTURE_PAGE.read_text(encoding="utf-8")
    assert graph.page_with_current_diagram(page) == page, (
        "the diagram of docs/architecture.md is stale: run "
        "python tests/contract/_import_graph.py --write-docs"
    )


# -- the checker itself -----------------------------------------------------------------------


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A small package the checker reads instead of nucleo_core."""
    root = tmp_path / "nucleo_core"
    monkeypatch.setattr(graph, "ROOT", tmp_path)
    monkeypatch.setattr(graph, "PACKAGE_DIR", root)
    graph._tree.cache_clear()
    yield root
    graph._tree.cache_clear()


def test_a_deferred_import_and_a_type_checking_import_count(package: Path) -> None:
    """An import inside a function or under TYPE_CHECKING is an edge like any other."""
    _write(
        package,
        {
            "__init__.py": "",
            "tools/__init__.py": "",
            "tools/a.py": """
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from nucleo_core.hub.b import B
                def f():
                    from ..hub import c
            """,
            "hub/__init__.py": "",
            "hub/b.py": "B = 1\n",
            "hub/c.py": "",
        },
    )
    imported = {(e.importer, e.imported) for e in graph.upward_imports()}
    assert imported == {
        ("nucleo_core.tools.a", "nucleo_core.hub.b"),
        ("nucleo_core.tools.a", "nucleo_core.hub.c"),
    }


def test_a_re_exported_name_is_followed_to_its_module(package: Path) -> None:
    """``from pkg import Name`` depends on the module defining Name, not on pkg's __init__."""
    _write(
        package,
        {
            "__init__.py": "",
            "hub/__init__.py": "from nucleo_core.hub.b import B\nfrom nucleo_core.hub.c import C\n",
            "hub/b.py": "from nucleo_core.hub import C\nB = C\n",
            "hub/c.py": "C = 1\n",
        },
    )
    assert graph.graph()["nucleo_core.hub.b"] == {"nucleo_core.hub.c"}
    assert graph.cycles() == []


def test_a_cycle_is_found_and_a_path_through_it_named(package: Path) -> None:
    """Three modules importing round in a circle are one cycle, and its path closes."""
    _write(
        package,
        {
            "__init__.py": "",
            "hub/__init__.py": "",
            "hub/a.py": "from nucleo_core.hub import b\n",
            "hub/b.py": "import nucleo_core.hub.c\n",
            "hub/c.py": "def f():\n    from . import a\n",
        },
    )
    (component,) = graph.cycles()
    assert component == ["nucleo_core.hub.a", "nucleo_core.hub.b", "nucleo_core.hub.c"]
    path = graph.cycle_path(component)
    assert path[0] == path[-1] == "nucleo_core.hub.a"
    assert set(path) == set(component)
    deps = graph.graph()
    assert all(after in deps[before] for before, after in itertools.pairwise(path))


def test_a_module_outside_every_layer_is_named(package: Path) -> None:
    """A new top-level package must be placed in a layer before the graph can be judged."""
    _write(package, {"__init__.py": "", "newthing/__init__.py": ""})
    with pytest.raises(LookupError, match="newthing"):
        graph.layer_of("nucleo_core.newthing")


def test_text_that_only_looks_like_an_import_is_not_one(package: Path) -> None:
    """The graph is read from the syntax tree: strings and comments import nothing."""
    _write(
        package,
        {
            "__init__.py": "",
            "tools/__init__.py": "",
            "tools/a.py": 'DOC = "from nucleo_core.hub import b"  # import nucleo_core.hub.b\n',
            "hub/__init__.py": "",
            "hub/b.py": "",
        },
    )
    assert graph.graph()["nucleo_core.tools.a"] == set()
    assert graph.upward_imports() == []


def test_the_architecture_page_names_only_modules_that_exist() -> None:
    """Every module path docs/architecture.md names is a file of the package (no stale map)."""
    page = graph.ARCHITECTURE_PAGE.read_text(encoding="utf-8")
    named = set(re.findall(r"`(nucleo_core/[\w/]+\.py)`", page))
    assert len(named) > 40, "the page's map of concepts to modules is missing"
    missing = sorted(path for path in named if not (graph.ROOT / path).is_file())
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"
